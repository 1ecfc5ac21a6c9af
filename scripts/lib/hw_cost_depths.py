"""hw_cost.sh --depths [--device SPEC] [--module NAME[,NAME...]] [--json]: the longest
register-to-register path of every module of mxu_top's hierarchy (scripts/hw_cost.sh's header
says how each is measured)."""
import os
import re
import shutil
import sys
import tempfile
import time

import yosys

NAME = "hw_cost.sh"
# Measured at a 1x1 device: the lane-parallel modules, whose lanes are copies with no logic
# between them (the accumulators' fp32 adders, the activation unit's lanes: one lane's paths are
# the module's at any width, and Yosys's ABC takes minutes a lane on the activation unit's).
LANE_MODULES = {"mxu_accumulators", "mxu_activation_unit"}
# Measured at a 2x2 array (SPEC's, if smaller): the column and the array, PE to PE paths
# included (a PE's own paths are the same in any array).
ARRAY_MODULES = {"mxu_pe_col", "mxu_systolic_array"}
# Cut at their ports in the modules above them (the datapath, mxu_top), as the SRAMs are: the
# array and the lane-parallel units, whose own rows give their paths, would take the datapath's
# and the device's synthesis from minutes to most of an hour. Their inputs end a path and their
# outputs start one: black boxes in synthesis, their definitions deleted before `ltp` (which
# follows a black box's inputs to its outputs, but a cell of no known type not at all). A path
# from the datapath's logic into the array's first register is measured at neither side: the
# price of the cut.
BOXES = ["mxu_systolic_array", "mxu_accumulators", "mxu_activation_unit"]

# The SRAM macro as Yosys sees it here: mxu_sram_1r1w (the one memory of the device: the unified
# buffer, the accumulator banks, the weight FIFO and the transposer's lanes) replaced by two black
# boxes, so that a path ends at the macro's inputs and starts at its read data. A single black box
# would not do: `ltp` follows a black box's inputs to its outputs as if it were one gate, and
# would measure write address -> read data as a combinational path, which in the macro is a clock
# edge. mxu_macro_rd has only the read data (an output, a start point); mxu_macro_wr has every
# input, read address and enables included (an end point), and keeps them (`keep`: a black box
# with no outputs would otherwise be removed with the logic before it).
SRAM_MACRO_BODY = """  mxu_macro_rd #(.Width(Width)) u_rd (.rd_data_o);
  (* keep *) mxu_macro_wr #(.Width(2 * AddrWidth + Width + 3)) u_wr (
    .ports_i({clk_i, rd_en_i, rd_addr_i, wr_en_i, wr_addr_i, wr_data_i})
  );
endmodule
(* blackbox *)
module mxu_macro_rd #(parameter int unsigned Width = 1) (output logic [Width-1:0] rd_data_o);
endmodule
(* blackbox, keep *)
module mxu_macro_wr #(parameter int unsigned Width = 1) (input logic [Width-1:0] ports_i);
endmodule
"""


def fail(msg: str, code: int = 2) -> None:
    print(f"{NAME}: {msg}", file=sys.stderr)
    sys.exit(code)


def parse(args: list[str]) -> tuple[str | None, str, bool]:
    spec, only, json_out = None, "", False
    while args:
        if args[0] == "--json":
            json_out, args = True, args[1:]
        elif args[0] in ("--device", "--module"):
            if len(args) < 2:
                fail(f"--depths: {args[0]} needs a value")
            if args[0] == "--device":
                spec = args[1]
            else:
                only = args[1]
            args = args[2:]
        else:
            fail(f"--depths: unknown option '{args[0]}' (--device SPEC, --module NAME, --json)")
    return spec, only, json_out


def device(spec: str | None, work: str) -> dict:
    """The device spec, by the parser cmake/devices.cmake uses (a bad entry: its rule, exit 2)."""
    try:
        return yosys.parse_spec(spec or None, work)
    except yosys.SpecToolBroken as e:
        print(f"{NAME}: --depths: cmake/device_spec_tool.cc does not compile (see c++)\n{e}",
              file=sys.stderr, end="")
        sys.exit(1)
    except yosys.BadSpec as e:
        fail(str(e))


