#!/usr/bin/env python3
"""Area, timing and power of the RTL on an open 180 nm library: the flow behind scripts/ppa.sh.

See scripts/ppa.sh for the usage and docs/ppa.md for the method, the figures and their limits.
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import device_table  # noqa: E402 (scripts/lib, put on the path above)
import yosys  # noqa: E402

ROOT = yosys.ROOT
RTL = yosys.RTL
LIBERTY = os.environ.get("MXU_PPA_LIBERTY", "/usr/share/qflow/tech/osu018/osu018_stdcells.lib")
NODE_NM = 180
VDD = 1.8

# Scaling from the measured 180 nm to other nodes: Stillmaker and Baas, "Scaling equations for
# the accurate prediction of CMOS device performance from 180 nm to 7 nm", Integration 58 (2017)
# 74-81. Their fits to measured and predictive (PTM) device models, transcribed from the paper:
# Table 4's area factors relative to 180 nm, and per node the polynomials in the supply voltage V
# of a FO4-loaded gate's delay (cubic, a3 V^3 + a2 V^2 + a1 V + a0) and switching energy
# (quadratic, b2 V^2 + b1 V + b0), each in the paper's own arbitrary unit: only ratios between
# nodes mean anything. 45 nm and below are the high-performance (HP) models, the kind a
# datacenter accelerator is built in. Each node at its nominal supply (the paper's, from PTM).
# 28 nm is not among the paper's nodes: its factors are interpolated between 32 nm and 20 nm,
# linearly in log(factor) against log(node).
STILLMAKER_BAAS = {  # node: (nominal V, area vs 180 nm, delay a3..a0, energy b2..b0)
    180: (1.8, 1.0, (0.0, 97.09, -356.7, 406.5), (0.0, 24.64, -17.98)),
    130: (1.3, 0.34, (-76.65, 334.9, -493.4, 275.8), (7.171, -6.709, 2.904)),
    90: (1.2, 0.15, (-60.34, 262.5, -384.2, 210.9), (4.762, -4.781, 2.092)),
    65: (1.1, 0.08, (-53.3, 230.4, -333.9, 178.6), (3.755, -4.398, 1.975)),
    45: (1.0, 0.053, (-501.6, 1567.0, -1619.0, 566.1), (1.018, -0.3107, 0.1539)),
    32: (0.9, 0.025, (-1047.0, 2982.0, -2797.0, 873.5), (0.8367, -0.4341, 0.1701)),
    20: (0.9, 0.011, (0.0, 34.63, -66.37, 41.15), (0.373, -0.1582, 0.04104)),
    16: (0.85, 0.01, (0.0, 24.8, -47.52, 28.87), (0.2958, -0.1241, 0.03024)),
    14: (0.8, 0.0093, (-40.66, 109.2, -100.6, 35.92), (0.2363, -0.09675, 0.02239)),
    10: (0.75, 0.0055, (-34.95, 93.65, -85.99, 30.4), (0.2068, -0.09311, 0.02375)),
    7: (0.7, 0.0032, (-28.58, 76.6, -70.26, 24.69), (0.1776, -0.09097, 0.02447)),
}
SCALED_NODES = [28, 7]
SCALING_METHOD = ("Stillmaker and Baas, Integration 58 (2017): area (Table 4), FO4 delay and "
                  "energy fits at the nominal supply; 28 nm interpolated between 32 and 20 nm")


def _node_factors(node: int) -> dict:
    """Area, delay and energy of `node` relative to 180 nm at 1.8 V (Stillmaker and Baas)."""
    if node not in STILLMAKER_BAAS:
        lo, hi = max(n for n in STILLMAKER_BAAS if n < node), min(n for n in STILLMAKER_BAAS
                                                                  if n > node)
        f_lo, f_hi = _node_factors(lo), _node_factors(hi)
        t = math.log(node / hi) / math.log(lo / hi)
        return {k: math.exp(math.log(f_hi[k]) + t * (math.log(f_lo[k]) - math.log(f_hi[k])))
                for k in f_lo}
    v, area, d, e = STILLMAKER_BAAS[node]
    return {"area": area, "vdd": v,
            "delay": d[0] * v ** 3 + d[1] * v ** 2 + d[2] * v + d[3],
            "energy": e[0] * v ** 2 + e[1] * v + e[2]}

# The SRAM model (first order, after CACTI's organisation: Wilton and Jouppi, "CACTI: an
# enhanced cache access and cycle time model", IEEE JSSC 31(5), 1996; Thoziyoor et al., "CACTI
# 5.1", HP Labs HPL-2008-20). Each memory is one macro, Depth x Width, folded by a column mux
# into a near-square array. The constants and where they come from:
SRAM = {
    "cell_um2": 5.59,        # 6T cell, Intel 0.18 um (Yang et al., IEDM 1998): 5.59 um^2
    "array_efficiency": 0.7,  # cells / macro area (decoders, sense amps, I/O: CACTI's typical)
    "c_gate_ff": 1.0,         # an access transistor's gate (min. width, 180 nm): ~1 fF, assumed
    "c_drain_ff": 1.0,        # its drain on the bitline: taken equal to the gate, assumed
    "c_wire_ff_per_um": 0.2,  # metal wire, 180 nm (ITRS 1999 order of magnitude), assumed
    "cell_pitch_um": 2.4,     # sqrt(5.59): bitline and wordline length per cell
    "swing": 0.1,             # bitline read swing, a fraction of Vdd (sense-amp read)
    "i_cell_ua": 100.0,       # read current of a 6T cell at 180 nm, assumed
    "fo4_ns": 0.09,           # FO4 = 500 ps x L(um) (Ho, Mai, Horowitz, Proc. IEEE 2001)
    "c_periph_ff_per_bit": 20.0,  # sense amp, latch and output driver per bit read, assumed
}


def die(msg: str, code: int = 2) -> None:
    print(f"ppa.sh: {msg}", file=sys.stderr)
    sys.exit(code)


# In a --keep DIR that this script (or fpga_ecp5.sh) made: its files are the run's own to
# replace, and no other directory's files are ever overwritten.
KEEP_MARK = ".mxu-keep"


def keep_dir_problem(path: str, tool: str) -> str | None:
    """Why --keep PATH cannot be tool's work directory (None where it can): it must be new, empty,
    or an earlier run's of the same tool (marked)."""
    if os.path.exists(path) and not os.path.isdir(path):
        return f"--keep {path}: not a directory"
    if os.path.isdir(path):
        try:
            entries = os.listdir(path)
        except OSError as e:
            return f"--keep {path}: {e.strerror}"
        mark = os.path.join(path, KEEP_MARK)
        if entries and not (os.path.isfile(mark) and open(mark).read().strip() == tool):
            return (f"--keep {path}: a directory with files not made by {tool}: "
                    "name a new or empty one")
    return None


def make_keep_dir(path: str, tool: str) -> str:
    """The --keep directory, created and marked as tool's; the caller checked it first."""
    path = os.path.abspath(path)  # the tools run in it: a relative path would not resolve there
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, KEEP_MARK), "w") as f:
        f.write(tool + "\n")
    return path


def out_dir_problem(path: str) -> str | None:
    """Why --out PATH cannot hold the energy tables (None where it can)."""
    if os.path.exists(path) and not os.path.isdir(path):
        return f"--out {path}: not a directory"
    return None


def run(cmd, timeout, **kw):
    return subprocess.run(cmd, timeout=timeout, text=True, capture_output=True, **kw)


# ---------------------------------------------------------------------------------------------
# The SRAM as the flow sees it: one MXU_SRAM_Q cell per read-data bit (a start point of timing)
# and one MXU_SRAM_D per input bit (an end point), ideal: no area, no delay; area, energy and
# access time come from the SRAM model instead.
MACRO_LIB = """library (mxu_sram_ports) {
  delay_model : table_lookup;
  time_unit : "1ns";
  voltage_unit : "1V";
  current_unit : "1uA";
  capacitive_load_unit (1,pf);
  leakage_power_unit : "1nW";
  pulling_resistance_unit : "1kohm";
  nom_voltage : 1.8;
  nom_temperature : 27;
  nom_process : 1;
  input_threshold_pct_rise : 50;
  input_threshold_pct_fall : 50;
  output_threshold_pct_rise : 50;
  output_threshold_pct_fall : 50;
  slew_lower_threshold_pct_rise : 20;
  slew_lower_threshold_pct_fall : 20;
  slew_upper_threshold_pct_rise : 80;
  slew_upper_threshold_pct_fall : 80;
  cell (MXU_SRAM_Q) {
    area : 0;
    dont_touch : true;
    dont_use : true;
    ff (IQ, IQN) { next_state : "IQ"; clocked_on : "CLK"; }
    pin (CLK) { direction : input; clock : true; capacitance : 0.005; }
    pin (Q) {
      direction : output;
      function : "IQ";
      timing () {
        related_pin : "CLK";
        timing_type : rising_edge;
        cell_rise (scalar) { values ("0.0"); }
        cell_fall (scalar) { values ("0.0"); }
        rise_transition (scalar) { values ("0.1"); }
        fall_transition (scalar) { values ("0.1"); }
      }
    }
  }
  cell (MXU_SRAM_D) {
    area : 0;
    dont_touch : true;
    dont_use : true;
    ff (IQ, IQN) { next_state : "D"; clocked_on : "CLK"; }
    pin (CLK) { direction : input; clock : true; capacitance : 0.005; }
    pin (D) {
      direction : input;
      capacitance : 0.005;
      timing () {
        related_pin : "CLK";
        timing_type : setup_rising;
        rise_constraint (scalar) { values ("0.0"); }
        fall_constraint (scalar) { values ("0.0"); }
      }
    }
  }
}
"""

