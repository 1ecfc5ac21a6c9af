#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the main job: the device configuration, a GEMM
# on the RTL checked bit for bit against the golden model, a short Fashion-MNIST training run
# whose every GEMM runs on the RTL (about a minute; curves in build/train_curves.png) beside the
# same run in host fp32, and a full epoch of all 60,000 images on the model backend (seconds).
# Usage: scripts/demo.sh [--epochs N]   (N: the short runs' epochs, default 3)
set -euo pipefail
source "$(dirname "$0")/lib/usage.sh"
help_if_asked "$@"
# Checked before the setup's minutes of building.
extra=()
while (($#)); do
  [ "$1" = --epochs ] || usage_error "unknown argument '$1' (--epochs N; --help)"
  [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage_error "--epochs '${2:-}': expected a positive integer"
  extra+=(--epochs "$2")
  shift 2
done
cd "$(dirname "$0")/.."
# The tool the demo runs (its own device) and its Python extension, which the README's next steps
# import (build/python, on the venv's path); scripts/test.sh builds the rest.
bash scripts/setup.sh --target mxu --target mxu_python
build/bin/mxu info
echo
build/bin/mxu gemm --m 256 --k 256 --n 256 --relu --check
echo
short=(--data fashion-mnist --hidden 128 --train-samples 1024 --test-samples 500 --epochs 3)
build/bin/mxu train "${short[@]}" --plot build/train_curves.png --log build/train_log.csv ${extra[@]+"${extra[@]}"}
echo -n "the same run in host fp32: "
build/bin/mxu train "${short[@]}" --backend host ${extra[@]+"${extra[@]}"} | tail -n 1
echo
exec build/bin/mxu train --data fashion-mnist --hidden 128 --epochs 1 --backend model
