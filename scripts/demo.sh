#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the main job on its built-in defaults: the
# device configuration, then a GEMM on the RTL checked bit for bit against the golden model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build/bin/mxu info
echo
exec build/bin/mxu gemm --m 256 --k 256 --n 256 --relu --check "$@"