# The stub's body; its header (parameters and ports) is the real module's (sram_stub()).
SRAM_STUB_BODY = """  localparam int unsigned NumIn = 2 * AddrWidth + Width + 2;
  logic [NumIn-1:0] ins;
  assign ins = {rd_en_i, rd_addr_i, wr_en_i, wr_addr_i, wr_data_i};
  for (genvar i = 0; i < Width; i++) begin : g_q
    MXU_SRAM_Q u_q (.CLK(clk_i), .Q(rd_data_o[i]));
  end
  for (genvar i = 0; i < NumIn; i++) begin : g_d
    MXU_SRAM_D u_d (.CLK(clk_i), .D(ins[i]));
  end
  // Depth, for the SRAM model: a constant cell nothing reads (removed before timing).
  (* keep *) MXU_SRAM_DEPTH #(.Depth(Depth)) u_depth ();
endmodule
(* blackbox *)
module MXU_SRAM_DEPTH #(parameter int unsigned Depth = 1) ();
endmodule
"""


def sram_stub() -> str:
    """mxu_sram_1r1w with the real module's header and the stub's body: no copy to drift."""
    return yosys.module_header("mxu_sram_1r1w") + SRAM_STUB_BODY


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
    # rst_ni opens the RTL's gate in simulation only (rtl/mxu_icg.sv): unused here.
    # SimOpen concerns Verilator only (rtl/mxu_icg.sv): the cell is the gate either way.
    return (f"module mxu_icg #(parameter bit SimOpen = 1'b0) (input logic clk_i, "
            f"input logic rst_ni, input logic en_i, output logic clk_o);\n"
            f"  {icg['cell']} u_cell (.{icg['clk']}(clk_i), .{icg['en']}(en_i), "
            f".{icg['out']}(clk_o){test});\nendmodule\n(* blackbox *)\nmodule {icg['cell']} ("
            + ", ".join(f"input {p}" for p in ports) + f", output {icg['out']});\nendmodule\n")


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
    script = f"""read_liberty -lib {work}/macro.lib
read_verilog -sv {' '.join(yosys.defines(d))} {' '.join(srcs)} {work}/sram_stub.sv
hierarchy -top {top}
synth -top {top}
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


# ---------------------------------------------------------------------------------------------
# The netlist: modules renamed to plain identifiers (OpenSTA takes Yosys's $paramod names badly),
# each module's leaf cells and submodule instances.
def load_netlist(path: str) -> tuple[dict, dict]:
    text = open(path).read()
    names: dict[str, str] = {}
    counter: dict[str, int] = {}

    def rename(m: re.Match) -> str:
        full = m.group(1)
        if full not in names:
            base = re.match(r"\$paramod(\$[0-9a-f]+)?\\([^\\]+)", full).group(2)
            counter[base] = counter.get(base, 0) + 1
            names[full] = f"{base}__p{counter[base]}"
        return names[full] + " "

    text = re.sub(r"\\(\$paramod\S*) ", rename, text)
    modules: dict[str, dict] = {}
    for m in re.finditer(r"^module (\S+?) ?\(.*?^endmodule", text, re.S | re.M):
        name, body = m.group(1), m.group(0)
        cells: dict[str, int] = {}
        insts: list[tuple[str, str]] = []
        conns: dict[str, dict[str, str]] = {}
        for c in re.finditer(r"^  (\S+) +(\\\S+ |\S+) ?\(", body, re.M):
            ctype, iname = c.group(1), c.group(2).strip()
            if ctype in ("input", "output", "wire", "inout", "reg", "assign"):
                continue
            if iname.startswith("\\"):
                iname = iname[1:]
            insts.append((ctype, iname))
            conns[iname] = _connections(body[c.end():body.find(";", c.end())])
        for ctype, _ in insts:
            cells[ctype] = cells.get(ctype, 0) + 1
        depth = re.search(r"MXU_SRAM_DEPTH #\(\s*\.Depth\(([^)]*)\)", body)
        cells.pop("MXU_SRAM_DEPTH", None)
        modules[name] = {"text": body, "cells": cells, "insts": insts, "conns": conns,
                         "inputs": set(re.findall(r"^  input (?:\[[^]]*\] )?(\S+);", body, re.M)),
                         "assigns": {_net(a): _net(b) for a, b in re.findall(
                             r"^  assign (\\\S+ |\S+) = (\\\S+ |\S+);", body, re.M)},
                         "depth": _verilog_int(depth.group(1)) if depth else None}
    return modules, {"text": text}


def _net(name: str) -> str:
    """A net's name as written in the netlist, without the escape's backslash and space."""
    return name.strip().lstrip("\\").strip()


def _connections(text: str) -> dict[str, str]:
    """An instance's `.PORT(net)` connections to single nets (concatenations left out)."""
    return {p: _net(n) for p, n in re.findall(r"\.(\w+)\(\s*(\\\S+ |[^(){},\s]+)\s*\)", text)}


def _verilog_int(v: str) -> int:
    v = v.strip()
    if "'" in v:
        base, digits = v.split("'")[1][0].lower(), v.split("'")[1][1:]
        return int(digits, {"b": 2, "h": 16, "d": 10, "o": 8}[base])
    return int(v)


def liberty_areas(path: str) -> dict[str, float]:
    """Each cell's area; a cell the liberty gives no area (osu018's LATCH says 0) takes its
    footprint from the LEF beside the liberty (same name, .lef), where there is one."""
    areas, cell = {}, None
    for line in open(path):
        m = re.match(r"\s*cell\s*\(\s*\"?(\w+)\"?\s*\)", line)
        if m:
            cell = m.group(1)
        m = re.match(r"\s*area\s*:\s*([0-9.]+)", line)
        if m and cell and cell not in areas:
            areas[cell] = float(m.group(1))
    lef = lef_areas(re.sub(r"\.lib$", ".lef", path))
    return {c: (a if a > 0 else lef.get(c, a)) for c, a in areas.items()}


def lef_areas(path: str) -> dict[str, float]:
    """Each LEF macro's footprint (SIZE w BY h, um^2); none where there is no LEF."""
    if not os.path.isfile(path):
        return {}
    text = open(path, errors="replace").read()
    return {m.group(1): float(m.group(2)) * float(m.group(3)) for m in re.finditer(
        r"^MACRO\s+(\S+).*?^\s*SIZE\s+([0-9.]+)\s+BY\s+([0-9.]+)", text, re.S | re.M)}


