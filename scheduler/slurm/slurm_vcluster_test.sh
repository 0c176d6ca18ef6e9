#!/usr/bin/env bash
# Bazel entry point of slurm_vcluster_test.py (cwd: the runfiles tree of the workspace).
exec python3 scheduler/slurm/slurm_vcluster_test.py "$@"
