"""The work behind scripts/hw_cost.sh (its header is the usage and the method; it answers
--help): the arithmetic's cost in two-input gates, flip-flops and logic depth, from Yosys.
Four modes: array sizes (the default), --pe-stages, --devices and --depths (hw_cost_depths.py)."""
import os
import re
import sys
import tempfile
import time

import yosys
from hw_cost_depths import depths

NAME = "hw_cost.sh"
# ABC's delay-oriented mapping onto the two-input gates (the header says why not its default).
MAP = [f"abc -fast -g {yosys.GATES}", "opt_clean"]


def fail(msg: str) -> None:
    print(f"{NAME}: {msg}", file=sys.stderr)
    sys.exit(2)


def run_or_exit(script: str, log: str) -> str:
    """Yosys on SCRIPT (its errors on stderr; a failure ends the script with its status); the
    log's text."""
    rc = yosys.run(script, log, stderr=None).returncode
    if rc:
        sys.exit(rc)
    return open(log, errors="replace").read()


def measure(module: str, params: list[str]) -> tuple[str, int, int | None]:
    """MODULE flattened and mapped, after the chparam commands PARAMS: cells, flip-flops and
    the longest path in gates."""
    with tempfile.NamedTemporaryFile(suffix=".log") as log:
        text = run_or_exit("\n".join(
            [f"read_verilog -sv {yosys.INCLUDE} {' '.join(yosys.sources())}",
             f"read_verilog -sv {yosys.INCLUDE} -lib {yosys.SRAM}", *params,
             f"synth -top {module} -flatten", *MAP, "ltp -noff", "stat"]), log.name)
    # The last statistics block is the mapped netlist's (synth prints one of its own before).
    return (yosys.cells(text), yosys.flip_flops(yosys.last_block(text, "Printing statistics")),
            yosys.longest_path(text))


