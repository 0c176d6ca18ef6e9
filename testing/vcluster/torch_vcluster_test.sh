#!/usr/bin/env bash
# Bazel entry point of torch_vcluster_test.py (cwd: the runfiles tree of the workspace).
exec python3 testing/vcluster/torch_vcluster_test.py "$@"
