#!/usr/bin/env bash
# Bazel entry point of coll_component_test.py (cwd: the runfiles tree of the workspace).
exec python3 client/mpi/testing/coll_component_test.py "$@"
