#!/usr/bin/env bash
# Bazel entry point of openmpi_components_test.py (cwd: the runfiles tree of the workspace).
exec python3 client/mpi/testing/openmpi_components_test.py "$@"
