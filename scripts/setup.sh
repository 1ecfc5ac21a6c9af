#!/usr/bin/env bash
# Installs whatever is missing (Debian bookworm, apt), then configures and builds the project
# incrementally into build/: everything, or with --target NAME (repeatable, first) only those
# targets and what they need (the demo builds the one `mxu` it runs). Extra arguments go to the
# CMake configure step. `setup.sh --list` prints the apt packages it installs, and nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=()
while [ "${1:-}" = --target ]; do
  [ $# -ge 2 ] || { echo "setup.sh: --target needs a target name" >&2; exit 2; }
  targets+=(--target "$2")
  shift 2
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

cmake -S . -B build -G Ninja -Wno-dev "$@" >/dev/null
cmake --build build -j"$(nproc)" ${targets[@]+"${targets[@]}"}
