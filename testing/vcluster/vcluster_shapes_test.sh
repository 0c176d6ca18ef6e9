#!/usr/bin/env bash
# Bazel entry point of vcluster_shapes_test.py (cwd: the runfiles tree of the workspace).
exec python3 testing/vcluster/vcluster_shapes_test.py "$@"
