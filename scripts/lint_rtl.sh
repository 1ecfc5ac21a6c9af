#!/usr/bin/env bash
# verilator --lint-only -Wall over every module in rtl/ (and its rooms) with the project's shared flags and
# waivers (rtl/mxu.vc, rtl/mxu.vlt), with the assertions (--assert) included. Exit status non-zero
# on any warning.
set -euo pipefail
source "$(dirname "$0")/lib/usage.sh"
no_arguments "$@"
rtl=$(cd "$(dirname "$0")/../rtl" && pwd)
sources=$(find "$rtl" -name '*.sv' ! -name '*_pkg.sv' | sort)
# rtl/ and its rooms hold several top-level modules (each block is synthesized on its own): lint them together.
verilator --lint-only --assert -F "$rtl/mxu.vc" $sources -Wno-MULTITOP
# The flush-mode build must be as clean as the default one.
verilator --lint-only --assert -F "$rtl/mxu.vc" $sources -Wno-MULTITOP +define+MXU_FLUSH_SUBNORMALS=1
# Other array sizes (docs/architecture.md, "Devices"), each a device of its own (the defines of
# mxu_pkg's device descriptor): 32 rows by 4 columns and 4 by 32, where a lane index takes 5 bits
# on each side in turn and a unified-buffer row (32 lanes, 64 bytes) spans two beats of the
# 32-byte bus; and the wide blocks at the largest array the CSRs describe (255 lanes,
# FEATURES.UB_LANES is 8 bits; one block alone leaves most of mxu_pkg unused, hence
# -Wno-UNUSEDPARAM there). The two narrow arrays take a fifth of the time 32 x 32 took (1,024
# PEs flattened: 64 s of the suite's slowest test), and no expression in rtl/ widens with
# Rows x Cols but flat bus widths.
top=(verilator --lint-only --assert -F "$rtl/mxu.vc" --top-module mxu_top "$rtl/mxu_top.sv")
small=(+define+MXU_ARRAY_ROWS=8 +define+MXU_ARRAY_COLS=4 +define+MXU_UB_DEPTH=1024
       +define+MXU_ACC_DEPTH=256)
"${top[@]}" "${small[@]}" +define+MXU_FLUSH_SUBNORMALS=1
"${top[@]}" +define+MXU_ARRAY_ROWS=32 +define+MXU_ARRAY_COLS=4
"${top[@]}" +define+MXU_ARRAY_ROWS=4 +define+MXU_ARRAY_COLS=32
# The ungated design (gate=0), which the formal equivalence compares against.
"${top[@]}" "${small[@]}" +define+MXU_CLOCK_GATING=0
# Every memory port width the RTL takes (bus=B: 16 to 1024 bytes a beat, common/device_spec.h).
for bus in 16 64 128 256 512 1024; do
  "${top[@]}" "${small[@]}" +define+MXU_BUS_BYTES="$bus"
done
# Every PE pipeline depth (mxu_pkg::PeMaxStages), in the PE and in a small device.
for stages in 1 2 3 4 5 6 7; do
  verilator --lint-only --assert -F "$rtl/mxu.vc" --top-module mxu_pe "$rtl/array/mxu_pe.sv" \
    -Wno-UNUSEDPARAM -GStages="$stages"
  "${top[@]}" +define+MXU_ARRAY_ROWS=4 +define+MXU_ARRAY_COLS=4 +define+MXU_UB_DEPTH=256 \
    +define+MXU_ACC_DEPTH=64 +define+MXU_PE_STAGES="$stages"
done
# The wide blocks at TPU size and at the largest array the CSRs describe (128 and 255 lanes).
# The DMA engines at both sizes and the array's edges at 128 are verilated by
# scripts/wide_compile.sh (test rtl_wide_compile) with these very flags and parameters, and a
# verilation stops on the same -Wall warnings as a lint: they are not linted twice here.
for lanes in 128 255; do
  for name in mxu_accumulators mxu_activation_unit mxu_unified_buffer mxu_weight_fifo; do
    verilator --lint-only --assert -F "$rtl/mxu.vc" --top-module "$name" \
      "$(find "$rtl" -name "$name.sv")" \
      -Wno-UNUSEDPARAM -GLanes="$lanes"
  done
done
# The array's two edges at 255 (N rows by one column, one row by N columns), whose C++ is too
# big for wide_compile.sh to compile.
for shape in "-GRows=255 -GCols=1" "-GRows=1 -GCols=255"; do
  # shellcheck disable=SC2086  # two -G options
  verilator --lint-only --assert -F "$rtl/mxu.vc" --top-module mxu_systolic_array \
    "$rtl/array/mxu_systolic_array.sv" -Wno-UNUSEDPARAM $shape
done
echo "lint clean: $(echo "$sources" | wc -l) files; mxu_top at 8 x 4, 32 x 4 and 4 x 32, gated and not; PE depths 1-7; buses 16-1024; wide blocks at 128 and 255 lanes"
