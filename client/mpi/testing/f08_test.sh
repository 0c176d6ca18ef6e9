#!/usr/bin/env bash
# Bazel entry point of f08_test.py (cwd: the runfiles tree of the workspace).
exec python3 client/mpi/testing/f08_test.py "$@"
