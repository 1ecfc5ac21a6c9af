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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RTL = os.path.join(ROOT, "rtl")
LIBERTY = os.environ.get("MXU_PPA_LIBERTY", "/usr/share/qflow/tech/osu018/osu018_stdcells.lib")
NODE_NM = 180
VDD = 1.8

# Scaling from the measured 180 nm to other nodes: factors on area, gate delay and switching
# energy relative to 180 nm at 1.8 V. CLASSICAL (constant-field with each node's nominal supply):
# area x (L/180)^2, delay x L/180 (a gate's delay scales with its channel length), energy
# x (L/180) (V/1.8)^2 (C V^2, C proportional to L). Stillmaker and Baas (Integration 58, 2017)
# fit measured-model polynomials that depart from these below 90 nm (their Table 4 and eqs. 4-6
# are the method the issue asks for; their coefficients are not transcribed here yet: see
# docs/ppa.md, "Limits"). The nominal supplies are theirs (PTM/ITRS): 28 nm 0.9 V, 7 nm 0.7 V.
NODES = {180: 1.8, 130: 1.3, 90: 1.2, 65: 1.1, 45: 1.0, 32: 0.9, 28: 0.9, 22: 0.8, 16: 0.7,
         14: 0.7, 10: 0.7, 7: 0.7}
SCALED_NODES = [28, 7]

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
    text = open(os.path.join(RTL, "mxu_sram_1r1w.sv")).read()
    begin = text.index("module mxu_sram_1r1w")
    return text[begin:text.index("\n);\n", begin) + 4] + SRAM_STUB_BODY


def sources() -> list[str]:
    files = sorted(f for f in os.listdir(RTL) if f.endswith(".sv"))
    rest = [os.path.join(RTL, f) for f in files
            if not f.endswith("_pkg.sv") and f != "mxu_sram_1r1w.sv"]
    return [os.path.join(RTL, "mxu_isa_pkg.sv"), os.path.join(RTL, "mxu_pkg.sv")] + rest


def parse_spec(spec: str | None, work: str) -> dict:
    tool = os.path.join(work, "spec_tool")
    r = run(["c++", "-std=c++17", "-I" + ROOT, os.path.join(ROOT, "cmake/device_spec_tool.cc"),
             "-o", tool], 300)
    if r.returncode:
        die("cmake/device_spec_tool.cc does not compile:\n" + r.stderr, 1)
    if spec is None:
        text = open(os.path.join(ROOT, "cmake/devices.cmake")).read()
        spec = re.search(r'set\(MXU_DEVICES "([^";]*)', text).group(1)
    line = run([tool, "1", spec], 60).stdout.strip().splitlines()[-1].split("\t")
    if line[0] == "error":
        die(f"--device '{spec}': {line[2]}")
    keys = ["name", "rows", "cols", "flush", "ub", "acc", "wfifo", "pe", "bus", "hier", "threads"]
    d = dict(zip(keys, line))
    d["spec"] = spec
    return d


def defines(d: dict) -> list[str]:
    return [f"-DMXU_ARRAY_ROWS={d['rows']}", f"-DMXU_ARRAY_COLS={d['cols']}",
            f"-DMXU_UB_DEPTH={d['ub']}", f"-DMXU_ACC_DEPTH={d['acc']}",
            f"-DMXU_WEIGHT_FIFO_DEPTH={d['wfifo']}", f"-DMXU_FLUSH_SUBNORMALS={d['flush']}",
            f"-DMXU_PE_STAGES={d['pe']}", f"-DMXU_BUS_BYTES={d['bus']}"]


