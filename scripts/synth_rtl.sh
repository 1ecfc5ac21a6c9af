#!/usr/bin/env bash
# Synthesizes one RTL module with Yosys (generic gates), fails on latches (but the one of the
# clock-gating cell, mxu_icg, which is its design) or on any Yosys error,
# and prints the cell count.
# Usage: scripts/synth_rtl.sh [--whole] MODULE [STAT_FILE] [-set PARAM VALUE]...
# By default the module's own logic is synthesized and every module it instantiates is a black box
# (its ports only, checked against the instance): each of those is synthesized by its own run (the
# synth_* tests run one per module), so no logic is synthesized twice. --whole synthesizes the
# module with its whole hierarchy, for the cost figures (scripts/hw_cost.sh, docs).
# mxu_sram_1r1w stands for an SRAM macro: a black box in --whole runs too, synthesized to
# flip-flops only when it is the module asked for.
set -euo pipefail
source "$(dirname "$0")/lib/usage.sh"
help_if_asked "$@"
whole=0
if [ "${1:-}" = --whole ]; then
  whole=1
  shift
fi
(($# >= 1)) || usage_error "expected a MODULE (--help for the usage)"
module=$1
stat_file=${2:-/dev/null}
shift $(( $# >= 2 ? 2 : 1 ))
params=""
while [ $# -ge 3 ] && [ "$1" = -set ]; do
  params="$params chparam -set $2 $3 $module;"
  shift 3
done
(($# == 0)) || usage_error "unexpected '$1' (after MODULE [STAT_FILE]: -set PARAM VALUE only)"
rtl=$(cd "$(dirname "$0")/../rtl" && pwd)
[[ $module != *_pkg ]] || usage_error "'$module': rtl/$module.sv is a package, not a module"
[ -f "$rtl/$module.sv" ] || usage_error "no module '$module' (no rtl/$module.sv)"
[[ $stat_file != -* ]] || usage_error "unknown option '$stat_file' (--whole, -set; --help)"
packages="$rtl/mxu_isa_pkg.sv $rtl/mxu_pkg.sv"
modules=$(ls "$rtl"/*.sv | grep -v -e '_pkg\.sv$' -e 'mxu_sram_1r1w\.sv$' | tr '\n' ' ')
if [ "$module" = mxu_sram_1r1w ]; then
  read_sram="read_verilog -sv $rtl/mxu_sram_1r1w.sv"
else
  read_sram="read_verilog -sv -lib $rtl/mxu_sram_1r1w.sv"
fi
if [ $whole = 1 ]; then
  sources="$packages $modules"
  read_others=""
elif [ "$module" = mxu_sram_1r1w ]; then
  sources="$packages"
  read_others=""
else
  sources="$packages $rtl/$module.sv"
  others=$(tr ' ' '\n' <<<"$modules" | grep -v -e "/$module\.sv\$" -e '^$' | tr '\n' ' ')
  read_others="read_verilog -sv -lib $others"
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! yosys -q -l "$log" -p "
    read_verilog -sv $sources
    $read_others
    $read_sram
    $params
    synth -top $module
    check -assert
    select -assert-none t:\$dlatch t:\$adlatch %u t:\$_DLATCH* %u t:\$_DLATCHSR* %u mxu_icg/* %d
    select -assert-max 1 mxu_icg/t:\$_DLATCH*
    tee -q -o $stat_file stat" >/dev/null; then
  grep -E 'ERROR|Assertion|Error' "$log" | head -5 >&2
  echo "synthesis of $module failed" >&2
  exit 1
fi
cells=$(grep -E 'Number of cells' "$log" | tail -1 | awk '{print $NF}')
latches="no latches"
[ "$module" = mxu_icg ] && latches="its one latch (the clock gate's)"
echo "$module: synthesized, $latches, $cells cells"
