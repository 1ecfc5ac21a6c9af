#!/usr/bin/env bash
# Synthesizes one RTL module with Yosys (generic gates), fails on latches or on any Yosys error,
# and prints the cell count. Usage: scripts/synth_rtl.sh MODULE [STAT_FILE] [-set PARAM VALUE]...
# sram_1r1w stands for an SRAM macro: other modules see it as a black box (its ports only), and
# it is synthesized to flip-flops only when it is the module asked for.
set -euo pipefail
module=$1
stat_file=${2:-/dev/null}
shift $(( $# >= 2 ? 2 : 1 ))
params=""
while [ $# -ge 3 ] && [ "$1" = -set ]; do
  params="$params chparam -set $2 $3 $module;"
  shift 3
done
rtl=$(cd "$(dirname "$0")/../rtl" && pwd)
sources="$rtl/mxu_isa_pkg.sv $rtl/mxu_pkg.sv $(ls "$rtl"/*.sv | grep -v -e '_pkg\.sv$' -e 'sram_1r1w\.sv$' | tr '\n' ' ')"
if [ "$module" = sram_1r1w ]; then
  read_sram="read_verilog -sv $rtl/sram_1r1w.sv"
else
  read_sram="read_verilog -sv -lib $rtl/sram_1r1w.sv"
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! yosys -q -l "$log" -p "
    read_verilog -sv $sources
    $read_sram
    $params
    synth -top $module
    check -assert
    select -assert-none t:\$dlatch t:\$adlatch t:\$_DLATCH* t:\$_DLATCHSR*
    tee -q -o $stat_file stat" >/dev/null; then
  grep -E 'ERROR|Assertion|Error' "$log" | head -5 >&2
  echo "synthesis of $module failed" >&2
  exit 1
fi
cells=$(grep -E 'Number of cells' "$log" | tail -1 | awk '{print $NF}')
echo "$module: synthesized, no latches, $cells cells"
