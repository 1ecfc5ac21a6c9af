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
exec python3 "$(dirname "$0")/lib/synth_rtl.py" "$@"