def synthesize(top: str, d: dict, work: str, target_ps: int, timeout: int) -> str:
    """Yosys: the design kept hierarchical (each distinct module mapped once), flip-flops onto
    the library's, logic by ABC's delay-driven mapping to target_ps with buffering and gate
    sizing (the -constr script: map -D; buffer; upsize; dnsize); SRAMs as port cells."""
    open(os.path.join(work, "macro.lib"), "w").write(MACRO_LIB)
    open(os.path.join(work, "sram_stub.sv"), "w").write(sram_stub())
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
read_verilog -sv {' '.join(defines(d))} {' '.join(sources())} {work}/sram_stub.sv
hierarchy -top {top}
synth -top {top}
dfflibmap -liberty {LIBERTY}
abc -D {target_ps} -constr {work}/constr.sdc -script {work}/abc.script -liberty {LIBERTY}
opt_clean -purge
write_verilog -noattr -noexpr -simple-lhs {netlist}
"""
    ys = os.path.join(work, "synth.ys")
    # A --keep DIR from an earlier run of the same synthesis (same script, RTL no newer than its
    # netlist): its netlist is taken again, for timing and power without the Yosys run.
    if (os.path.isfile(netlist) and os.path.isfile(ys) and open(ys).read() == script
            and os.path.getmtime(netlist) > max(os.path.getmtime(f) for f in sources())):
        return netlist
    open(ys, "w").write(script)
    try:
        r = run(["yosys", "-q", "-l", os.path.join(work, "synth.log"), "-s", ys], timeout)
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
        for c in re.finditer(r"^  (\S+) +(\\\S+ |\S+) ?\(", body, re.M):
            ctype, iname = c.group(1), c.group(2).strip()
            if ctype in ("input", "output", "wire", "inout", "reg", "assign"):
                continue
            if iname.startswith("\\"):
                iname = iname[1:]
            insts.append((ctype, iname))
        for ctype, _ in insts:
            cells[ctype] = cells.get(ctype, 0) + 1
        depth = re.search(r"MXU_SRAM_DEPTH #\(\s*\.Depth\(([^)]*)\)", body)
        cells.pop("MXU_SRAM_DEPTH", None)
        modules[name] = {"text": body, "cells": cells, "insts": insts,
                         "depth": _verilog_int(depth.group(1)) if depth else None}
    return modules, {"text": text}


def _verilog_int(v: str) -> int:
    v = v.strip()
    if "'" in v:
        base, digits = v.split("'")[1][0].lower(), v.split("'")[1][1:]
        return int(digits, {"b": 2, "h": 16, "d": 10, "o": 8}[base])
    return int(v)


def liberty_areas(path: str) -> dict[str, float]:
    areas, cell = {}, None
    for line in open(path):
        m = re.match(r"\s*cell\s*\(\s*\"?(\w+)\"?\s*\)", line)
        if m:
            cell = m.group(1)
        m = re.match(r"\s*area\s*:\s*([0-9.]+)", line)
        if m and cell and cell not in areas:
            areas[cell] = float(m.group(1))
    return areas


# ---------------------------------------------------------------------------------------------
STA_TIMING = """read_liberty {lib}
read_liberty {macro}
read_verilog {netlist}
link_design {top}
create_clock -name clk -period {period} [get_ports clk_i]
set_load 0.02 [all_outputs]
report_checks -path_delay max -path_group clk -digits 3 -format full > {rpt}
set fh [open {rpt}]
set txt [read $fh]
close $fh
puts $txt
# The registers' names: the nets their Q pins drive (the cells' own names are Yosys's numbers).
proc qnet {{inst}} {{
  if {{[catch {{set n [get_nets -of_objects [get_pins $inst/Q]]}}] == 0 && $n ne ""}} {{
    return [get_full_name $n]
  }}
  return $inst
}}
if {{[regexp {{Startpoint: (\S+)}} $txt -> sp]}} {{ puts "PPA_START [qnet $sp]" }}
if {{[regexp {{Endpoint: (\S+)}} $txt -> ep]}} {{ puts "PPA_END [qnet $ep]" }}
report_checks -path_delay max -path_group **async_default** -digits 3 -format end
"""


def sta_timing(netlist: str, top: str, period: float, work: str, timeout: int) -> dict | None:
    tcl = os.path.join(work, f"t_{top}.tcl")
    open(tcl, "w").write(STA_TIMING.format(lib=LIBERTY, macro=os.path.join(work, "macro.lib"),
                                           netlist=netlist, top=top, period=period,
                                           rpt=os.path.join(work, f"t_{top}.rpt")))
    try:
        r = run(["sta", "-no_splash", "-exit", tcl], timeout, cwd=work)
    except subprocess.TimeoutExpired:
        return {"timeout": timeout}
    out = r.stdout
    res: dict = {}
    m = re.search(r"Startpoint: (\S+).*?Endpoint: (\S+).*?\n\s*([0-9.]+)\s+data arrival time"
                  r".*?library setup time.*?([-0-9.]+)\s+slack", out, re.S)
    if m:
        res["start"], res["end"] = m.group(1), m.group(2)
        slack = float(m.group(4))
        res["ns"] = round(period - slack, 3)  # arrival + setup: the shortest clock period
        res["arrival_ns"] = float(m.group(3))
        for key, tag in (("start", "PPA_START"), ("end", "PPA_END")):
            n = re.search(rf"^{tag} (.*)$", out, re.M)
            if n:
                res[key] = n.group(1).strip()
    else:
        res["ns"] = None
    a = re.search(r"group \*\*async_default\*\*.*?-{20,}\n(\S+)\s+\S+\s+([0-9.]+)\s+([-0-9.]+)",
                  out, re.S)
    if a:
        res["recovery"] = {"end": a.group(1), "arrival_ns": float(a.group(2)),
                           "slack_ns": float(a.group(3))}
    return res


STA_POWER = """read_liberty {lib}
read_liberty {macro}
read_verilog {netlist}
link_design {top}
create_clock -name clk -period {period} [get_ports clk_i]
set_load 0.02 [all_outputs]
"""


def own_netlist(modules: dict, top: str, work: str) -> str:
    """top's module with each submodule it instantiates as an empty shell (its ports alone): so
    that report_power counts top's own cells once, not its whole hierarchy again."""
    text = [re.sub(r"^  MXU_SRAM_DEPTH #\([^;]*;\n", "", modules[top]["text"], flags=re.M)]
    for sub in sorted({c for c, _ in modules[top]["insts"] if c in modules}):
        body = modules[sub]["text"]
        head = re.match(r"module .*?;\n", body, re.S).group(0)
        ports = re.findall(r"^  (?:input|output|inout) [^;]*;\n", body, re.M)
        text.append(head + "".join(ports) + "endmodule")
    path = os.path.join(work, f"own_{top}.v")
    open(path, "w").write("\n\n".join(text) + "\n")
    return path


