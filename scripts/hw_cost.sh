#!/usr/bin/env bash
# What the arithmetic costs in hardware, from Yosys 0.23: the processing element and the systolic
# array at the sizes given, mapped to two-input gates (AND, NAND, OR, NOR, XOR, XNOR, MUX), with
# their flip-flops and the longest combinational path in gates (`ltp -noff`). A benchmark for
# docs/performance.md, not a test: the array's synthesis time grows faster than its PEs.
# The mapping is ABC's delay-oriented one (`abc -fast`: structural hashing, then `map`) on the
# structure Yosys builds, Brent-Kung adders included, as a timing-driven flow would keep them.
# ABC's default script recovers area by rebuilding every adder as a ripple chain (a 32-bit add:
# 18 levels here, 62 there), which no flow aiming at a clock would do; until 2026-11-26 the
# figures were taken that way (the PE at 6 stages: 53 levels then, 42 now).
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
# RTL's inferred memories. No longest path here: --depths (below) gives every module's and the
# device's.
#        scripts/hw_cost.sh --depths [--device SPEC] [--module NAME[,NAME...]] [--json]
# --depths: the longest register-to-register path (two-input gates, `ltp -noff`, as for the PE) of
# every module of mxu_top's hierarchy, mxu_top included, each module flattened with its
# submodules and cut at its flip-flops and at the SRAM macros' ports (lib/hw_cost_depths.py),
# at the values of device SPEC (a cmake/devices.cmake entry, ROWSxCOLS[-flush][:ub=N][:acc=N]
# [:wfifo=N][:pe=N][:bus=B]..., parsed by the project's own parser, cmake/device_spec_tool.cc;
# default: MXU_DEVICES's first entry), with two exceptions where the array's size does not change
# a depth but makes Yosys far slower: the modules that hold the array (mxu_pe_col, the array, the
# datapath, mxu_top) at a 2x2 array (PE to PE paths included; a PE's paths are the same in any
# array), the lane-parallel accumulators and activation unit at one lane (lanes are copies, with
# nothing between them). A module elaborated with several parameter sets (the delay lines, FIFOs,
# DMA engines...) is measured at each and reported at its deepest. A Markdown row each, or with
# --json one JSON object per module and line: module, cells, flip_flops, max_stage_depth ("array":
# the array it was measured at where not SPEC's, "parameter_sets" where several), then one line
# for the device: device, max_stage_depth, module (the smallest module with the device's longest
# stage). --module NAME[,NAME...]: those modules only, and no device line. A bad value: one line, exit 2.
set -euo pipefail
source "$(dirname "$0")/lib/usage.sh"
help_if_asked "$@"
exec python3 "$(dirname "$0")/lib/hw_cost.py" "$@"
