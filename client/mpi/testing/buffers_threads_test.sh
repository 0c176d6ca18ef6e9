#!/usr/bin/env bash
# Bazel entry point of buffers_threads_test.py (cwd: the runfiles tree of the workspace).
exec python3 client/mpi/testing/buffers_threads_test.py "$@"
