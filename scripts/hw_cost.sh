#!/usr/bin/env bash
# What the arithmetic costs in hardware, from Yosys 0.23: the processing element and the systolic
# array at the sizes given, mapped to two-input gates (AND, NAND, OR, NOR, XOR, XNOR, MUX), with
# their flip-flops and the longest combinational path in gates (`ltp -noff`). A benchmark for
# docs/performance.md, not a test: the array's synthesis time grows faster than its PEs.
# Usage: scripts/hw_cost.sh [ROWSxCOLS ...]   (default: 2x2 4x4; 4x4 takes about 5 minutes)
#        scripts/hw_cost.sh --devices ROWSxCOLS[-flush] ...
#        scripts/hw_cost.sh --pe-stages N|all [--flush] [--no-int8] [--json]
# --pe-stages: the PE at pipeline depth N (mxu_pkg::PeStages, 1 to PeMaxStages) or at every depth:
# a table row each, or with --json one JSON object per depth and line: pe_stages, int8, cells,
# flip_flops, max_stage_depth (the longest path between registers, in two-input gates).
# --no-int8: the PE without its int8 path (parameter Int8 = 0), to see what the mode costs.
# --devices: whole devices (mxu_top with each device's values, as cmake/devices.cmake gives them),
# synthesized module by module without flattening (each distinct module once, its cells counted
# once per instance: Yosys's hierarchy statistics), SRAMs as macros; their bits counted from the
# RTL's inferred memories. No longest path here: the PE's (above) is the device's.
set -euo pipefail
rtl=$(cd "$(dirname "$0")/../rtl" && pwd)
sources="$rtl/mxu_isa_pkg.sv $rtl/mxu_pkg.sv $(ls "$rtl"/*.sv | grep -v -e '_pkg\.sv$' -e 'mxu_sram_1r1w\.sv$' | tr '\n' ' ')"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(2x2 4x4)

