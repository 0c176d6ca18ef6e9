#!/usr/bin/env bash
# Bazel entry point of site_build_test.py (cwd: the runfiles tree of the workspace).
exec python3 client/mpi/testing/site_build_test.py "$@"
