#!/usr/bin/env bash
# Bazel entry point of standby_vcluster_test.py (cwd: the runfiles tree of the workspace).
exec python3 testing/vcluster/standby_vcluster_test.py "$@"
