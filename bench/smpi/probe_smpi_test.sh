#!/usr/bin/env bash
# Bazel entry point of probe_smpi_test.py (cwd: the runfiles tree of the workspace).
exec python3 bench/smpi/probe_smpi_test.py "$@"
