#!/usr/bin/env bash
# Synthesizes one RTL module with Yosys (generic gates), fails on latches or on any Yosys error,
# and prints the cell count. Usage: scripts/synth_rtl.sh MODULE [STAT_FILE]
set -euo pipefail
module=$1
stat_file=${2:-/dev/null}
rtl=$(cd "$(dirname "$0")/../rtl" && pwd)
sources="$rtl/mxu_pkg.sv $(ls "$rtl"/*.sv | grep -v '_pkg\.sv$' | tr '\n' ' ')"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! yosys -q -l "$log" -p "
    read_verilog -sv $sources
    synth -top $module
    check -assert
    select -assert-none t:\$dlatch t:\$adlatch t:\$_DLATCH* t:\$_DLATCHSR*
    tee -q -o $stat_file stat" >/dev/null; then
  grep -E 'ERROR|Assertion' "$log" | head -5 >&2
  echo "synthesis of $module failed" >&2
  exit 1
fi
cells=$(grep -E 'Number of cells' "$log" | tail -1 | awk '{print $NF}')
echo "$module: synthesized, no latches, $cells cells"
