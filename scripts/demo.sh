#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the main job on its built-in defaults: the
# device configuration, a GEMM on the RTL checked bit for bit against the golden model, and a
# short mixed-precision training run whose every GEMM runs on the RTL (about 3 minutes), with its
# curves in build/train_curves.png. Extra arguments go to `mxu train` (e.g. --epochs 5).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build/bin/mxu info
echo
build/bin/mxu gemm --m 256 --k 256 --n 256 --relu --check
echo
exec build/bin/mxu train --plot build/train_curves.png --log build/train_log.csv "$@"