def row(*cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def array_sizes(sizes: list[str]) -> int:
    """The default mode: the PE three ways, the activation unit and each array size."""
    # The sizes checked before minutes of Yosys: anything else (an option of another mode, a
    # typo) is refused.
    for size in sizes:
        if not re.fullmatch(r"[1-9][0-9]*x[1-9][0-9]*", size):
            fail(f"'{size}' is neither an array size ROWSxCOLS nor an option (--pe-stages, "
                 "--devices, --depths; --help)")
    print(row("block", "cells (2-input gates and flip-flops)", "flip-flops",
              "longest path (gates)", "Yosys time"))
    print("|---|---|---|---|---|")
    blocks = [("mxu_pe", "PE (bf16 x bf16 + fp32 and int8 x int8 + int32, IEEE)", []),
              ("mxu_pe", "PE without the int8 path", ["chparam -set Int8 0 mxu_pe"]),
              ("mxu_pe", "PE, flush to zero", ["chparam -set FlushSubnormals 1 mxu_pe"]),
              ("mxu_activation_unit",
               "activation unit, 1 lane (bf16 rounding and int8 requantization)",
               ["chparam -set Lanes 1 mxu_activation_unit"])]
    for size in sizes:
        rows, cols = size.split("x")
        blocks.append(("mxu_systolic_array", f"systolic array {size}",
                       [f"chparam -set Rows {rows} -set Cols {cols} mxu_systolic_array"]))
    for module, label, params in blocks:
        start = time.time()
        cells, flops, depth = measure(module, params)
        print(row(label, cells, flops, depth, f"{int(time.time() - start)} s"), flush=True)
    return 0


def pe_stages(args: list[str]) -> int:
    """--pe-stages N|all [--flush] [--no-int8] [--json]: the PE at each depth."""
    pkg = open(os.path.join(yosys.RTL, "mxu_pkg.sv")).read()
    most = int(re.search(r"parameter int unsigned PeMaxStages *= *([0-9]+);", pkg).group(1))
    which = args[0] if args else ""
    options = {"--json": False, "--flush": False, "--no-int8": False}
    for arg in args[1:]:
        if arg not in options:
            fail(f"--pe-stages: unknown option '{arg}' (--json, --flush, --no-int8)")
        options[arg] = True
    json_out, flush, int8 = options["--json"], options["--flush"], not options["--no-int8"]
    if which == "all":
        stages = range(1, most + 1)
    elif re.fullmatch(r"[1-9][0-9]*", which) and int(which) <= most:
        stages = [int(which)]
    else:
        fail(f"--pe-stages '{which}': expected 1 to {most} (PeMaxStages) or all")
    if not json_out:
        print(row("PE stages", "cells (2-input gates and flip-flops)", "flip-flops",
                  "longest stage (gates)"))
        print("|---|---|---|---|")
    for n in stages:
        cells, flops, depth = measure(
            "mxu_pe", [f"chparam -set Stages {n} -set FlushSubnormals {int(flush)} "
                       f"-set Int8 {int(int8)} mxu_pe"])
        if json_out:
            # Written out, not json.dumps: the key order and spacing the figures were taken in.
            print(f'{{"pe_stages": {n}, "int8": {str(int8).lower()}, "flush_subnormals": '
                  f'{str(flush).lower()}, "cells": {int(cells)}, "flip_flops": {flops}, '
                  f'"max_stage_depth": {depth}}}', flush=True)
        else:
            print(row(n, cells, flops, depth), flush=True)
    return 0


def device_cost(spec: str) -> str:
    """One whole device's row: mxu_top synthesized module by module, cells counted per
    instance (Yosys's hierarchy statistics), the SRAMs as macros, their bits from the RTL."""
    dims = spec.split("-")[0]
    rows, cols = dims.split("x")
    flush = int(spec.endswith("-flush"))
    defines = f"-DMXU_ARRAY_ROWS={rows} -DMXU_ARRAY_COLS={cols} -DMXU_FLUSH_SUBNORMALS={flush}"
    srcs = " ".join(yosys.sources())
    start = time.time()
    with tempfile.NamedTemporaryFile(suffix=".log") as log:
        # The SRAM bits: every memory the RTL infers (counted before any memory pass maps them).
        text = run_or_exit(f"read_verilog -sv {yosys.INCLUDE} {defines} {srcs} {yosys.SRAM}\n"
                           "hierarchy -top mxu_top\nproc\nstat -top mxu_top", log.name)
        bits = yosys.memory_bits(text)
        text = run_or_exit("\n".join([f"read_verilog -sv {yosys.INCLUDE} {defines} {srcs}",
                                      f"read_verilog -sv {yosys.INCLUDE} -lib {yosys.SRAM}",
                                      "synth -top mxu_top", *MAP, "stat -top mxu_top"]), log.name)
    top = yosys.hierarchy(text)
    return row(spec, yosys.cells(top), yosys.flip_flops(top), bits,
               f"{int(time.time() - start)} s")


def devices(specs: list[str]) -> int:
    """--devices ROWSxCOLS[-flush] ...: a row per whole device."""
    if not specs:
        fail("--devices needs at least one ROWSxCOLS[-flush]")
    for spec in specs:
        if not re.fullmatch(r"[0-9]+x[0-9]+(-flush)?", spec):
            fail(f"device '{spec}': expected ROWSxCOLS or ROWSxCOLS-flush (e.g. 8x4-flush)")
    print(row("device", "cells (2-input gates and flip-flops)", "flip-flops", "SRAM bits",
              "Yosys time"))
    print("|---|---|---|---|---|")
    for spec in specs:
        print(device_cost(spec), flush=True)
    return 0


def main(argv: list[str]) -> int:
    mode = argv[0] if argv else ""
    if mode == "--depths":
        return depths(argv[1:])
    if mode == "--pe-stages":
        return pe_stages(argv[1:])
    if mode == "--devices":
        return devices(argv[1:])
    return array_sizes(argv or ["2x2", "4x4"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
