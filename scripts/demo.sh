#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the main job on its built-in defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec build/bin/mxu selfcheck "$@"