def _groups(text: str, kind: str) -> dict[str, str]:
    """The liberty groups `kind (NAME) { ... }` directly in text: name -> body."""
    out = {}
    for m in re.finditer(rf"\b{kind}\s*\(\s*([^)]*?)\s*\)\s*\{{", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out.setdefault(m.group(1).strip('"'), text[m.end():i - 1])
    return out


def _attr(body: str, name: str) -> str | None:
    m = re.search(rf"\b{name}\s*:\s*\"?([^\";]*)\"?\s*;", body)
    return m.group(1).strip() if m else None


def liberty_cells(path: str) -> dict[str, dict]:
    """Each usable cell of a liberty: its pins (name -> body) and body; dont_use cells left out."""
    text = re.sub(r"/\*.*?\*/", "", open(path, errors="replace").read(), flags=re.S)
    cells = {}
    for name, body in _groups(text, "cell").items():
        if _attr(body, "dont_use") != "true":
            cells[name] = {"body": body, "pins": _groups(body, "pin")}
    return cells


def liberty_latch(cells: dict) -> dict | None:
    """A plain latch (data in, enable, one output that is its state; no set or reset) to map
    Yosys's $_DLATCH_P_/N_ onto: {"cell", "d", "en", "q", "en_low"}, or None."""
    for name, c in sorted(cells.items()):
        latch = _groups(c["body"], "latch")
        if len(latch) != 1 or len(c["pins"]) != 3:
            continue
        names, body = next(iter(latch.items()))
        state = names.split(",")[0].strip(' "')  # the latch's state variable (IQ)
        d, en = _attr(body, "data_in"), _attr(body, "enable")
        if not d or not en or _attr(body, "clear") or _attr(body, "preset"):
            continue
        en_low = en.startswith("!") or en.endswith("'")
        en = en.strip("!'() ")
        q = [p for p, b in c["pins"].items() if _attr(b, "function") == state]
        if d in c["pins"] and en in c["pins"] and len(q) == 1:
            return {"cell": name, "d": d, "en": en, "q": q[0], "en_low": en_low}
    return None


def liberty_icg(cells: dict) -> dict | None:
    """An integrated clock-gating cell (clock_gating_integrated_cell latch_posedge, a test pin
    allowed and tied off): {"cell", "clk", "en", "out", "test"}, or None."""
    for name, c in sorted(cells.items()):
        if _attr(c["body"], "clock_gating_integrated_cell") not in (
                "latch_posedge", "latch_posedge_precontrol", "latch_posedge_postcontrol"):
            continue
        role = {}
        for pin, b in c["pins"].items():
            for key in ("clock", "enable", "out", "test"):
                if _attr(b, f"clock_gate_{key}_pin") == "true":
                    role[key] = pin
        if {"clock", "enable", "out"} <= set(role):
            return {"cell": name, "clk": role["clock"], "en": role["enable"],
                    "out": role["out"], "test": role.get("test")}
    return None


def liberty_buffers(cells: dict) -> dict[str, tuple[str, str]]:
    """The one-input cells (buffers, inverters): cell -> (input pin, output pin). A clock passes
    through them unchanged in rate, so the clock-domain trace follows them."""
    out = {}
    for name, c in cells.items():
        ins = [p for p, b in c["pins"].items() if _attr(b, "direction") == "input"]
        outs = [p for p, b in c["pins"].items() if _attr(b, "direction") == "output"]
        if len(ins) == 1 and len(outs) == 1 and not _groups(c["body"], "ff") \
                and not _groups(c["body"], "latch"):
            f = (_attr(c["pins"][outs[0]], "function") or "").replace(" ", "")
            if f.strip("()!") == ins[0]:
                out[name] = (ins[0], outs[0])
    return out


def liberty_clock_pins(cells: dict) -> dict[str, str]:
    """Each sequential cell's clock pin (the pin marked `clock : true`): cell -> pin."""
    out = {}
    for name, c in cells.items():
        for pin, b in c["pins"].items():
            if _attr(b, "clock") == "true" and _attr(b, "direction") == "input":
                out[name] = pin
    return out


# ---------------------------------------------------------------------------------------------
# What both OpenSTA scripts start with: the libraries, the netlist, the clock, the outputs' load.
STA_DESIGN = """read_liberty {lib}
read_liberty {macro}
read_verilog {netlist}
link_design {top}
create_clock -name clk -period {period} [get_ports clk_i]
set_load 0.02 [all_outputs]
"""
STA_TIMING = STA_DESIGN + """\
# The registers' names: the nets their Q pins drive (the cells' own names are Yosys's numbers);
# a clock gate's AND by the net it drives.
proc qnet {{inst}} {{
  foreach pin {{Q Y}} {{
    if {{[catch {{set n [get_nets -of_objects [get_pins $inst/$pin]]}}] == 0 && $n ne ""}} {{
      return [get_full_name $n]
    }}
  }}
  return $inst
}}
# Register to register: paths into the flip-flops (and the SRAMs' port cells). A path into a
# clock gate's latch is not an end: it goes on through the latch to the gate's AND, where
# OpenSTA's clock-gating check ends it (group **clock_gating_default**).
set eps [all_registers -edge_triggered -data_pins]
set lds [all_registers -level_sensitive -data_pins]
foreach {{tag group}} {{CLK clk GATE **clock_gating_default** LATCH clk}} {{
  if {{$tag eq "CLK" && [llength $eps]}} {{
    report_checks -path_delay max -path_group $group -to $eps -digits 3 -format full > {rpt}
  }} elseif {{$tag eq "LATCH"}} {{
    if {{![llength $lds]}} {{ continue }}
    report_checks -path_delay max -path_group $group -to $lds -digits 3 -format full > {rpt}
  }} else {{
    report_checks -path_delay max -path_group $group -digits 3 -format full > {rpt}
  }}
  set fh [open {rpt}]
  set txt [read $fh]
  close $fh
  puts "PPA_GROUP $tag"
  puts $txt
  if {{[regexp {{Startpoint: (\\S+)}} $txt -> sp]}} {{ puts "PPA_START [qnet $sp]" }}
  if {{[regexp {{Endpoint: (\\S+)}} $txt -> ep]}} {{ puts "PPA_END [qnet $ep]" }}
}}
puts "PPA_GROUP ASYNC"
report_checks -path_delay max -path_group **async_default** -digits 3 -format end
"""


def parse_path(text: str, period: float, whole: bool = False) -> dict | None:
    """One OpenSTA full path report: its start, end, data arrival and the shortest clock period
    it allows. A path launched at time L and captured at C has C - L of the period to itself
    (the whole period register to register; half for a clock gate's latch, which opens on the
    falling edge), so it needs (C - L - slack) / ((C - L) / period). A latch that borrowed time
    (OpenSTA: "time given to startpoint") passes on a path launched a whole period earlier;
    whole: a path into a latch that ran out of time to borrow (it closes on the next rising
    edge, a whole period after the launch)."""
    m = re.search(r"Startpoint: (\S+).*?Endpoint: (\S+)", text, re.S)
    arrival = re.search(r"^\s*([-0-9.]+)\s+data arrival time", text, re.M)
    slack = re.search(r"^\s*([-0-9.]+)\s+slack", text, re.M)
    if not (m and arrival and slack):
        return None
    edges = [float(e) for e in re.findall(
        r"^\s*[-0-9.]+\s+([-0-9.]+)\s+clock \S+ \((?:rise|fall) edge\)", text, re.M)]
    launch, capture = (edges[0], edges[1]) if len(edges) >= 2 else (0.0, period)
    if "time given to startpoint" in text or whole:
        launch = capture - period
    span = capture - launch if capture > launch else period
    need = (span - float(slack.group(1))) * period / span
    return {"start": m.group(1), "end": m.group(2), "arrival_ns": float(arrival.group(1)),
            "ns": round(need, 3), "slack_ns": float(slack.group(1))}


def sta_timing(netlist: str, top: str, period: float, work: str, timeout: int) -> dict | None:
    """The module's worst path, register to register or into a clock gate (its clock-gating
    setup check), as the shortest period it allows; the async reset's recovery apart."""
    tcl = os.path.join(work, f"t_{top}.tcl")
    open(tcl, "w").write(STA_TIMING.format(lib=LIBERTY, macro=os.path.join(work, "macro.lib"),
                                           netlist=netlist, top=top, period=period,
                                           rpt=os.path.join(work, f"t_{top}.rpt")))
    try:
        r = run(["sta", "-no_splash", "-exit", tcl], timeout, cwd=work)
    except subprocess.TimeoutExpired:
        return {"timeout": timeout}
    chunks = {c.split("\n", 1)[0].strip(): c for c in r.stdout.split("PPA_GROUP ")[1:]}
    res: dict = {"ns": None}
    for tag, check in (("CLK", "setup"), ("GATE", "clock gating"), ("LATCH", "clock gating")):
        path = parse_path(chunks.get(tag, ""), period, whole=tag == "LATCH")
        # Into a gate's latch: a path that borrows within the period goes on to the AND's check
        # (GATE); one that needs more than the whole period ends here, short of its enable.
        if not path or (tag == "LATCH" and path["slack_ns"] >= 0):
            continue
        for key, mark in (("start", "PPA_START"), ("end", "PPA_END")):
            n = re.search(rf"^{mark} (.*)$", chunks[tag], re.M)
            if n:
                path[key] = n.group(1).strip()
        path["check"] = check
        if check == "clock gating":
            res["gating"] = path
        if res["ns"] is None or path["ns"] > res["ns"]:
            res.update(path)
    a = re.search(r"group \*\*async_default\*\*.*?-{20,}\n(\S+)\s+\S+\s+([0-9.]+)\s+([-0-9.]+)",
                  chunks.get("ASYNC", ""), re.S)
    if a:
        res["recovery"] = {"end": a.group(1), "arrival_ns": float(a.group(2)),
                           "slack_ns": float(a.group(3))}
    return res


# Power: the design alone; sta_power() adds the activity and the reports.
STA_POWER = STA_DESIGN


def own_netlist(modules: dict, top: str, work: str) -> str:
    """top's module with each submodule it instantiates as an empty shell (its ports alone; a
    clock gate's a wire from clk_i to clk_o): so that report_power counts top's own cells once,
    not its whole hierarchy again."""
    text = [re.sub(r"^  MXU_SRAM_DEPTH #\([^;]*;\n", "", modules[top]["text"], flags=re.M)]
    for sub in sorted({c for c, _ in modules[top]["insts"] if c in modules}):
        body = modules[sub]["text"]
        head = re.match(r"module .*?;\n", body, re.S).group(0)
        ports = re.findall(r"^  (?:input|output|inout) [^;]*;\n", body, re.M)
        # A clock gate's shell passes its clock on (a wire, no cell), so that the registers it
        # clocks here are clocked in OpenSTA; device_power scales them by its duty.
        through = "  assign clk_o = clk_i;\n" if _base(sub) == ICG else ""
        text.append(head + "".join(ports) + through + "endmodule")
    path = os.path.join(work, f"own_{top}.v")
    open(path, "w").write("\n\n".join(text) + "\n")
    return path


def _tcl_names(names: list[str]) -> str:
    return " ".join("{" + n.replace("[", "\\[").replace("]", "\\]") + "}" for n in names)


def sta_power(netlist: str, top: str, period: float, rates: dict[str, float],
              groups: dict[tuple, list[str]], work: str, timeout: int) -> dict:
    """The module's own cells (netlist from own_netlist: its submodules empty shells), in mW:
    "leak" (leakage), "dyn0" (dynamic power with every data net still: the clock's share),
    "dyn" {workload: dynamic power at the workload's toggle rate}, and "clock" {group: the
    dyn0 of the sequential cells of each clock group other than the module's clk_i's}. OpenSTA
    gives every register its clock at full rate, gated or not; the caller scales by duty."""
    tcl = os.path.join(work, f"p_{top}.tcl")
    s = STA_POWER.format(lib=LIBERTY, macro=os.path.join(work, "macro.lib"), netlist=netlist,
                         top=top, period=period)
    keyed = {k: v for k, v in groups.items() if k != ("port", "clk_i")}
    for w, rate in [("__zero", 0.0)] + list(rates.items()):
        s += (f"set_power_activity -global -activity {rate:.6f}\n"
              f"set_power_activity -input -activity {rate:.6f}\n"
              f"puts \"PPA_WORKLOAD {w}\"\nreport_power -digits 6\n")
    for i, names in enumerate(keyed.values()):
        s += (f"set_power_activity -global -activity 0\nset_power_activity -input -activity 0\n"
              f"puts \"PPA_WORKLOAD __group{i}\"\n"
              f"report_power -instances [get_cells -quiet [list {_tcl_names(names)}]] -digits 6\n")
    open(tcl, "w").write(s)
    r = run(["sta", "-no_splash", "-exit", tcl], timeout, cwd=work)
    res = {"leak": 0.0, "dyn0": 0.0, "dyn": {}, "clock": {}}
    keys = list(keyed)
    for chunk in r.stdout.split("PPA_WORKLOAD ")[1:]:
        w = chunk.split()[0]
        if w.startswith("__group"):
            rows = re.findall(r"^\s*(\S+)\s+(\S+)\s+\S+\s+\S+\s+\S+\s*$", chunk, re.M)
            res["clock"][keys[int(w[7:])]] = sum(
                _float(a) + _float(b) for a, b in rows if _float(a) is not None) * 1e3
            continue
        m = re.search(r"^Total\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", chunk, re.M)
        dyn, leak = ((float(m.group(1)) + float(m.group(2))) * 1e3, float(m.group(3)) * 1e3) \
            if m else (0.0, 0.0)
        if w == "__zero":
            res["dyn0"], res["leak"] = dyn, leak
        else:
            res["dyn"][w] = dyn
    return res


def _float(v: str) -> float | None:
    try:
        return float(v)
    except ValueError:
        return None


def gated_power(p: dict, groups: list[tuple], duty_of) -> dict[str, float]:
    """One instance's power (mW) under clock gating, from sta_power's figures: leakage always;
    each clock group's clock share (dyn0) times its domain's duty (duty_of(group) -> {workload:
    duty}), the rest of dyn0 times the instance's own (duty_of(("local",))); the data's share,
    dyn - dyn0, as measured (toggles over every cycle of the window). OpenSTA's power is linear
    in the toggle rate, so this is duty x the power at the rate while clocked (toggles / bits /
    clocked cycles), per docs/ppa.md's model."""
    out = {}
    local = duty_of(("local",))
    for w, dyn in p["dyn"].items():
        rest = p["dyn0"] - sum(p["clock"].get(g, 0.0) for g in groups)
        clk = rest * local[w] + sum(p["clock"].get(g, 0.0) * duty_of(g)[w] for g in groups)
        out[w] = p["leak"] + clk + max(0.0, dyn - p["dyn0"])
    return out


# ---------------------------------------------------------------------------------------------
def sram_model(width: int, depth: int) -> dict:
    """Area (um^2), read and write energy (pJ), access time (ns) of one Depth x Width macro."""
    p = SRAM
    bits = width * depth
    mux = 1
    while depth // (mux * 2) >= width * mux * 2 and mux < 16:
        mux *= 2
    rows, cols = max(1, depth // mux), width * mux
    c_bl = rows * (p["c_drain_ff"] + p["c_wire_ff_per_um"] * p["cell_pitch_um"])  # fF
    c_wl = cols * (2 * p["c_gate_ff"] + p["c_wire_ff_per_um"] * p["cell_pitch_um"])
    e_read = VDD * VDD * (cols * c_bl * p["swing"] + c_wl + width * p["c_periph_ff_per_bit"])
    e_write = VDD * VDD * (width * c_bl + (cols - width) * c_bl * p["swing"] + c_wl
                           + width * p["c_periph_ff_per_bit"])
    overhead = 1.2  # decoder and control: 20% on top (CACTI's typical share at this size)
    t_decode = (math.log(max(rows, 2), 4) + 2) * p["fo4_ns"]
    t_bitline = c_bl * 1e-15 * VDD * p["swing"] / (p["i_cell_ua"] * 1e-6) * 1e9
    t_access = t_decode + t_bitline + 4 * p["fo4_ns"]  # + sense amp and output, 2 FO4 each
    return {"width": width, "depth": depth, "bits": bits, "rows": rows, "cols": cols,
            "area_um2": round(bits * p["cell_um2"] / p["array_efficiency"], 1),
            "read_pj": round(e_read * overhead * 1e-3, 3),
            "write_pj": round(e_write * overhead * 1e-3, 3),
            "access_ns": round(t_access, 3)}


def scale(node: int) -> dict:
    """Factors on area, gate delay and switching energy from the measured 180 nm to `node`."""
    if not 7 <= node <= NODE_NM:
        die(f"node {node} nm: the scaling covers 180 nm down to 7 nm")
    base, f = _node_factors(NODE_NM), _node_factors(node)
    return {"area": f["area"], "delay": f["delay"] / base["delay"],
            "energy": f["energy"] / base["energy"], "vdd": round(f["vdd"], 3)}


# ---------------------------------------------------------------------------------------------
# Traced; "idle" is modelled (every gate off, no data).
WORKLOADS = ("bf16", "int8", "quarter", "short_k")
WINDOW = 1000  # traced cycles; bf16 and int8 from cycle 30,000 (the 256^3 GEMM's steady state)


def workload_gemm(w: str, d: dict) -> list[str]:
    """mxu gemm's options for a traced workload: 256^3 bf16 and int8, a bf16 GEMM on a quarter
    of the array's columns (N = Cols / 4) and one of a short K (4: tiles of 4 rows)."""
    n = max(1, int(d["cols"]) // 4) if w == "quarter" else 256
    k = 4 if w == "short_k" else 256
    return ["--m", "256", "--k", str(k), "--n", str(n),
            "--dtype", "int8" if w == "int8" else "bf16"]


def measure_activity(d: dict, work: str, timeout: int, log) -> dict:
    """Toggle rates, SRAM accesses and clock gates' duties from the RTL, per workload: a window
    of WINDOW cycles in each GEMM's steady state, every signal traced (the quarter GEMM's window
    in its middle, after an untraced run gives its length)."""
    mxu = os.path.join(ROOT, "build", "bin", "mxu")
    if not os.access(mxu, os.X_OK):
        die(f"no build/bin/mxu: build the project first (scripts/setup.sh --target mxu)")
    listing = run([mxu, "info", "--list"], 60).stdout
    if not re.search(rf"^\s+{re.escape(d['name'])}\s", listing, re.M):
        die(f"--device '{d['spec']}': not a device of this build (mxu info --list)")
    for tool in ("fst2vcd",):
        if not shutil.which(tool):
            die(f"{tool} not found (apt-get install gtkwave)")
    act = {}
    for w in WORKLOADS:
        base = [mxu, "gemm", "--device", d["name"]] + workload_gemm(w, d) + ["--json"]
        start = 30000
        if w in ("quarter", "short_k"):
            r = run(base, timeout)
            if r.returncode:
                die(f"mxu gemm ({w}) failed: {r.stderr.strip()[-500:]}", 1)
            start = max(0, json.loads(r.stdout)["cycles"] // 2 - WINDOW // 2)
        m, k, n, dtype = workload_gemm(w, d)[1::2]
        log(f"activity: {w}, {dtype} GEMM {m} x {k} x {n}, cycles {start}-{start + WINDOW} traced")
        fst = os.path.join(work, f"{w}.fst")
        r = run(base + ["--trace", fst, "--trace-scope", "all", "--trace-start", str(start),
                        "--trace-cycles", str(WINDOW)], timeout)
        if r.returncode:
            die(f"mxu gemm ({w}) failed: {r.stderr.strip()[-500:]}", 1)
        stats = json.loads(r.stdout)
        p1 = subprocess.Popen(["fst2vcd", fst], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        p2 = run([sys.executable, os.path.join(ROOT, "scripts", "ppa_activity.py")], timeout,
                 stdin=p1.stdout)
        p1.wait()
        os.remove(fst)
        a = json.loads(p2.stdout)
        a["gemm"] = stats
        a["window"] = [start, start + WINDOW]
        act[w] = a
        with open(os.path.join(work, f"activity_{w}.json"), "w") as f:
            json.dump(a, f)
    return act


def instance_tree(modules: dict, top: str) -> list[tuple[str, str]]:
    """Every instance of a netlist module below top: (path with '/', module)."""
    out = [("", top)]
    stack = [("", top)]
    while stack:
        path, mod = stack.pop()
        for ctype, iname in modules[mod]["insts"]:
            if ctype in modules:
                p = (path + "/" if path else "") + iname.replace(".", "/")
                out.append((p, ctype))
                stack.append((p, ctype))
    return out


# ---------------------------------------------------------------------------------------------
# Clock domains (docs/ppa.md, "Clock gating"): every register's clock traced through the
# netlist's hierarchy to the free clock ("", the top's clk_i) or to a clock gate (mxu_icg's
# instance path), whose duty the trace measures.
ICG = "mxu_icg"


def _base(m: str) -> str:
    return m.split("__")[0]


def _drivers(modules: dict, mod: str, gating: dict) -> dict[str, tuple]:
    """mod's nets that carry a clock on from something inside it: net -> ("gate", instance) for
    a clock gate's output, ("net", input net) for a buffer's or inverter's."""
    v = modules[mod]
    if "drivers" not in v:
        out = {}
        for ctype, iname in v["insts"]:
            c = v["conns"].get(iname, {})
            if _base(ctype) == ICG and "clk_o" in c:
                out[c["clk_o"]] = ("gate", iname)
            elif ctype in gating["buffers"]:
                pin_in, pin_out = gating["buffers"][ctype]
                if pin_in in c and pin_out in c:
                    out[c[pin_out]] = ("net", c[pin_in])
        v["drivers"] = out
    return v["drivers"]


def local_clock(modules: dict, mod: str, net: str, gating: dict) -> tuple:
    """Where a clock net of mod comes from, inside mod: ("port", input), ("gate", instance of
    mxu_icg), or ("local",) (logic: taken as the module's own clk_i)."""
    v, drivers, seen = modules[mod], _drivers(modules, mod, gating), set()
    while net not in seen:
        seen.add(net)
        if net in v["assigns"]:
            net = v["assigns"][net]
        elif net in v["inputs"]:
            return ("port", net)
        elif drivers.get(net, ("",))[0] == "gate":
            return drivers[net]
        elif net in drivers:
            net = drivers[net][1]
        else:
            break
    return ("local",)


def own_clock_groups(modules: dict, mod: str, gating: dict) -> dict[tuple, list[str]]:
    """mod's own sequential cells by where their clock comes from (local_clock)."""
    groups: dict[tuple, list[str]] = {}
    for ctype, iname in modules[mod]["insts"]:
        pin = gating["clock_pins"].get(ctype)
        net = modules[mod]["conns"].get(iname, {}).get(pin) if pin else None
        if net:
            groups.setdefault(local_clock(modules, mod, net, gating), []).append(iname)
    return groups


class ClockDomains:
    """Each instance's clock domain and its registers': "" (the free clock) or a gate's path."""

    def __init__(self, modules: dict, top: str, gating: dict):
        self.modules, self.gating = modules, gating
        self.inst = {"": ("", None, top)}  # path -> (parent path, instance name, module)
        stack = [""]
        while stack:
            path = stack.pop()
            mod = self.inst[path][2]
            for ctype, iname in modules[mod]["insts"]:
                if ctype in modules:
                    p = (path + "/" if path else "") + iname.replace(".", "/")
                    self.inst[p] = (path, iname, ctype)
                    stack.append(p)
        self.memo: dict = {}

    def resolve(self, path: str, key: tuple) -> str:
        """The domain of a local_clock key at instance path."""
        if key[0] == "port":
            return self.port(path, key[1])
        if key[0] == "gate":
            return (path + "/" if path else "") + key[1].replace(".", "/")
        return self.domain(path)

    def domain(self, path: str) -> str:
        """An instance's domain: its clk_i's; a module without one, its parent's."""
        mod = self.inst[path][2]
        if "clk_i" in self.modules[mod]["inputs"]:
            return self.port(path, "clk_i")
        return self.domain(self.inst[path][0]) if path else ""

    def port(self, path: str, port: str) -> str:
        """The domain of the clock an instance's input port receives."""
        if not path:
            return ""
        if (path, port) not in self.memo:
            parent, iname, _ = self.inst[path]
            pmod = self.inst[parent][2]
            net = self.modules[pmod]["conns"].get(iname, {}).get(port)
            self.memo[(path, port)] = (
                self.resolve(parent, local_clock(self.modules, pmod, net, self.gating))
                if net else self.domain(parent))
        return self.memo[(path, port)]

    def gates(self) -> list[str]:
        return sorted(p for p, (_, _, m) in self.inst.items() if _base(m) == ICG)


def scope_path(scope: str, root: str) -> str | None:
    """A trace scope as a netlist path below root ("" for root itself), or None outside it. A
    module verilated apart (hier=1: the PE column) traces as "a.b.c/MODULE_N/rest": its dotted
    instance path, then a scope named after the module; back to "a/b/c/rest"."""
    first, _, rest = scope.partition("/")
    if "." in first:
        rest = rest.partition("/")[2]
        scope = first.replace(".", "/") + ("/" + rest if rest else "")
    if scope == root:
        return ""
    return scope[len(root) + 1:] if scope.startswith(root + "/") else None


def gate_duties(act: dict, gates: list[str], root: str, log=None) -> dict[str, float]:
    """Each clock gate's duty: rising edges of its clock / the top clock's, in the window. A gate
    the trace lacks counts as always on (1.0: no saving claimed), and log says so."""
    cycles = max(1, act["cycles"])
    seen = {}
    for scope, g in act.get("gates", {}).items():
        p = scope_path(scope, root)
        if p is not None:
            seen[p] = min(1.0, g["edges"] / cycles)
    missing = [g for g in gates if g not in seen]
    if missing and log:
        log(f"{len(missing)} of {len(gates)} clock gates not in the trace (e.g. {missing[0]}): "
            "taken as always on")
    return {g: seen.get(g, 1.0) for g in gates}


def module_rates(act: dict, tree: list, root: str) -> dict[str, float]:
    """Toggles per bit per cycle of each netlist module's own signals, over all its instances:
    a trace scope belongs to the deepest netlist instance above it (generate blocks, unnamed
    blocks and the SRAM's own scopes go to the module that holds them)."""
    inst_paths = {p: m for p, m in tree}
    tot: dict[str, list[int]] = {}
    for scope, (bits, toggles) in act["scopes"].items():
        rel = scope_path(scope, root)
        if rel is None:
            continue
        parts = rel.split("/") if rel else []
        owner = ""
        for i in range(len(parts), 0, -1):
            if "/".join(parts[:i]) in inst_paths:
                owner = "/".join(parts[:i])
                break
        m = inst_paths[owner]
        t = tot.setdefault(m, [0, 0])
        t[0] += bits
        t[1] += toggles
    cycles = max(act["cycles"], 1)
    return {m: t[1] / t[0] / cycles for m, t in tot.items() if t[0]}


def trace_root(act: dict) -> str:
    for scope in act["scopes"]:
        if scope.endswith("/u_controller"):
            return scope.rsplit("/", 1)[0]
    return "mxu_top/mxu_top"


# ---------------------------------------------------------------------------------------------
# The energy model's per-action energies (mxu bench --energy, energy/energy_model.h): one file per
# node in energy/, made from a PPA result with power (--calibrate).
ENERGY_DIR = os.path.join(ROOT, "energy")
ACC_BANKS = device_table.constant("acc_banks")  # each bank a macro of AccDepth / ACC_BANKS rows
UB_BANKS = 2  # rtl/mxu_unified_buffer.sv g_bank: even and odd rows, each a macro of UbDepth / 2
# Host memory (DDR3-class DRAM), not scaled with the logic's node: Horowitz, "Computing's energy
# problem (and what we can do about it)", ISSCC 2014: a 64-bit DRAM access 1.3 to 2.6 nJ; the
# low end, 20 pJ a bit.
DRAM_PJ_PER_BYTE = 160.0


def energy_tables(r: dict) -> dict[int, dict]:
    """Per-action energies (pJ) at 180 nm (measured) and at SCALED_NODES (scaled), from a PPA
    result with power: per cycle each clock runs (the clock counters), a PE's (its column's
    gate open, the clock alone), the accumulators', the activation unit's, a DMA engine's; a MAC
    above its PE's clock; the rest of the logic's cycle (busy, bf16); each SRAM's read and write
    per bit (the model); a host-memory byte. On an ungated device the array's clock is its idle
    power and the blocks' clocks are in the rest."""
    if not isinstance(r.get("array_power_mw"), dict) or not r.get("fmax_mhz"):
        die("--calibrate needs a PPA result with power (array_power_mw): run it without "
            "--no-power or --module")
    a = r["array"]
    f_hz = r["fmax_mhz"] * 1e6

    def pj(mw: float) -> float:  # mW at Fmax -> pJ a cycle
        return mw * 1e-3 / f_hz * 1e12

    ap, lp, mpc = r["array_power_mw"], r["power_mw"], r["macs_per_cycle"]
    gates = r.get("clock_gates") or {}
    clock_mw, duty = gates.get("clock_mw", {}), gates.get("duty", {})
    if gates.get("duty", {}).get("bf16") and not clock_mw:
        die("--calibrate needs a PPA result with clock_gates.clock_mw: run scripts/ppa.sh again")

    def domain(part: str) -> list[str]:  # the gates of one block (a path element)
        # A PE's own gates (its pipelines', its weights': rtl/mxu_pe.sv) open per operation:
        # their clocks are a MAC's, not the column's cycle's.
        return [g for g in clock_mw if f"/{part}/" in f"/{g}/" and "/u_pe/" not in f"/{g}/"]

    def open_mw(part: str) -> float:  # the block's clock power, its gates open
        return sum(clock_mw[g] for g in domain(part))

    def run_mw(part: str, w: str) -> float:  # ... at the workload's duties
        return sum(clock_mw[g] * duty[w][g] for g in domain(part))

    engines = 3  # the DMA's gated engines: activation load, weight load, store (DMA_CLOCKS)
    array_gated = bool(domain("u_array"))
    array_clock = open_mw("u_array") if array_gated else ap["idle"]

    def per_bit(width: int, depth: int) -> dict:
        s = sram_model(width, depth)
        return {"width": width, "depth": depth, "read": s["read_pj"] / width,
                "write": s["write_pj"] / width}

    known = {(a["ub"] // UB_BANKS, a["rows"] * 16), (a["wfifo"], a["cols"] * 16),
             (a["acc"] // ACC_BANKS, a["cols"] * 32)}
    lanes = [s for s in r["srams"] if s["width"] == a["bus"] * 8
             and (s["depth"], s["width"]) not in known]
    t_depth = max((s["depth"] for s in lanes), default=a["wfifo"])
    base = {
        "clock_mhz": r["fmax_mhz"],
        "pe_cycle_pj": pj(array_clock) / (a["rows"] * a["cols"]),
        "acc_cycle_pj": pj(open_mw("u_acc")),
        "activate_cycle_pj": pj(open_mw("u_activation")),
        "dma_cycle_pj": pj(open_mw("u_dma")) / engines,
        "mac_pj": {w: (pj(ap[w]) - pj(ap["idle"]) -
                       (pj(run_mw("u_array", w)) if array_gated else 0.0)) / mpc[w]
                   for w in ("bf16", "int8")},
        "control_cycle_pj": pj(lp["bf16"] - ap["bf16"] - sum(
            run_mw(p, "bf16") for p in ("u_acc", "u_activation", "u_dma"))),
        "sram_pj_per_bit": {
            "ub": per_bit(a["rows"] * 16, a["ub"] // UB_BANKS),
            "acc": per_bit(a["cols"] * 32, a["acc"] // ACC_BANKS),
            "wfifo": per_bit(a["cols"] * 16, a["wfifo"]),
            "transpose": per_bit(a["bus"] * 8, t_depth)},
        "dram_pj_per_byte": DRAM_PJ_PER_BYTE,
        "area_um2": {"pe": r["array_area_um2"] / (a["rows"] * a["cols"]),
                     "control": r["area_um2"]["logic"] - r["array_area_um2"],
                     "sram_per_bit": SRAM["cell_um2"] / SRAM["array_efficiency"]},
    }
    source = {"device": r["device"], "library": r["library"],
              "ppa": "scripts/ppa.sh --device '" + r["device"] + "' --json",
              "pe_cycle": "the clock power of the array's column-clocked registers, their gates "
                          "open, per PE and cycle (clock_gates.clock_mw; a PE's own gates "
                          "are in mac)",
              "acc_cycle": "the accumulators' registers' clock power, their gate open, a cycle",
              "activate_cycle": "the activation unit's registers' clock power, its gate open",
              "dma_cycle": "a DMA engine's registers' clock power, its gate open (0: not gated)",
              "mac": "the array's logic power in a 256^3 GEMM above idle and its column "
                     "clocks at their duty, per MAC (a PE's own pipeline and weight gates "
                     "included)",
              "control_cycle": "every other module's logic power in the bf16 GEMM, less the "
                               "gated blocks' clocks at their duty, per cycle",
              "sram": "the SRAM model of scripts/ppa.py (docs/ppa.md), per bit of the macro's "
                      "width, at the calibration device's macro sizes",
              "area": "the array's synthesized cells per PE, every other module's together, "
                      "and the SRAM model's area per bit",
              "dram": "Horowitz, ISSCC 2014: 64-bit DRAM access 1.3-2.6 nJ (the low end); "
                      "not scaled with the node"}
    out = {}
    for node in [NODE_NM] + SCALED_NODES:
        f = scale(node)
        e = f["energy"]

        def sc(v):
            return round(v * e, 6) if node != NODE_NM else round(v, 6)

        t = {"node_nm": node, "measured": node == NODE_NM,
             "method": "osu018, OpenSTA" if node == NODE_NM else SCALING_METHOD,
             "vdd": f["vdd"],
             "clock_mhz": round(base["clock_mhz"] / f["delay"], 1),
             "pe_cycle_pj": sc(base["pe_cycle_pj"]),
             "acc_cycle_pj": sc(base["acc_cycle_pj"]),
             "activate_cycle_pj": sc(base["activate_cycle_pj"]),
             "dma_cycle_pj": sc(base["dma_cycle_pj"]),
             "mac_pj": {w: sc(v) for w, v in base["mac_pj"].items()},
             "control_cycle_pj": sc(base["control_cycle_pj"]),
             "sram_pj_per_bit": {k: {"width": v["width"], "depth": v["depth"],
                                     "read": sc(v["read"]), "write": sc(v["write"])}
                                 for k, v in base["sram_pj_per_bit"].items()},
             "dram_pj_per_byte": DRAM_PJ_PER_BYTE,
             "area_um2": {k: round(v * f["area"], 4) for k, v in base["area_um2"].items()},
             "source": source}
        out[node] = t
    return out


def write_energy_tables(r: dict, out_dir: str) -> list[str]:
    """energy/NODEnm.json for each node, each written whole (a temporary renamed)."""
    tables = energy_tables(r)  # a bad result refused before anything is made
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for node, t in tables.items():
        path = os.path.join(out_dir, f"{node}nm.json")
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(t, f, indent=2)
            f.write("\n")
        os.replace(tmp, path)
        paths.append(path)
    return paths


# ---------------------------------------------------------------------------------------------
LOADS = WORKLOADS + ("idle",)


def device_power(d: dict, modules: dict, top: str, tree: list, count: dict,
                 srams: list, fmax: float, gating: dict, work: str, timeout: int, log) -> dict:
    """The device's power at Fmax per workload (power_mw and the keys beside it): each module's
    own cells by OpenSTA at the module's measured toggle rate, each instance's clock share
    scaled by its clock domain's duty (gated_power); the SRAMs by the model and the trace's
    accesses. Idle: the device powered with no command in flight, every gate's enable low
    (duty 0) and no data moving (toggle rate 0)."""
    act = measure_activity(d, work, timeout, log)
    root = trace_root(act["bf16"])
    rates = {w: module_rates(act[w], tree, root) for w in WORKLOADS}
    dom = ClockDomains(modules, top, gating)
    gates = dom.gates()
    duty = {w: gate_duties(act[w], gates, root, log) for w in WORKLOADS}
    duty["idle"] = dict.fromkeys(gates, 0.0)
    arrays = [p for p, m in tree if _base(m) == "mxu_systolic_array"]
    period = round(1e3 / fmax, 3)
    log(f"power: {len(count)} modules at {period} ns (OpenSTA report_power), "
        f"{len(gates)} clock gates")
    power = dict.fromkeys(LOADS, 0.0)
    array_power = dict.fromkeys(LOADS, 0.0)
    gate_clock = dict.fromkeys(gates, 0.0)  # each gate's registers' clock power, the gate open
    paths: dict[str, list[str]] = {}
    for path, (_, _, m) in dom.inst.items():
        paths.setdefault(m, []).append(path)
    for m in count:
        if _base(m) == "mxu_sram_1r1w":
            continue
        groups = own_clock_groups(modules, m, gating)
        keyed = [g for g in groups if g != ("port", "clk_i")]
        mr = {w: rates[w].get(m, 0.0) for w in WORKLOADS}
        mr["idle"] = 0.0
        p = sta_power(own_netlist(modules, m, work), m, period, mr, groups, work, timeout)
        for path in paths.get(m, []):
            def duty_of(g, path=path):
                where = dom.resolve(path, g)
                return {w: duty[w].get(where, 1.0) if where else 1.0 for w in LOADS}
            pw = gated_power(p, keyed, duty_of)
            # The clock share (dyn0) behind each gate: the groups' own, the rest the instance's.
            shares = {dom.resolve(path, ("local",)):
                      p["dyn0"] - sum(p["clock"].get(g, 0.0) for g in keyed)}
            for g in keyed:
                where = dom.resolve(path, g)
                shares[where] = shares.get(where, 0.0) + p["clock"].get(g, 0.0)
            for where, mw in shares.items():
                if where in gate_clock:
                    gate_clock[where] += mw
            inside = any(path == a or path.startswith(a + "/") for a in arrays)
            for w in LOADS:
                power[w] += pw[w]
                array_power[w] += pw[w] if inside else 0.0
    # The SRAMs: reads and writes counted in the trace (the enables at each rising edge,
    # scripts/ppa_activity.py) times the model's energy per access; idle: none.
    sram_pj = dict.fromkeys(LOADS, 0.0)  # pJ per cycle
    sram_acc = {}
    for w in WORKLOADS:
        cyc = max(1, act[w]["cycles"])
        for a in act[w].get("srams", {}).values():
            dep = next((s["depth"] for s in srams if s["width"] == a["width"] and
                        max(1, math.ceil(math.log2(max(s["depth"], 2)))) == a["addr_bits"]),
                       2 ** a["addr_bits"])
            e = sram_model(a["width"], dep)
            sram_pj[w] += (a["reads"] * e["read_pj"] + a["writes"] * e["write_pj"]) / cyc
            sram_acc[w] = sram_acc.get(w, 0) + a["reads"] + a["writes"]
    # MACs a cycle over the whole GEMM (M x K x N / its cycles: the quarter's useful ones).
    macs = {w: act[w]["gemm"]["macs"] / act[w]["gemm"]["cycles"] for w in WORKLOADS}
    f_hz = fmax * 1e6
    sram_mw = {w: sram_pj[w] * fmax * 1e-3 for w in sram_pj}
    q, s = workload_gemm("quarter", d), workload_gemm("short_k", d)
    return {
        "power_mw": {w: round(power[w], 2) for w in LOADS},
        "array_power_mw": {w: round(array_power[w], 2) for w in LOADS},
        "sram_power_mw": {w: round(sram_mw[w], 2) for w in LOADS},
        "total_power_mw": {w: round(power[w] + sram_mw[w], 2) for w in LOADS},
        # Each workload's logic power as a share of the bf16 GEMM's (issue 66's targets).
        "power_share": {w: round(power[w] / power["bf16"], 4) if power["bf16"] else None
                        for w in LOADS if w != "bf16"},
        "sram_accesses_per_cycle": {w: round(sram_acc.get(w, 0) / max(1, act[w]["cycles"]), 3)
                                    for w in WORKLOADS},
        "macs_per_cycle": {w: round(macs[w], 3) for w in WORKLOADS},
        "power_note": ("at Fmax; power_mw: synthesized logic, each register's clock times its "
                       "clock gate's duty (clock_gates.clock_mw: each gate's registers' clock "
                       "power with the gate open); sram_power_mw: the SRAM model times the accesses "
                       "counted in the trace; bf16/int8: 256^3 GEMM, cycles 30000-31000; "
                       f"quarter: bf16 {q[1]} x {q[3]} x {q[5]}, short_k: bf16 {s[1]} x {s[3]} x "
                       f"{s[5]}, the middle {WINDOW} cycles of each; "
                       "idle: no command in flight (every gate off, no data moving)"),
        "energy_pj_per_mac": {w: round((power[w] + sram_mw[w]) * 1e-3 / f_hz / macs[w] * 1e12, 3)
                              for w in WORKLOADS},
        "energy_pj_per_mac_logic": {w: round(power[w] * 1e-3 / f_hz / macs[w] * 1e12, 3)
                                    for w in WORKLOADS},
        "idle_energy_pj_per_cycle": round(power["idle"] * 1e-3 / f_hz * 1e12, 3),
        "toggle_rate": {w: round(sum(a[1] for a in act[w]["scopes"].values())
                                 / max(1, sum(a[0] for a in act[w]["scopes"].values()))
                                 / max(1, act[w]["cycles"]), 4) for w in WORKLOADS},
        "clock_gates": {"duty": {w: {g: round(duty[w][g], 4) for g in gates} for w in WORKLOADS},
                        "clock_mw": {g: round(gate_clock[g], 3) for g in gates},
                        "windows": {w: act[w]["window"] for w in WORKLOADS}},
    }


def gating_cells(liberty: str) -> dict:
    """The cells the clock gates (rtl/mxu_icg.sv) map onto: the library's latch and, where it has
    one, its integrated clock-gating cell; a library with neither is refused (one line, exit 2)."""
    try:
        cells = liberty_cells(liberty)
    except OSError as e:
        die(f"liberty {liberty}: {e.strerror}")
    g = {"latch": liberty_latch(cells), "icg": liberty_icg(cells),
         "clock_pins": liberty_clock_pins(cells), "buffers": liberty_buffers(cells)}
    if not g["latch"] and not g["icg"]:
        die(f"liberty {liberty} has no latch cell: the clock gates (rtl/mxu_icg.sv) need one "
            "(or an integrated clock-gating cell)")
    return g


def check_args(args) -> None:
    """Every value checked before any tool runs: a bad one is one line, exit 2."""
    if args.timeout < 1:
        die(f"--timeout {args.timeout}: expected a positive number of seconds")
    if not (0.5 <= args.target_ns <= 100):
        die(f"--target-ns {args.target_ns}: expected 0.5 to 100")
    if args.module:
        if os.path.isfile(os.path.join(RTL, args.module + ".sv")) and args.module.endswith("_pkg"):
            die(f"--module '{args.module}': rtl/{args.module}.sv is a package, not a module")
        names = {re.sub(r"\.sv$", "", f) for f in os.listdir(RTL) if f.endswith(".sv")}
        if args.module not in names:
            die(f"--module '{args.module}': no rtl/{args.module}.sv")
    for problem in (args.keep and keep_dir_problem(args.keep, "ppa.sh"),
                    args.out and out_dir_problem(args.out)):
        if problem:
            die(problem)


def parse_args():
    class Parser(argparse.ArgumentParser):
        def error(self, message):  # one line, exit 2
            die(message)

    ap = Parser(prog="ppa.sh", add_help=True)
    ap.add_argument("--device")
    ap.add_argument("--module")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--target-ns", type=float, default=4.0)
    ap.add_argument("--no-power", action="store_true")
    ap.add_argument("--keep")
    ap.add_argument("--timeout", type=int, default=3600)
    ap.add_argument("--calibrate", action="store_true")
    ap.add_argument("--from", dest="from_json")
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.from_json or args.out:
        if not args.calibrate:
            die("--from and --out go with --calibrate")
    check_args(args)
    if args.calibrate and (args.module or args.no_power):
        die("--calibrate needs the whole device's power: not with --module or --no-power")
    return args


def calibrate_from(path: str, out: str | None) -> int:
    """--calibrate --from PPA.json: the energy tables from a kept result, their paths printed."""
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        die(f"--from {path}: {e}")
    if not isinstance(r, dict):
        die(f"--from {path}: not a PPA result (a JSON object from scripts/ppa.sh --json)")
    try:
        paths = write_energy_tables(r, out or ENERGY_DIR)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        die(f"--from {path}: not a whole PPA result with power ({type(e).__name__}: {e})")
    except OSError as e:
        die(f"--out {out or ENERGY_DIR}: {e.strerror}")
    for p in paths:
        print(p)
    return 0


def check_tools() -> dict:
    """The liberty and the tools, before any work; the liberty's gating cells."""
    if not os.path.isfile(LIBERTY):
        die(f"liberty {LIBERTY} not found (apt-get install qflow-tech-osu018)")
    gating = gating_cells(LIBERTY)
    for tool, pkg in (("yosys", "yosys"), ("sta", "opensta")):
        if not shutil.which(tool):
            die(f"{tool} not found (apt-get install {pkg})")
    return gating


def sram_instances(modules: dict, count: dict) -> list[dict]:
    """The SRAMs: every instance of the stub, Width from its read-data cells."""
    srams = []
    for m, v in modules.items():
        if m.split("__")[0] == "mxu_sram_1r1w" and m in count:
            w = v["cells"].get("MXU_SRAM_Q", 0)
            dep = v["depth"] or 2 ** ((v["cells"].get("MXU_SRAM_D", 0) - w - 2) // 2)
            s = sram_model(w, dep)
            s["instances"] = count[m]
            s["module"] = m
            srams.append(s)
    return srams


def module_rows(timing: dict, count: dict, incl, self_area: dict) -> dict:
    """A row per module (its variants together): instances, area, worst path and checks."""
    rows = {}
    for m in timing:
        base = m.split("__")[0]
        t = timing[m]
        r = rows.setdefault(base, {"module": base, "instances": 0, "area_um2": 0.0,
                                   "worst_path_ns": None, "variants": 0})
        r["instances"] += count[m]
        r["variants"] += 1
        r["area_um2"] = max(r["area_um2"], round(incl(m), 1))
        r.setdefault("device_area_um2", 0.0)
        r["device_area_um2"] = round(r["device_area_um2"] + self_area[m] * count[m], 1)
        if t.get("timeout"):
            r["timing"] = f"OpenSTA over {t['timeout']} s"
        elif t.get("ns") is not None and (r["worst_path_ns"] is None
                                          or t["ns"] > r["worst_path_ns"]):
            r["worst_path_ns"] = t["ns"]
            r["worst_path"] = {"start": t["start"], "end": t["end"], "check": t["check"]}
        if t.get("gating") and t["gating"]["ns"] > r.get("clock_gating_ns", 0.0):
            r["clock_gating_ns"] = t["gating"]["ns"]  # its worst clock-gating check
        if t.get("recovery"):
            r["recovery_slack_ns"] = t["recovery"]["slack_ns"]
    return rows


def worst_path(timing: dict) -> tuple[dict | None, str | None]:
    """The slowest module's path, and that module's name."""
    worst = max((t for t in timing.values() if t.get("ns")), key=lambda t: t["ns"],
                default=None)
    worst_mod = None
    for m, t in timing.items():
        if t is worst:
            worst_mod = m.split("__")[0]
    return worst, worst_mod


def array_share(tree: list, self_area: dict) -> float:
    """The array's area (every instance below the systolic array's): the energy model
    (--calibrate) prices a PE's cycle, a MAC and a PE's area apart from the rest."""
    arrays = [p for p, m in tree if m.split("__")[0] == "mxu_systolic_array"]
    in_array: dict[str, int] = {}
    for path, m in tree:
        if any(path == a or path.startswith(a + "/") for a in arrays):
            in_array[m] = in_array.get(m, 0) + 1
    return sum(self_area[m] * n for m, n in in_array.items())


def scaled(result: dict, fmax: float | None) -> dict:
    """The result at the scaled nodes (labelled so)."""
    out = {}
    for node in SCALED_NODES:
        f = scale(node)
        s = {"node_nm": node, "measured": False, "method": SCALING_METHOD,
             "vdd": f["vdd"],
             "fmax_mhz": round(fmax / f["delay"], 1) if fmax else None,
             "area_um2": {k: round(v * f["area"], 1) for k, v in result["area_um2"].items()},
             "energy_pj_per_mac": {k: (round(v * f["energy"], 5) if v is not None else None)
                                   for k, v in result["energy_pj_per_mac"].items()}}
        if isinstance(result["power_mw"], dict):
            s["power_mw"] = {k: round(v * f["energy"] / f["delay"], 3)
                             for k, v in result["power_mw"].items()}
        out[str(node)] = s
    return out


def sta_netlist(whole: dict, work: str) -> str:
    """The netlist for OpenSTA: renamed modules, the SRAM's depth marker dropped."""
    sta_net = os.path.join(work, "sta.v")
    text = re.sub(r"^  MXU_SRAM_DEPTH #\([^;]*;\n", "", whole["text"], flags=re.M)
    open(sta_net, "w").write(text)
    return sta_net


def measure(args, gating: dict, work: str, log) -> dict:
    """Synthesis, timing of every module and, for the device, power: the result."""
    d = parse_spec(args.device, work)
    top = args.module or "mxu_top"
    log(f"synthesis of {top} at {d['spec']} (Yosys, ABC -D {int(args.target_ns * 1000)} ps)")
    netlist = synthesize(top, d, work, int(args.target_ns * 1000), args.timeout, gating)
    modules, whole = load_netlist(netlist)
    sta_net = sta_netlist(whole, work)
    top_name = top if top in modules else next(m for m in modules if m.startswith(top + "__"))
    tree = instance_tree(modules, top_name)
    count: dict[str, int] = {}
    for _, m in tree:
        count[m] = count.get(m, 0) + 1
    areas = liberty_areas(LIBERTY)
    self_area = {m: sum(areas.get(c, 0.0) * n for c, n in v["cells"].items())
                 for m, v in modules.items()}

    def incl(m):
        return self_area[m] + sum(incl(c) for c, _ in modules[m]["insts"] if c in modules)

    srams = sram_instances(modules, count)
    # Timing: each module with its submodules, register to register.
    log(f"timing: {len([m for m in count])} modules (OpenSTA, clock {args.target_ns} ns)")
    timing = {}
    for m in sorted(count, key=lambda x: incl(x)):
        if m.split("__")[0] == "mxu_sram_1r1w":
            continue
        timing[m] = sta_timing(sta_net, m, args.target_ns, work, args.timeout)
    rows = module_rows(timing, count, incl, self_area)
    worst, worst_mod = worst_path(timing)
    logic_area = incl(top_name)
    sram_area = sum(s["area_um2"] * s["instances"] for s in srams)
    sram_access = max((s["access_ns"] for s in srams), default=0.0)
    fmax = 1e3 / worst["ns"] if worst else None
    result = {
        "node_nm": NODE_NM, "measured": True, "device": d["spec"], "top": top,
        "library": os.path.basename(LIBERTY),
        "clock_constraint_ns": args.target_ns,
        "fmax_mhz": round(fmax, 1) if fmax else None,
        "fmax_note": "logic, register to register (SRAM ports ideal)",
        "worst_path": ({"start": worst["start"], "end": worst["end"], "ns": worst["ns"],
                        "module": worst_mod, "check": worst["check"]} if worst else None),
        "sram_access_ns": sram_access,
        "area_um2": {"logic": round(logic_area, 1), "sram": round(sram_area, 1),
                     "total": round(logic_area + sram_area, 1),
                     "clock_gating": round(sum(incl(m) * n for m, n in count.items()
                                               if _base(m) == ICG), 1)},
        "array_area_um2": round(array_share(tree, self_area), 1),
        "array": {k: int(d[k]) for k in ("rows", "cols", "ub", "acc", "wfifo", "bus")},
        "power_mw": None,
        "energy_pj_per_mac": {"bf16": None, "int8": None},
        "modules": sorted(rows.values(), key=lambda r: -r["area_um2"]),
        "srams": srams,
    }
    # Power from measured activity, the clock gates' duties with it.
    if not args.no_power and not args.module and fmax:
        result.update(device_power(d, modules, top_name, tree, count, srams, fmax,
                                   gating, work, args.timeout, log))
    result["scaled"] = scaled(result, fmax)
    return result


def save_calibration(result: dict, out: str | None) -> None:
    """--calibrate: the result kept as OUT/ppa.json, and the energy tables made from it."""
    os.makedirs(out or ENERGY_DIR, exist_ok=True)
    src = os.path.join(out or ENERGY_DIR, "ppa.json")
    with open(src + ".tmp", "w") as f:
        json.dump(result, f, indent=1)
    os.replace(src + ".tmp", src)
    for p in write_energy_tables(result, out or ENERGY_DIR):
        print(p, file=sys.stderr)


def main() -> int:
    args = parse_args()
    if args.calibrate and args.from_json:
        return calibrate_from(args.from_json, args.out)
    gating = check_tools()
    try:
        work = make_keep_dir(args.keep, "ppa.sh") if args.keep else tempfile.mkdtemp(
            prefix="mxu-ppa-")
    except OSError as e:
        die(f"--keep {args.keep}: {e.strerror}")
    t0 = time.time()

    def log(msg):
        print(f"ppa.sh: [{time.time() - t0:6.0f} s] {msg}", file=sys.stderr)

    try:
        result = measure(args, gating, work, log)
        log("done")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if args.calibrate:
        save_calibration(result, args.out)
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result)
    return 0


def print_table(r: dict) -> None:
    print(f"# PPA of {r['top']} at {r['device']}: {r['library']} (180 nm, measured)")
    print(f"clock constraint {r['clock_constraint_ns']} ns; Fmax {r['fmax_mhz']} MHz "
          f"({r['fmax_note']})")
    if r["worst_path"]:
        w = r["worst_path"]
        print(f"worst path {w['ns']} ns in {w['module']}: {w['start']} -> {w['end']}")
    a = r["area_um2"]
    print(f"area um^2: logic {a['logic']:,.0f} (clock gates {a['clock_gating']:,.0f}), "
          f"SRAM {a['sram']:,.0f} (model), total {a['total']:,.0f}")
    print()
    print("| module | instances | area um^2 (one, with submodules) | worst path ns | start -> end |")
    print("|---|---|---|---|---|")
    for m in r["modules"]:
        wp = m.get("worst_path")
        print(f"| {m['module']} | {m['instances']} | {m['area_um2']:,.0f} | "
              f"{m['worst_path_ns'] if m['worst_path_ns'] is not None else m.get('timing', '-')} | "
              f"{(wp['start'] + ' -> ' + wp['end']) if wp else '-'} |")
    if r["srams"]:
        print()
        print("| SRAM (model) | instances | depth x width | area um^2 | read pJ | write pJ | access ns |")
        print("|---|---|---|---|---|---|---|")
        for s in r["srams"]:
            print(f"| {s['module']} | {s['instances']} | {s['depth']} x {s['width']} | "
                  f"{s['area_um2']:,.0f} | {s['read_pj']} | {s['write_pj']} | {s['access_ns']} |")
    if isinstance(r["power_mw"], dict):
        print()
        print(f"power mW at Fmax: logic {r['power_mw']}, SRAM {r['sram_power_mw']}, total "
              f"{r['total_power_mw']}; pJ/MAC (logic + SRAM): {r['energy_pj_per_mac']}")
        for w, duty in r["clock_gates"]["duty"].items():
            if duty:
                print(f"clock gates' duty, {w}: mean {sum(duty.values()) / len(duty):.3f} "
                      f"over {len(duty)} gates, {min(duty.values()):.3f} to "
                      f"{max(duty.values()):.3f}")
    for node, s in r["scaled"].items():
        print(f"SCALED to {node} nm ({s['method']}): Fmax {s['fmax_mhz']} MHz, area "
              f"{s['area_um2']}, pJ/MAC {s['energy_pj_per_mac']}")


if __name__ == "__main__":
    sys.exit(main())
