#!/usr/bin/env bash
# verilator --lint-only -Wall over every module in rtl/ with the project's shared flags and
# waivers (rtl/mxu.vc, rtl/mxu.vlt), with the assertions (--assert) included. Exit status non-zero
# on any warning.
set -euo pipefail
source "$(dirname "$0")/lib/usage.sh"
no_arguments "$@"
rtl=$(cd "$(dirname "$0")/../rtl" && pwd)
sources=$(ls "$rtl"/*.sv | grep -v '_pkg\.sv$')
# rtl/ holds several top-level modules (each block is synthesized on its own): lint them together.
verilator --lint-only --assert -F "$rtl/mxu.vc" $sources -Wno-MULTITOP
# The flush-mode build must be as clean as the default one.
verilator --lint-only --assert -F "$rtl/mxu.vc" $sources -Wno-MULTITOP -GFlushSubnormals=1\'b1
# Other array sizes (docs/architecture.md, "Devices"): the CI's second device, 32 x 32, and the
# wide blocks at the largest array the CSRs describe (255 lanes, FEATURES.UB_LANES is 8 bits;
# one block alone leaves most of mxu_pkg unused, hence -Wno-UNUSEDPARAM there).
top=(verilator --lint-only --assert -F "$rtl/mxu.vc" --top-module mxu_top "$rtl/mxu_top.sv")
"${top[@]}" -GRows=8 -GCols=4 -GUbDepth=1024 -GAccDepth=256 -GFlushSubnormals=1\'b1
"${top[@]}" -GRows=32 -GCols=32
# The ungated design (gate=0), which the formal equivalence compares against.
"${top[@]}" -GRows=8 -GCols=4 -GUbDepth=1024 -GAccDepth=256 +define+MXU_CLOCK_GATING=0
# Every memory port width the RTL takes (bus=B: 16 to 1024 bytes a beat, common/device_spec.h).
for bus in 16 64 128 256 512 1024; do
  "${top[@]}" -GRows=8 -GCols=4 -GUbDepth=1024 -GAccDepth=256 +define+MXU_BUS_BYTES="$bus"
done
# Every PE pipeline depth (mxu_pkg::PeMaxStages), in the PE and in a small device.
for stages in 1 2 3 4 5 6 7; do
  verilator --lint-only --assert -F "$rtl/mxu.vc" --top-module mxu_pe "$rtl/mxu_pe.sv" \
    -Wno-UNUSEDPARAM -GStages="$stages"
  "${top[@]}" -GRows=4 -GCols=4 -GUbDepth=256 -GAccDepth=64 -GPeStages="$stages"
done
for module in mxu_dma_load:UbLanes:Cols mxu_dma_store:UbLanes:Cols mxu_accumulators:Lanes \
              mxu_activation_unit:Lanes mxu_unified_buffer:Lanes mxu_weight_fifo:Lanes; do
  IFS=: read -r name params <<<"${module/:/:}"
  args=()
  for param in ${params//:/ }; do args+=("-G$param=255"); done
  verilator --lint-only --assert -F "$rtl/mxu.vc" --top-module "$name" "$rtl/$name.sv" \
    -Wno-UNUSEDPARAM "${args[@]}"
done
echo "lint clean: $(echo "$sources" | wc -l) files; mxu_top at 8 x 4 and 32 x 32, gated and not; 255 lanes; PE depths 1-7; buses 16-1024"
