#!/usr/bin/env bash
# Runs tools/check_layers.py over the real source tree (see source_root.sh).
set -euo pipefail
source "$(dirname "$0")/source_root.sh"
exec python3 "$(runfile tools/check_layers.py)" "$SOURCE_ROOT"
