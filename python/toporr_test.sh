#!/usr/bin/env bash
# Bazel entry point of toporr_test.py (cwd: the runfiles tree of the workspace).
exec python3 python/toporr_test.py "$@"
