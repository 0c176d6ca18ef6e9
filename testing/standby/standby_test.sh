#!/usr/bin/env bash
# Bazel entry point of standby_test.py (cwd: the runfiles tree of the workspace).
exec python3 testing/standby/standby_test.py "$@"
