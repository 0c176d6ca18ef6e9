#!/usr/bin/env bash
# Bazel entry point of profile_test.py (cwd: the runfiles tree of the workspace).
exec python3 client/mpi/testing/profile_test.py "$@"
