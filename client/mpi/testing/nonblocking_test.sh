#!/usr/bin/env bash
# Bazel entry point of nonblocking_test.py (cwd: the runfiles tree of the workspace).
exec python3 client/mpi/testing/nonblocking_test.py "$@"
