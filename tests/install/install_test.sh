#!/usr/bin/env bash
# The driver as a library, from an install tree: installs the build into a fresh prefix, moves
# the prefix (the package must be relocatable), then builds and runs examples/ against it with
# CMake (find_package(mxu)) and once more with pkg-config (mxu.pc), and imports the Python
# package from it (and mxu.torch, where PyTorch is installed).
#   install_test.sh BUILD_DIR SOURCE_DIR   (PYTHON: the interpreter the module is built for)
set -euo pipefail
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
work=$build/install-test
rm -rf "$work/installed" "$work/prefix"
mkdir -p "$work"

echo "== cmake --install into a prefix, then moved"
cmake --install "$build" --prefix "$work/installed" >/dev/null
mv "$work/installed" "$work/prefix"
prefix=$work/prefix
test -f "$prefix/lib/cmake/mxu/mxuConfig.cmake"
test -f "$prefix/include/mxu/driver/gemm.h"

echo "== examples/ with find_package(mxu)"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$source/examples" -B "$work/examples" -G Ninja -Wno-dev \
  -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" >/dev/null
cmake --build "$work/examples" -j2
ctest --test-dir "$work/examples" --output-on-failure

echo "== gemm_example with pkg-config"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046
# -Werror: the example, as docs/driver.md's program, compiles without a warning under -Wextra.
${launcher:+ccache} g++ -std=c++17 -O2 -Wall -Wextra -Werror "$source/examples/gemm_example.cc" \
  -o "$work/gemm_example_pc" $(pkg-config --cflags --libs mxu)
# ... and prints no SystemC banner, with nothing set in the environment.
output=$(env -u SYSTEMC_DISABLE_COPYRIGHT_MESSAGE "$work/gemm_example_pc" 20 30 40)
echo "$output"
if grep -q 'Accellera' <<<"$output"; then
  echo "install test: gemm_example printed the SystemC banner" >&2
  exit 1
fi

site=$prefix/lib/python3/dist-packages
if [ -f "$site/mxu/__init__.py" ]; then
  echo "== the Python package from the install tree"
  compgen -G "$site/mxu/_mxu*.so" >/dev/null
  PYTHONPATH=$site "${PYTHON:-python3}" -c '
import glob, importlib, os, sys, mxu, numpy as np
assert mxu.__file__.startswith(sys.argv[1] + os.sep), mxu.__file__
for so in glob.glob(sys.argv[1] + "/mxu/_mxu*.so"):  # one per device
    importlib.import_module("mxu." + os.path.basename(so).split(".")[0])
d = mxu.Device(); print(d.info()); a = np.ones((3, 5), np.float32)
print(d.gemm(a, a.T.copy(), check=True))' "$site"
  # mxu.torch, where PyTorch is installed.
  if "${PYTHON:-python3}" -c 'import torch' 2>/dev/null; then
    PYTHONPATH=$site "${PYTHON:-python3}" -c 'import mxu.torch'
  fi
fi
echo "install test: passed"