# measure MODULE [chparam commands]: sets cells, flops and depth of the flattened module.
measure() {
  local module=$1 params=${2:-} log
  log=$(mktemp)
  start=$(date +%s)
  yosys -q -l "$log" -p "
      read_verilog -sv $sources
      read_verilog -sv -lib $rtl/mxu_sram_1r1w.sv
      $params
      synth -top $module -flatten
      abc -g AND,NAND,OR,NOR,XOR,XNOR,MUX
      opt_clean
      ltp -noff
      stat" >/dev/null
  cells=$(grep -E '^ +Number of cells' "$log" | tail -1 | awk '{print $NF}')
  # The last statistics block is the mapped netlist's (synth prints one of its own before).
  flops=$(awk '/Printing statistics/ {n = 0; delete f} /\$_(S?DFFE?|ALDFF|DFFSRE?)_/ {f[n++] = $NF}
               END {s = 0; for (i in f) s += f[i]; print s}' "$log")
  depth=$(grep -oE 'Longest topological path in [^ ]+ \(length=[0-9]+\)' "$log" | tail -1 |
          grep -oE '[0-9]+\)$' | tr -d ')')
  rm -f "$log"
}

# cost MODULE LABEL [chparam commands]: one table row.
cost() {
  local start
  start=$(date +%s)
  measure "$1" "${3:-}"
  printf '| %s | %s | %s | %s | %s s |\n' "$2" "$cells" "$flops" "$depth" \
         "$(($(date +%s) - start))"
}

# device_cost ROWSxCOLS[-flush]: one table row for a whole device.
device_cost() {
  local spec=$1 dims rows cols flush=0 defines log start bits cells flops
  dims=${spec%%-*}
  rows=${dims%x*}
  cols=${dims#*x}
  [[ $spec == *-flush ]] && flush=1
  defines="-DMXU_ARRAY_ROWS=$rows -DMXU_ARRAY_COLS=$cols -DMXU_FLUSH_SUBNORMALS=$flush"
  log=$(mktemp)
  start=$(date +%s)
  # The SRAM bits: every memory the RTL infers (counted before any memory pass maps them).
  yosys -q -l "$log" -p "
      read_verilog -sv $defines $sources $rtl/mxu_sram_1r1w.sv
      hierarchy -top mxu_top
      proc
      stat -top mxu_top" >/dev/null
  bits=$(awk '/=== design hierarchy ===/ {h = 1} h && /Number of memory bits/ {print $NF}' "$log")
  yosys -q -l "$log" -p "
      read_verilog -sv $defines $sources
      read_verilog -sv -lib $rtl/mxu_sram_1r1w.sv
      synth -top mxu_top
      abc -g AND,NAND,OR,NOR,XOR,XNOR,MUX
      opt_clean
      stat -top mxu_top" >/dev/null
  cells=$(awk '/=== design hierarchy ===/ {h = 1} h && /Number of cells/ {print $NF}' "$log" |
          tail -1)
  flops=$(awk '/=== design hierarchy ===/ {h = 1; s = 0} h && /\$_(S?DFFE?|ALDFF|DFFSRE?)_/ {s += $NF}
               END {print s}' "$log")
  printf '| %s | %s | %s | %s | %s s |\n' "$spec" "$cells" "$flops" "$bits" \
         "$(($(date +%s) - start))"
  rm -f "$log"
}

if [ "${1:-}" = --pe-stages ]; then
  max=$(sed -nE 's/.*parameter int unsigned PeMaxStages *= *([0-9]+);.*/\1/p' "$rtl/mxu_pkg.sv")
  which=${2:-} json=0 flush=0 int8=1
  (($# >= 2)) && shift 2 || shift $#
  for arg in "$@"; do
    case "$arg" in
      --json) json=1 ;;
      --flush) flush=1 ;;
      --no-int8) int8=0 ;;
      *) echo "hw_cost.sh: --pe-stages: unknown option '$arg' (--json, --flush, --no-int8)" >&2
         exit 2 ;;
    esac
  done
  if [ "$which" = all ]; then
    depths=$(seq 1 "$max")
  elif [[ $which =~ ^[0-9]+$ ]] && ((which >= 1 && which <= max)); then
    depths=$which
  else
    echo "hw_cost.sh: --pe-stages '$which': expected 1 to $max (PeMaxStages) or all" >&2
    exit 2
  fi
  ((json)) || echo "| PE stages | cells (2-input gates and flip-flops) | flip-flops | longest stage (gates) |"
  ((json)) || echo "|---|---|---|---|"
  for n in $depths; do
    measure mxu_pe "chparam -set Stages $n -set FlushSubnormals $flush -set Int8 $int8 mxu_pe;"
    if ((json)); then
      printf '{"pe_stages": %d, "int8": %s, "flush_subnormals": %s, "cells": %d, "flip_flops": %d, "max_stage_depth": %d}\n' \
             "$n" "$( ((int8)) && echo true || echo false)" \
             "$( ((flush)) && echo true || echo false)" "$cells" "$flops" "$depth"
    else
      printf '| %s | %s | %s | %s |\n' "$n" "$cells" "$flops" "$depth"
    fi
  done
  exit 0
fi

if [ "${1:-}" = --devices ]; then
  shift
  for spec in "$@"; do
    if [[ ! $spec =~ ^[0-9]+x[0-9]+(-flush)?$ ]]; then
      echo "hw_cost.sh: device '$spec': expected ROWSxCOLS or ROWSxCOLS-flush (e.g. 8x4-flush)" >&2
      exit 2
    fi
  done
  echo "| device | cells (2-input gates and flip-flops) | flip-flops | SRAM bits | Yosys time |"
  echo "|---|---|---|---|---|"
  for spec in "$@"; do device_cost "$spec"; done
  exit 0
fi

echo "| block | cells (2-input gates and flip-flops) | flip-flops | longest path (gates) | Yosys time |"
echo "|---|---|---|---|---|"
cost mxu_pe "PE (bf16 x bf16 + fp32 and int8 x int8 + int32, IEEE)"
cost mxu_pe "PE without the int8 path" "chparam -set Int8 0 mxu_pe;"
cost mxu_pe "PE, flush to zero" "chparam -set FlushSubnormals 1 mxu_pe;"
cost mxu_activation_unit "activation unit, 1 lane (bf16 rounding and int8 requantization)" \
     "chparam -set Lanes 1 mxu_activation_unit;"
for size in "${sizes[@]}"; do
  rows=${size%x*}
  cols=${size#*x}
  cost mxu_systolic_array "systolic array $size" \
       "chparam -set Rows $rows -set Cols $cols mxu_systolic_array;"
done