def sta_power(netlist: str, top: str, period: float, rates: dict[str, float], work: str,
              timeout: int) -> dict[str, float]:
    """The module's own cells (netlist from own_netlist: its submodules empty shells), at each
    workload's toggle rate: mW."""
    tcl = os.path.join(work, f"p_{top}.tcl")
    s = STA_POWER.format(lib=LIBERTY, macro=os.path.join(work, "macro.lib"), netlist=netlist,
                         top=top, period=period)
    for w, rate in rates.items():
        s += (f"set_power_activity -global -activity {rate:.6f}\n"
              f"set_power_activity -input -activity {rate:.6f}\n"
              f"puts \"PPA_WORKLOAD {w}\"\nreport_power -digits 6\n")
    open(tcl, "w").write(s)
    r = run(["sta", "-no_splash", "-exit", tcl], timeout, cwd=work)
    res = {}
    for chunk in r.stdout.split("PPA_WORKLOAD ")[1:]:
        w = chunk.split()[0]
        m = re.search(r"^Total\s+\S+\s+\S+\s+\S+\s+(\S+)", chunk, re.M)
        res[w] = float(m.group(1)) * 1e3 if m else 0.0
    return res


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
    v = NODES[node]
    s = node / NODE_NM
    return {"area": s * s, "delay": s, "energy": s * (v / VDD) ** 2, "vdd": v}


