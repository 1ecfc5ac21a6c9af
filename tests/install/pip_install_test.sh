#!/usr/bin/env bash
# `pip install` of the repository (pyproject.toml, python/packaging/mxu_build_backend.py): makes a
# venv (with the system's site-packages, for NumPy), installs the source tree into it offline and
# without build isolation (the in-tree backend builds the package's targets in BUILD_DIR, then
# zips them), and from a directory outside the repository imports the installed package with
# the venv's python, checks that it is the venv's, and runs a checked GEMM on the model backend.
#   pip_install_test.sh BUILD_DIR SOURCE_DIR   (PYTHON: the interpreter the module is built for)
set -euo pipefail
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
python=${PYTHON:-/usr/bin/python3}
work=$build/pip-test
rm -rf "$work"
mkdir -p "$work"
outside=$(mktemp -d)
trap 'rm -rf "$outside"' EXIT

echo "== venv"
"$python" -m venv --system-site-packages "$work/venv"
venv=$(cd "$work/venv" && pwd)

echo "== pip install --no-build-isolation --no-index $source"
start=$(date +%s)
# MXU_BUILD_DIR: the backend builds in this build tree (the repository's build/ by default);
# no bytecode written into the source tree by the backend's import.
env -u PYTHONPATH MXU_BUILD_DIR="$build" PYTHONDONTWRITEBYTECODE=1 \
  "$venv/bin/pip" install --no-build-isolation --no-index --disable-pip-version-check \
  --no-cache-dir -q "$source"
echo "pip install: $(($(date +%s) - start)) s"

echo "== import from $outside"
cd "$outside"
env -u PYTHONPATH "$venv/bin/python" - "$venv" <<'PYTHON'
import os
import sys

import numpy as np

import mxu

venv = os.path.realpath(sys.argv[1])
where = os.path.realpath(mxu.__file__)
assert where.startswith(venv + os.sep), f"mxu imported from {where}, not from the venv {venv}"
dev = mxu.Device(backend="model")
assert isinstance(dev, mxu.Device) and dev.backend == "model"
rng = np.random.default_rng(1)
a = rng.standard_normal((40, 50), dtype=np.float32)
b = rng.standard_normal((50, 30), dtype=np.float32)
c = dev.gemm(a, b, check=True)
assert c.shape == (40, 30) and dev.counters()["mismatches"] == 0
print(f"mxu from {where}: {dev!r}, a checked 40 x 50 x 30 GEMM, "
      f"{dev.counters()['cycles']} cycles")
PYTHON
"$venv/bin/pip" --disable-pip-version-check show mxu | sed -n 1,2p
# The wheel's version is the CMake package's: one version, project(... VERSION).
wheel_version=$("$venv/bin/pip" --disable-pip-version-check show mxu | sed -n 's/^Version: //p')
cmake_version=$(sed -nE 's/^set\(PACKAGE_VERSION "([^"]+)"\)$/\1/p' "$build/cmake/mxuConfigVersion.cmake")
if [ "$wheel_version" != "$cmake_version" ]; then
  echo "pip install test: the wheel is $wheel_version, the CMake package $cmake_version" >&2
  exit 1
fi
echo "pip install test: passed"