def elaborate(d: dict, work: str, arrays: dict[str, tuple[int, int]]) -> str:
    """Yosys commands that elaborate mxu_top at each array of ARRAYS (each distinct one once),
    save each design under its name and list its modules into WORK/NAME.ls."""
    srcs = " ".join(yosys.sources())
    steps, last = [], None
    for name, (rows, cols) in arrays.items():
        if (rows, cols) != last:
            steps += ["design -reset",
                      f"read_verilog -sv {yosys.INCLUDE} "
                      f"{' '.join(yosys.defines(d, rows, cols, False))} "
                      f"{srcs} {work}/sram_macro.sv",
                      "hierarchy -top mxu_top", f"tee -q -o {work}/{name}.ls ls",
                      f"design -save {name}"]
        else:
            steps += [f"design -save {name}", f"tee -q -o {work}/{name}.ls ls"]
        last = (rows, cols)
    return "\n".join(steps)


def variants(listing: str) -> list[tuple[str, str]]:
    """Every elaborated module as (VARIANT, NAME): Yosys names a variant NAME,
    $paramod\\NAME\\P=V... or $paramod$HASH\\NAME."""
    out = []
    for line in listing.splitlines():
        if re.match(r" +", line):
            v = line.lstrip(" ")
            out.append((v, re.sub(r"\\.*", "", re.sub(r"^\$paramod(\$[0-9a-f]+)?\\", "", v))))
    return out


def measure_script(module: str, design: str, names: list[str], work: str, first: int) -> str:
    """Each variant of MODULE (numbered from FIRST) synthesized flattened, mapped to two-input
    gates, its longest path and statistics written to WORK/N.ltp and WORK/N.stat, and what was
    cut at its ports to WORK/N.boxed."""
    box = "".join(f" =*{b}" for b in BOXES if b != module)
    lines = []
    for n, v in enumerate(names, first):
        lines += [f"design -load {design}", f"hierarchy -top {v}",
                  f"tee -q -o {work}/{n}.boxed select -list{box}", f"blackbox{box}",
                  f"synth -top {v} -flatten", f"abc -fast -g {yosys.GATES}", "opt_clean",
                  f"delete{box}", f"tee -q -o {work}/{n}.ltp ltp -noff",
                  f"tee -q -o {work}/{n}.stat stat"]
    return "".join(line + "\n" for line in lines)


def deepest(work: str, numbers: range, design: str) -> tuple:
    """Of a module's variants, the deepest (of equally deep ones, the largest): cells,
    flip-flops, depth, the design it was measured in, and the modules cut at its ports."""
    best, cells, flops, where, cut = -1, 0, 0, design, ""
    for i in numbers:
        d = yosys.longest_path(open(f"{work}/{i}.ltp").read(), whole=False) or 0
        stat = open(f"{work}/{i}.stat").read()
        c = int(yosys.cells(stat) or 0)
        if d > best or (d == best and c > cells):
            best, cells, flops, where = d, c, yosys.flip_flops(stat, yosys.ANY_FLOPS), design
            # The modules cut at its ports: the selection's lines without a '/' (modules).
            boxed = [re.sub(r".*\\", "", l) for l in open(f"{work}/{i}.boxed").read().splitlines()
                     if "/" not in l and not l.startswith("Warning")]
            cut = " ".join(sorted(set(boxed)))
    return cells, flops, best, where, cut


