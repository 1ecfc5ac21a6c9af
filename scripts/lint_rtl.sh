#!/usr/bin/env bash
# verilator --lint-only -Wall over every module in rtl/ with the project's shared flags and
# waivers (rtl/mxu.vc, rtl/mxu.vlt), with the assertions (--assert) included. Exit status non-zero
# on any warning.
set -euo pipefail
rtl=$(cd "$(dirname "$0")/../rtl" && pwd)
sources=$(ls "$rtl"/*.sv | grep -v '_pkg\.sv$')
# rtl/ holds several top-level modules (each block is synthesized on its own): lint them together.
verilator --lint-only --assert -F "$rtl/mxu.vc" $sources -Wno-MULTITOP
# The flush-mode build must be as clean as the default one.
verilator --lint-only --assert -F "$rtl/mxu.vc" $sources -Wno-MULTITOP -GFlushSubnormals=1\'b1
echo "lint clean: $(echo "$sources" | wc -l) files"
