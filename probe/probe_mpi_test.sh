#!/usr/bin/env bash
# Bazel entry point of probe_mpi_test.py (cwd: the runfiles tree of the workspace).
exec python3 probe/probe_mpi_test.py "$@"
