"""Synthesis by Yosys: the device's entry, the clock gates' cells and the SRAM stub in, a
hierarchical netlist on the library out."""
import os
import subprocess

import yosys

from .config import LIBERTY
from .sram import MACRO_LIB, sram_stub
from .workdirs import die


def parse_spec(spec: str | None, work: str) -> dict:
    """The device (scripts/lib/yosys.py); a spec it refuses or a parser that does not build: one
    line through die()."""
    try:
        return yosys.parse_spec(spec, work)
    except yosys.SpecToolBroken as e:
        die("cmake/device_spec_tool.cc does not compile:\n" + str(e), 1)
    except yosys.BadSpec as e:
        die(str(e))


def latch_map(latch: dict) -> str:
    """Yosys techmap: its positive and negative latches onto the library's latch cell, an
    inverter ($_NOT_, mapped by ABC) on the enable where the polarities differ."""
    out = []
    for kind, low in (("P", False), ("N", True)):
        inv = low != latch["en_low"]
        out.append(f"module \\$_DLATCH_{kind}_ (input E, input D, output Q);\n"
                   + ("  wire e;\n  \\$_NOT_ u_not (.A(E), .Y(e));\n" if inv else "")
                   + f"  {latch['cell']} _TECHMAP_REPLACE_ (.{latch['en']}({'e' if inv else 'E'}), "
                   f".{latch['d']}(D), .{latch['q']}(Q));\nendmodule\n")
    return "".join(out)


def icg_stub(icg: dict) -> str:
    """mxu_icg as the library's integrated clock-gating cell (its test pin tied low), with the
    cell's blackbox for Yosys."""
    test = f", .{icg['test']}(1'b0)" if icg["test"] else ""
    ports = [icg["clk"], icg["en"]] + ([icg["test"]] if icg["test"] else [])
    # rst_ni opens the RTL's gate in simulation only (rtl/prim/mxu_icg.sv): unused here.
    # SimOpen concerns Verilator only (rtl/prim/mxu_icg.sv): the cell is the gate either way.
    return (f"module mxu_icg #(parameter bit SimOpen = 1'b0) (input logic clk_i, "
            f"input logic rst_ni, input logic en_i, output logic clk_o);\n"
            f"  {icg['cell']} u_cell (.{icg['clk']}(clk_i), .{icg['en']}(en_i), "
            f".{icg['out']}(clk_o){test});\nendmodule\n(* blackbox *)\nmodule {icg['cell']} ("
            + ", ".join(f"input {p}" for p in ports) + f", output {icg['out']});\nendmodule\n")


def flatten_wrappers() -> str:
    """Yosys steps that flatten the clock-domain wrappers (rtl/prim/mxu_clock_domain.sv) into their
    parents and keep every other module: a domain's gate (mxu_icg) then sits in the module whose
    registers it clocks, where the clock tracer (clocks.py) and the power netlists look for it."""
    return ("setattr -mod -set keep_hierarchy 1 *\n"
            "setattr -mod -unset keep_hierarchy *mxu_clock_domain*\n"
            "flatten\n"
            "setattr -mod -unset keep_hierarchy *\n")


def synthesize(top: str, d: dict, work: str, target_ps: int, timeout: int,
               gating: dict) -> str:
    """Yosys: the design kept hierarchical (each distinct module mapped once), flip-flops onto
    the library's, the clock gates' latches onto its latch cell (or mxu_icg onto its integrated
    clock-gating cell), logic by ABC's delay-driven mapping to target_ps with buffering and gate
    sizing (the -constr script: map -D; buffer; upsize; dnsize); SRAMs as port cells."""
    open(os.path.join(work, "macro.lib"), "w").write(MACRO_LIB)
    open(os.path.join(work, "sram_stub.sv"), "w").write(sram_stub())
    srcs = yosys.sources()
    if gating.get("icg"):
        open(os.path.join(work, "icg_stub.sv"), "w").write(icg_stub(gating["icg"]))
        srcs = [f for f in srcs if os.path.basename(f) != "mxu_icg.sv"]
        srcs.append(os.path.join(work, "icg_stub.sv"))
    # Yosys 0.23's dfflibmap maps flip-flops only: the latches go through a techmap, before
    # ABC (which then maps the inverter a negative latch needs); none may be left unmapped.
    latch_step = "select -assert-none t:$_DLATCH*\n"
    if gating.get("latch"):
        open(os.path.join(work, "latch_map.v"), "w").write(latch_map(gating["latch"]))
        latch_step = (f"dfflegalize -cell $_DLATCH_P_ x -cell $_DLATCH_N_ x t:$_DLATCH*\n"
                      f"techmap -map {work}/latch_map.v t:$_DLATCH*\n" + latch_step)
    # The input drive and output load ABC sizes for: a minimum inverter, 20 fF.
    open(os.path.join(work, "constr.sdc"), "w").write("set_driving_cell INVX1\nset_load 0.02\n")
    # ABC's script, as a file (Yosys's inline `-script +a;b` splits at the `;`): abc -fast
    # -constr's own (strash; dretime; map -D; buffer; upsize -D; dnsize -D; stime -p) with a
    # `cleanup` before `buffer`: without it `buffer` aborts on a mapped node with no fanout
    # (mxu_sync_fifo in the whole device: "node has no fanout"). `cleanup` removes dangling logic
    # and keeps the mapping; `sweep` does not (it turns the mapped network back into BDD logic,
    # and `buffer` then segfaults: Debian's berkeley-abc). Yosys adds read_lib/read_constr
    # before and write_blif after; it does not substitute {D} inside a script file, so the
    # target is written in.
    open(os.path.join(work, "abc.script"), "w").write(
        f"strash\ndretime\nmap -D {target_ps}\ncleanup\nbuffer\nupsize -D {target_ps}\n"
        f"dnsize -D {target_ps}\nstime -p\n")
    netlist = os.path.join(work, "netlist.v")
    wrappers = flatten_wrappers()
    script = f"""read_liberty -lib {work}/macro.lib
read_verilog -sv {yosys.INCLUDE} {' '.join(yosys.defines(d))} {' '.join(srcs)} {work}/sram_stub.sv
hierarchy -top {top}
proc
{wrappers}synth -top {top}
dfflibmap -liberty {LIBERTY}
{latch_step}abc -D {target_ps} -constr {work}/constr.sdc -script {work}/abc.script -liberty {LIBERTY}
opt_clean -purge
write_verilog -noattr -noexpr -simple-lhs {netlist}
"""
    ys = os.path.join(work, "synth.ys")
    # A --keep DIR from an earlier run of the same synthesis (same script, RTL no newer than its
    # netlist): its netlist is taken again, for timing and power without the Yosys run.
    if yosys.reusable(ys, script, [netlist]):
        return netlist
    try:
        r = yosys.run(script, os.path.join(work, "synth.log"), timeout, script_file=ys)
    except subprocess.TimeoutExpired:
        die(f"Yosys ran over {timeout} s on {top}", 1)
    if r.returncode:
        die("Yosys failed:\n" + r.stderr[-3000:], 1)
    return netlist