# ---------------------------------------------------------------------------------------------
def measure_activity(d: dict, work: str, timeout: int, log) -> dict:
    """Toggle rates from the RTL: a 256^3 bf16 GEMM and a 256^3 int8 GEMM on the built device,
    a window of 1,000 cycles in each's steady state, every signal traced."""
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
    for dtype in ("bf16", "int8"):
        log(f"activity: {dtype} GEMM 256^3, cycles 30000-31000 traced")
        fst = os.path.join(work, f"{dtype}.fst")
        r = run([mxu, "gemm", "--device", d["name"], "--m", "256", "--k", "256", "--n", "256",
                 "--dtype", dtype, "--json", "--trace", fst, "--trace-scope", "all",
                 "--trace-start", "30000", "--trace-cycles", "1000"], timeout)
        if r.returncode:
            die(f"mxu gemm --dtype {dtype} failed: {r.stderr.strip()[-500:]}", 1)
        stats = json.loads(r.stdout)
        p1 = subprocess.Popen(["fst2vcd", fst], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        p2 = run([sys.executable, os.path.join(ROOT, "scripts", "ppa_activity.py")], timeout,
                 stdin=p1.stdout)
        p1.wait()
        os.remove(fst)
        a = json.loads(p2.stdout)
        a["gemm"] = stats
        act[dtype] = a
        with open(os.path.join(work, f"activity_{dtype}.json"), "w") as f:
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


def module_rates(act: dict, tree: list, root: str) -> dict[str, float]:
    """Toggles per bit per cycle of each netlist module's own signals, over all its instances:
    a trace scope belongs to the deepest netlist instance above it (generate blocks, unnamed
    blocks and the SRAM's own scopes go to the module that holds them)."""
    inst_paths = {p: m for p, m in tree}
    tot: dict[str, list[int]] = {}
    for scope, (bits, toggles) in act["scopes"].items():
        # A module verilated apart (hier=1: the PE column) traces as "a.b.c/MODULE_N/rest":
        # its dotted instance path, then a scope named after the module. Back to "a/b/c/rest".
        first, _, rest = scope.partition("/")
        if "." in first:
            rest = rest.partition("/")[2]
            scope = first.replace(".", "/") + ("/" + rest if rest else "")
        if not (scope == root or scope.startswith(root + "/")):
            continue
        rel = scope[len(root) + 1:] if scope != root else ""
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
def main() -> int:
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
    args = ap.parse_args()
    if not (0.5 <= args.target_ns <= 100):
        die(f"--target-ns {args.target_ns}: expected 0.5 to 100")
    for tool, pkg in (("yosys", "yosys"), ("sta", "opensta")):
        if not shutil.which(tool):
            die(f"{tool} not found (apt-get install {pkg})")
    if not os.path.isfile(LIBERTY):
        die(f"liberty {LIBERTY} not found (apt-get install qflow-tech-osu018)")
    work = args.keep or tempfile.mkdtemp(prefix="mxu-ppa-")
    os.makedirs(work, exist_ok=True)
    t0 = time.time()

    def log(msg):
        print(f"ppa.sh: [{time.time() - t0:6.0f} s] {msg}", file=sys.stderr)

    try:
        d = parse_spec(args.device, work)
        top = args.module or "mxu_top"
        if args.module:
            names = {re.sub(r"\.sv$", "", f) for f in os.listdir(RTL) if f.endswith(".sv")}
            if top not in names or top.endswith("_pkg"):
                die(f"--module '{top}': no rtl/{top}.sv")
        log(f"synthesis of {top} at {d['spec']} (Yosys, ABC -D {int(args.target_ns * 1000)} ps)")
        netlist = synthesize(top, d, work, int(args.target_ns * 1000), args.timeout)
        modules, whole = load_netlist(netlist)
        # The netlist for OpenSTA: renamed modules, the SRAM's depth marker dropped.
        sta_net = os.path.join(work, "sta.v")
        text = re.sub(r"^  MXU_SRAM_DEPTH #\([^;]*;\n", "", whole["text"], flags=re.M)
        open(sta_net, "w").write(text)
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

        # The SRAMs: every instance of the stub, Width from its read-data cells.
        srams = []
        for m, v in modules.items():
            if m.split("__")[0] == "mxu_sram_1r1w" and m in count:
                w = v["cells"].get("MXU_SRAM_Q", 0)
                dep = v["depth"] or 2 ** ((v["cells"].get("MXU_SRAM_D", 0) - w - 2) // 2)
                s = sram_model(w, dep)
                s["instances"] = count[m]
                s["module"] = m
                srams.append(s)
        # Timing: each module with its submodules, register to register.
        log(f"timing: {len([m for m in count])} modules (OpenSTA, clock {args.target_ns} ns)")
        timing = {}
        for m in sorted(count, key=lambda x: incl(x)):
            if m.split("__")[0] == "mxu_sram_1r1w":
                continue
            timing[m] = sta_timing(sta_net, m, args.target_ns, work, args.timeout)
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
                r["worst_path"] = {"start": t["start"], "end": t["end"]}
            if t.get("recovery"):
                r["recovery_slack_ns"] = t["recovery"]["slack_ns"]
        worst = max((t for t in timing.values() if t.get("ns")), key=lambda t: t["ns"],
                    default=None)
        worst_mod = None
        for m, t in timing.items():
            if t is worst:
                worst_mod = m.split("__")[0]
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
                            "module": worst_mod} if worst else None),
            "sram_access_ns": sram_access,
            "area_um2": {"logic": round(logic_area, 1), "sram": round(sram_area, 1),
                         "total": round(logic_area + sram_area, 1)},
            "power_mw": None,
            "energy_pj_per_mac": {"bf16": None, "int8": None},
            "modules": sorted(rows.values(), key=lambda r: -r["area_um2"]),
            "srams": srams,
        }
        # Power from measured activity.
        if not args.no_power and not args.module and fmax:
            act = measure_activity(d, work, args.timeout, log)
            root = trace_root(act["bf16"])
            rates = {w: module_rates(act[w], tree, root) for w in ("bf16", "int8")}
            period = round(1e3 / fmax, 3)
            log(f"power: {len(count)} modules at {period} ns (OpenSTA report_power)")
            power = {"bf16": 0.0, "int8": 0.0, "idle": 0.0}
            for m in count:
                if m.split("__")[0] == "mxu_sram_1r1w":
                    continue
                mr = {w: rates[w].get(m, 0.0) for w in ("bf16", "int8")}
                mr["idle"] = 0.0
                p = sta_power(own_netlist(modules, m, work), m, period, mr, work, args.timeout)
                for w in power:
                    power[w] += p.get(w, 0.0) * count[m]
            # The SRAMs: reads and writes counted in the trace (the enables at each rising
            # edge, scripts/ppa_activity.py) times the model's energy per access; idle: none.
            sram_pj = {"bf16": 0.0, "int8": 0.0, "idle": 0.0}  # pJ per cycle
            sram_acc = {}
            for w in ("bf16", "int8"):
                cyc = max(1, act[w]["cycles"])
                for scope, a in act[w].get("srams", {}).items():
                    dep = next((s["depth"] for s in srams if s["width"] == a["width"] and
                                max(1, math.ceil(math.log2(max(s["depth"], 2))))
                                == a["addr_bits"]), 2 ** a["addr_bits"])
                    e = sram_model(a["width"], dep)
                    sram_pj[w] += (a["reads"] * e["read_pj"] + a["writes"] * e["write_pj"]) / cyc
                    sram_acc[w] = sram_acc.get(w, 0) + a["reads"] + a["writes"]
            macs = {}
            for w in ("bf16", "int8"):
                g = act[w]["gemm"]
                macs[w] = g["macs"] / g["cycles"]  # MACs a cycle over the whole GEMM
            f_hz = fmax * 1e6
            sram_mw = {w: sram_pj[w] * fmax * 1e-3 for w in sram_pj}
            result["power_mw"] = {w: round(power[w], 2) for w in power}
            result["sram_power_mw"] = {w: round(sram_mw[w], 2) for w in sram_mw}
            result["total_power_mw"] = {w: round(power[w] + sram_mw[w], 2) for w in power}
            result["sram_accesses_per_cycle"] = {
                w: round(sram_acc.get(w, 0) / max(1, act[w]["cycles"]), 3)
                for w in ("bf16", "int8")}
            result["macs_per_cycle"] = {w: round(macs[w], 3) for w in macs}
            result["power_note"] = ("at Fmax; power_mw: synthesized logic, sram_power_mw: the "
                                    "SRAM model times the accesses counted in the trace; bf16/"
                                    "int8: 256^3 GEMM, cycles 30000-31000; idle: clock only")
            result["energy_pj_per_mac"] = {
                w: round((power[w] + sram_mw[w]) * 1e-3 / f_hz / macs[w] * 1e12, 3)
                for w in ("bf16", "int8")}
            result["energy_pj_per_mac_logic"] = {
                w: round(power[w] * 1e-3 / f_hz / macs[w] * 1e12, 3) for w in ("bf16", "int8")}
            result["idle_energy_pj_per_cycle"] = round(power["idle"] * 1e-3 / f_hz * 1e12, 3)
            result["toggle_rate"] = {
                w: round(sum(a[1] for a in act[w]["scopes"].values())
                         / max(1, sum(a[0] for a in act[w]["scopes"].values()))
                         / max(1, act[w]["cycles"]), 4) for w in ("bf16", "int8")}
        # Scaled.
        result["scaled"] = {}
        for node in SCALED_NODES:
            f = scale(node)
            s = {"node_nm": node, "measured": False, "method": "classical (see docs/ppa.md)",
                 "vdd": f["vdd"],
                 "fmax_mhz": round(fmax / f["delay"], 1) if fmax else None,
                 "area_um2": {k: round(v * f["area"], 1) for k, v in result["area_um2"].items()},
                 "energy_pj_per_mac": {k: (round(v * f["energy"], 5) if v is not None else None)
                                       for k, v in result["energy_pj_per_mac"].items()}}
            if isinstance(result["power_mw"], dict):
                s["power_mw"] = {k: round(v * f["energy"] / f["delay"], 3)
                                 for k, v in result["power_mw"].items()}
            result["scaled"][str(node)] = s
        log("done")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
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
    print(f"area um^2: logic {a['logic']:,.0f}, SRAM {a['sram']:,.0f} (model), "
          f"total {a['total']:,.0f}")
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
    for node, s in r["scaled"].items():
        print(f"SCALED to {node} nm ({s['method']}): Fmax {s['fmax_mhz']} MHz, area "
              f"{s['area_um2']}, pJ/MAC {s['energy_pj_per_mac']}")


if __name__ == "__main__":
    sys.exit(main())
