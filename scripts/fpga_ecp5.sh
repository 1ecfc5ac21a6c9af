#!/usr/bin/env bash
# The device on an FPGA, placed and routed: the open ECP5 flow from PyPI (YoWASP, pinned and
# installed into .venv/ by scripts/setup.sh). Yosys's synth_ecp5 -abc9 maps mxu_top (the
# device's parameters as scripts/ppa.sh sets them, from a cmake/devices.cmake entry; the SRAMs
# rtl/prim/mxu_sram_1r1w.sv onto DP16KD block RAM) and nextpnr-ecp5 places and routes it on a
# LFE5U-85F (CABGA381). mxu_top has far more port bits than the package has pins, so it is
# placed under a generated wrapper: its inputs from a shift register fed by one pin, its outputs
# loaded into a shift register read out on one pin (every port used, nothing optimized away,
# every path register to register; the wrapper's flip-flops are counted apart). Reports LUTs,
# flip-flops, DSP blocks, block RAM (used / available) and the Fmax of clk_i after routing.
# A benchmark, not a test: minutes to tens of minutes a device on 2 cores. Method and figures:
# docs/ppa.md.
# Usage: scripts/fpga_ecp5.sh [--device SPEC] [--json] [--keep DIR] [--timeout S] [--seed N]
#                             [--freq MHZ] [--lut-map abc9|abc]
# --device SPEC: a cmake/devices.cmake entry (default: MXU_DEVICES's first). Built without clock
#   gating (an FPGA does not gate clocks through logic): an entry with gate=1 is refused.
# --json: one object (device, part, luts, ffs, dsp, bram: {used, available}, fmax_mhz, fits,
#   seconds, ...). Otherwise a Markdown table.
# --keep DIR: keep the work files (Yosys's script, log and netlist, nextpnr's log and report) in
#   DIR, a new or empty directory (created) or one an earlier fpga_ecp5.sh --keep made (its
#   netlist reused where the synthesis is the same); any other existing path is refused.
# --timeout S: each tool's limit in seconds (default 3600). --seed N: nextpnr's placer seed
#   (default 1). --freq MHZ: the clock target nextpnr optimizes for (default 100).
# --lut-map abc9|abc: Yosys's LUT mapping, ABC9 (synth_ecp5's own, the default) or classic ABC
#   (abc -lut 4:7 -dress in place of synth_ecp5's abc9 step): much faster on a large device
#   (ABC9 did not finish a 4x4 in 40 minutes).
# A design larger than the chip: fits false, the figures of synthesis, exit 0. A bad option, an
# unknown device, a missing tool (run scripts/setup.sh), a failed or timed-out tool: one line
# on stderr, exit 2.
set -euo pipefail
exec python3 "$(dirname "$0")/fpga_ecp5.py" "$@"