def print_row(m, cells, flops, depth, where, sets, cut, small: str, json_out: bool) -> None:
    """The module's line, as soon as it is known."""
    if json_out:
        extra = (f', "cut_at": "{cut}"' if cut else "") + \
                {"small": f', "array": "{small}"', "lane": ', "array": "1x1"'}.get(where, "") + \
                (f', "parameter_sets": {sets}' if sets > 1 else "")
        print(f'{{"module": "{m}", "cells": {cells}, "flip_flops": {flops}, '
              f'"max_stage_depth": {depth}{extra}}}', flush=True)
    else:
        note = (f" (cut at {cut})" if cut else "") + \
               {"small": f" ({small} array)", "lane": " (1 lane)"}.get(where, "") + \
               (f" ({sets} parameter sets, the deepest)" if sets > 1 else "")
        print(f"| {m}{note} | {cells} | {flops} | {depth} |", flush=True)


def yosys_or_exit(script: str, work: str, log: str) -> None:
    """Yosys's warnings (a 1x1 device's out-of-range selects) go to its log; an error is shown."""
    with open(f"{work}/yosys.err", "w") as err:
        failed = yosys.run(script, f"{work}/{log}", stderr=err).returncode
    if failed:
        sys.stderr.write(open(f"{work}/yosys.err").read())
        sys.exit(1)


def module_names(work: str, only: str) -> list[str]:
    """mxu_top's modules (or --module's, each checked to be one)."""
    names = sorted({n for _, n in variants(open(f"{work}/spec.ls").read())
                    if not n.startswith("mxu_macro_") and n != "mxu_sram_1r1w"})
    for m in [m for m in only.split(",") if m]:
        if m not in names:
            fail(f"--module '{m}': not a module of mxu_top (one of: {' '.join(names)})")
    return sorted({m for m in only.split(",") if m}) if only else names


def depths(args: list[str]) -> int:
    spec, only, json_out = parse(args)
    work = tempfile.mkdtemp()
    try:
        return measure_all(spec, only, json_out, work)
    finally:
        if not os.environ.get("HW_COST_KEEP"):
            shutil.rmtree(work, ignore_errors=True)


def measure_all(spec: str | None, only: str, json_out: bool, work: str) -> int:
    d = device(spec, work)
    spec = d["spec"]
    rows, cols = int(d["rows"]), int(d["cols"])
    small = (min(rows, 2), min(cols, 2))
    open(f"{work}/sram_macro.sv", "w").write(yosys.module_header("mxu_sram_1r1w")
                                            + SRAM_MACRO_BODY)
    start = time.time()
    elab = elaborate(d, work, {"spec": (rows, cols), "small": small, "lane": (1, 1)})
    yosys_or_exit(elab, work, "elab.log")
    listed = {design: variants(open(f"{work}/{design}.ls").read())
              for design in ("spec", "small", "lane")}
    names = module_names(work, only)
    if not json_out:
        print("| module | cells (2-input gates and flip-flops) | flip-flops "
              "| longest stage (gates) |")
        print("|---|---|---|---|")
    # One Yosys run per module (its elaboration again: seconds); the module's line is printed as
    # soon as its run ends, so that a long run shows its progress.
    measured, n = [], 0
    small_name = f"{small[0]}x{small[1]}"
    for m in names:
        design = ("lane" if m in LANE_MODULES else "small" if m in ARRAY_MODULES else "spec")
        own = [v for v, name in listed[design] if name == m]
        script = measure_script(m, design, own, work, n + 1)
        open(f"{work}/measure.ys", "w").write(script)
        yosys_or_exit(f"{elab}; script {work}/measure.ys", work, "measure.log")
        cells, flops, best, where, cut = deepest(work, range(n + 1, n + 1 + len(own)), design)
        n += len(own)
        measured.append((m, cells, flops, best))
        print_row(m, cells, flops, best, where, len(own), cut, small_name, json_out)
    if not only:
        # The device's longest stage, and the smallest module that has it.
        m, _, _, most = min(measured, key=lambda r: (-r[3], r[1], "\t".join(map(str, r))))
        if json_out:
            print(f'{{"device": "{spec}", "max_stage_depth": {most}, "module": "{m}"}}')
        else:
            print(f"| **device {spec}** | | | **{most}** ({m}) |")
    print(f"{NAME}: --depths: {int(time.time() - start)} s of Yosys", file=sys.stderr)
    return 0
