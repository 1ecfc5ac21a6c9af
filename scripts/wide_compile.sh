#!/usr/bin/env bash
# Verilates the blocks whose signals grow with the array, at the widest sizes the README promises
# (128 and 255 lanes), and compiles what Verilator generates for each (g++ -fsyntax-only, the
# device's flags: --assert, -F rtl/mxu.vc). It catches what a lint cannot: Verilator 5.006 writes
# C++ that does not compile for some wide signals (issue 4057 of its tracker: an assertion that
# samples some wide vectors leaves a loop variable undeclared in `_eval`), seen only at TPU size.
# About a minute, where a 128 x 128 device's own build takes tens (docs/testing.md, "The
# wide-block guard": what it covers and what only a full build catches).
# Usage: scripts/wide_compile.sh [--lanes N]...   (default: 128 and 255; repeatable)
set -euo pipefail
source "$(dirname "$0")/lib/usage.sh"
help_if_asked "$@"
lanes=()
while (($#)); do
  [ "$1" = --lanes ] || usage_error "unknown argument '$1' (--lanes N; --help)"
  [[ ${2:-} =~ ^[1-9][0-9]*$ ]] && ((${2} <= 255)) ||
    usage_error "--lanes '${2:-}': expected an integer in 1..255"
  lanes+=("$2")
  shift 2
done
((${#lanes[@]})) || lanes=(128 255)
rtl=$(cd "$(dirname "$0")/../rtl" && pwd)
include=$(verilator --getenv VERILATOR_ROOT)/include
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# NAME TOP ARGS...: verilate TOP into its own folder, in the background (two at a time keep both
# cores busy); pair waits for them.
blocks=()
pids=()
pending=()
verilate() {
  local name=$1 top=$2
  shift 2
  blocks+=("$name")
  pending+=("$name")
  verilator --cc --assert -F "$rtl/mxu.vc" --top-module "$top" "$(find "$rtl" -name "$top.sv")" \
    -Wno-UNUSEDPARAM \
    --Mdir "$work/$name" "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
}
pair() {
  local i
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || {
      echo "wide_compile: ${pending[$i]}: Verilator failed:" >&2
      tail -n 20 "$work/${pending[$i]}.log" >&2
      exit 1
    }
  done
  pids=()
  pending=()
}

for n in "${lanes[@]}"; do
  device=(+define+MXU_ARRAY_ROWS="$n" +define+MXU_ARRAY_COLS="$n" +define+MXU_BUS_BYTES=512)
  # Small depths: the signals' widths follow the lanes, not the rows a memory holds.
  verilate "act_$n" mxu_activation_unit -GLanes="$n"
  verilate "acc_$n" mxu_accumulators -GLanes="$n" -GDepth=16
  pair
  verilate "ub_$n" mxu_unified_buffer -GLanes="$n" -GDepth=16
  verilate "wfifo_$n" mxu_weight_fifo -GLanes="$n" -GDepth=4
  pair
  verilate "load_$n" mxu_dma_load "${device[@]}"
  verilate "store_$n" mxu_dma_store "${device[@]}"
  pair
  # The array's edges, at TPU size only: the skew of N rows, the weight skew and de-skew of N
  # columns. The array brings its PEs along (a column or row of N), and at 255 the C++ of one
  # such row or column takes a compiler 9 GB or more; a 255-lane edge is linted (lint_rtl.sh).
  if ((n <= 128)); then
    verilate "rows_$n" mxu_systolic_array -GRows="$n" -GCols=1
    verilate "cols_$n" mxu_systolic_array -GRows=1 -GCols="$n"
    pair
  fi
done

# One translation unit a block (every generated .cpp included in turn): the generated files are
# parts of one model, and compiling them apart parsed Verilator's headers once a file, two thirds
# of the CPU time (30 files a block). The guarded bug, C++ that does not compile, fails the same.
status=0
for name in "${blocks[@]}"; do
  (cd "$work/$name" && for cpp in ./*.cpp; do echo "#include \"$cpp\""; done) >"$work/$name/all.cc"
done
# Each compile that succeeds leaves NAME.ok: a block without one failed (or never ran).
# shellcheck disable=SC2016  # $0, $1 and $2 are the inner shell's
printf '%s\n' "${blocks[@]}" | xargs -P "$(nproc)" -n 1 sh -c \
  'g++ -std=c++17 -fsyntax-only -I"$0" -I"$0/vltstd" "$1/$2/all.cc" >"$1/$2.cc.log" 2>&1 &&
   touch "$1/$2.ok"' "$include" "$work" || true
for name in "${blocks[@]}"; do
  if [ ! -e "$work/$name.ok" ]; then
    echo "wide_compile: $name: the generated C++ does not compile:" >&2
    grep -m 5 'error' "$work/$name.cc.log" >&2 || tail -n 5 "$work/$name.cc.log" >&2
    status=1
  fi
done
((status == 0)) || exit 1
echo "wide blocks compile: ${blocks[*]}"
