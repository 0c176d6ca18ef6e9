#!/usr/bin/env bash
# Bazel entry point of mpi_test.py (cwd: the runfiles tree of the workspace).
exec python3 client/mpi/testing/mpi_test.py "$@"
