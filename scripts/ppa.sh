#!/usr/bin/env bash
# Area, timing and power of the RTL on an open 180 nm standard-cell library (OSU osu018, Debian's
# qflow-tech-osu018), with open tools: Yosys 0.23 maps the design (kept hierarchical: each
# distinct module once) onto the library with ABC's delay-driven mapping to a clock target,
# fanout buffering and gate sizing (`abc -D PS -constr -script FILE`: map -D; cleanup; buffer;
# upsize; dnsize), the clock gates (rtl/prim/mxu_icg.sv) onto its latch and AND cells (a library
# without a latch cell is refused); OpenSTA times every module register to register and through
# the gates' clock-gating checks and, for the device, gives its power from switching activity
# measured on the RTL (scripts/ppa_activity.py: toggle counts of every signal, per module, of a
# traced 256^3 bf16 and int8 GEMM and of a bf16 GEMM on a quarter of the columns, and each
# gate's duty: a register's clock power times its gate's duty; idle: no command in flight, every
# gate off). The SRAMs (mxu_sram_1r1w) are kept out of
# the logic as ideal port cells; their area, energy and access time come from a first-order
# model (scripts/lib/ppa_lib/sram.py). Figures at 180 nm are measured; 28 nm and 7 nm are scaled
# (Stillmaker and Baas, 2017), and labelled so. A benchmark, not a test: the whole default device
# takes tens of minutes on 2 cores.
# Method, figures and limits: docs/ppa.md.
# Usage: scripts/ppa.sh [--device SPEC] [--module NAME] [--json] [--target-ns NS] [--no-power]
#                       [--keep DIR] [--timeout S] [--calibrate [--from PPA.json] [--out DIR]]
# --device SPEC: a cmake/devices.cmake entry (default: MXU_DEVICES's first); power needs it built
#   (give the entry in full, e.g. '8x4-flush:ub=1024:acc=256:pe=3:bus=64:hier=1').
# --keep DIR: keep the work files in DIR, a new or empty directory (created) or one an earlier
#   ppa.sh --keep made; any other existing path is refused. A DIR with the same synthesis's
#   netlist, newer than rtl/, skips Yosys (timing and power again in minutes).
# --module NAME: that module alone (rtl/NAME.sv at its default parameters, SPEC's package values),
#   no power. --target-ns: the clock ABC maps for and OpenSTA constrains with (default 4).
# --json: one object (node_nm, fmax_mhz, worst_path, area_um2 {logic, sram, total,
#   clock_gating}, power_mw {bf16, int8, quarter, idle}, energy_pj_per_mac, clock_gates, modules,
#   scaled, ...).
# --calibrate: the energy model's tables (mxu bench --energy): energy/NODEnm.json for 180 nm
#   (measured) and the scaled nodes, from the device's PPA with power (kept as energy/ppa.json),
#   or --from a kept result (seconds); --out DIR instead of energy/. A bad option, an unknown device or module, a missing tool or liberty:
#   one line, exit 2.
set -euo pipefail
exec python3 "$(dirname "$0")/ppa.py" "$@"
