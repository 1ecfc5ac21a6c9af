"""Yosys as every script here drives it (synth_rtl.sh, hw_cost.sh, ppa.py, fpga_ecp5.py): the
RTL's source list, a device's defines, the device-spec parser, a run with its log, and the
figures read back from the log (cells, flip-flops, longest path, memory bits).

Imported, not run: the scripts put scripts/lib on sys.path. fpga_ecp5.py runs YoWASP's Yosys
itself (in its work directory, beside nextpnr) and takes the rest from here.
"""
import json
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RTL = os.path.join(ROOT, "rtl")
SRAM = os.path.join(RTL, "prim", "mxu_sram_1r1w.sv")
PACKAGES = [os.path.join(RTL, "mxu_isa_pkg.sv"), os.path.join(RTL, "mxu_pkg.sv")]
# read_verilog's include path: the modules in rtl/'s rooms include rtl/mxu_assert.svh.
INCLUDE = f"-I{RTL}"
# The two-input gates the cost figures count (hw_cost.sh): `abc -fast -g` maps onto these.
GATES = "AND,NAND,OR,NOR,XOR,XNOR,MUX"


# ---------------------------------------------------------------------------------------------
# The sources.

def rtl_files() -> list[str]:
    """Every .sv of rtl/ and its rooms (rtl/prim, rtl/array...), sorted by file name."""
    found = [os.path.join(d, f) for d, _, files in os.walk(RTL) for f in files
             if f.endswith(".sv")]
    return sorted(found, key=os.path.basename)


def module_file(name: str) -> str | None:
    """rtl/ROOM/NAME.sv (or rtl/NAME.sv): where module NAME lives; None if nowhere."""
    return next((f for f in rtl_files() if os.path.basename(f) == name + ".sv"), None)


def module_files() -> list[str]:
    """Every module of rtl/ but the SRAM macro (a black box unless asked for), sorted by name."""
    return [f for f in rtl_files()
            if not f.endswith("_pkg.sv") and os.path.basename(f) != "mxu_sram_1r1w.sv"]


def sources() -> list[str]:
    """The packages first (the modules import them), then every module but the SRAM."""
    return PACKAGES + module_files()


def rtl_newest() -> float:
    """When rtl/ last changed: a kept netlist older than this is synthesized again."""
    return max(os.path.getmtime(os.path.join(d, f)) for d, _, files in os.walk(RTL)
               for f in files)


def module_header(name: str) -> str:
    """rtl/ROOM/NAME.sv's header, `module NAME` to its `);` line: a stub with the real parameters
    and ports cannot drift from the module."""
    text = open(module_file(name)).read()
    begin = text.index("module " + name)
    return text[begin:text.index("\n);\n", begin) + 4]


# ---------------------------------------------------------------------------------------------
# Devices: a cmake/devices.cmake entry, parsed by the project's own parser.

SPEC_KEYS = ["name", "rows", "cols", "flush", "ub", "acc", "wfifo", "pe", "bus", "hier",
             "threads", "gate"]


class SpecToolBroken(Exception):
    """cmake/device_spec_tool.cc did not compile: the compiler's messages."""


class BadSpec(Exception):
    """A device spec the parser refuses: its rule, one line."""


def default_spec() -> str:
    """MXU_DEVICES's first entry."""
    text = open(os.path.join(ROOT, "cmake/devices.cmake")).read()
    return re.search(r'set\(MXU_DEVICES "([^";]*)', text).group(1)


def parse_spec(spec: str | None, work: str) -> dict:
    """SPEC (default: MXU_DEVICES's first) as {name, rows, cols, ..., gate, spec}, strings."""
    tool = os.path.join(work, "spec_tool")
    r = subprocess.run(["c++", "-std=c++17", "-I" + ROOT,
                        os.path.join(ROOT, "cmake/device_spec_tool.cc"), "-o", tool],
                       timeout=300, text=True, capture_output=True)
    if r.returncode:
        raise SpecToolBroken(r.stderr)
    spec = spec if spec is not None else default_spec()
    out = subprocess.run([tool, "1", spec], timeout=60, text=True, capture_output=True).stdout
    line = (out.strip().splitlines() or [""])[-1].split("\t")
    if line[0] == "error":
        raise BadSpec(f"--device '{spec}': {line[2] if len(line) > 2 else ''}")
    d = dict(zip(SPEC_KEYS, line))
    d["spec"] = spec
    return d


def defines(d: dict, rows=None, cols=None, clock_gating: bool = True) -> list[str]:
    """The device's values as rtl/mxu_pkg.sv takes them; ROWS and COLS replace its array's."""
    out = [f"-DMXU_ARRAY_ROWS={d['rows'] if rows is None else rows}",
           f"-DMXU_ARRAY_COLS={d['cols'] if cols is None else cols}",
           f"-DMXU_UB_DEPTH={d['ub']}", f"-DMXU_ACC_DEPTH={d['acc']}",
           f"-DMXU_WEIGHT_FIFO_DEPTH={d['wfifo']}", f"-DMXU_FLUSH_SUBNORMALS={d['flush']}",
           f"-DMXU_PE_STAGES={d['pe']}", f"-DMXU_BUS_BYTES={d['bus']}"]
    return out + ([f"-DMXU_CLOCK_GATING={d['gate']}"] if clock_gating else [])


# ---------------------------------------------------------------------------------------------
# Running it.

def run(script: str, log: str, timeout: float | None = None, script_file: str | None = None,
        stderr=subprocess.PIPE) -> subprocess.CompletedProcess:
    """`yosys -q -l LOG` on SCRIPT, inline (-p) or, with SCRIPT_FILE, written there (-s: a long
    script, or one kept for a later run to compare). Its stdout (quiet: nothing) is dropped;
    its stderr (the errors) captured unless STDERR says where. TimeoutExpired passes up."""
    if script_file:
        with open(script_file, "w") as f:
            f.write(script)
        where = ["-s", script_file]
    else:
        where = ["-p", script]
    return subprocess.run(["yosys", "-q", "-l", log, *where], timeout=timeout, text=True,
                          stdout=subprocess.DEVNULL, stderr=stderr)


def reusable(script_file: str, script: str, outputs: list[str]) -> bool:
    """Whether a kept run (--keep DIR) can stand for this one: the same script, and its outputs
    all there and newer than rtl/."""
    if not os.path.isfile(script_file) or open(script_file).read() != script:
        return False
    newest = rtl_newest()
    return all(os.path.isfile(f) and os.path.getmtime(f) > newest for f in outputs)


# ---------------------------------------------------------------------------------------------
# Reading its figures back from a log or a `tee -o` file.

# The flip-flops of a mapped netlist's statistics, as the PE and device rows have always counted
# them, and as the depth rows count them (any flip-flop or latch cell): two rules, kept apart so
# that no published figure moves.
MAPPED_FLOPS = re.compile(r"\$_(S?DFFE?|ALDFF|DFFSRE?)_")
ANY_FLOPS = re.compile(r"\$_[A-Z]*(DFF|DLATCH)[A-Z]*_")


def last_field(line: str) -> str:
    return line.split()[-1]


def cells(text: str) -> str:
    """The last statistics block's cell count ('' where there is none)."""
    counts = [last_field(l) for l in text.splitlines() if re.match(r" +Number of cells", l)]
    return counts[-1] if counts else ""


def flip_flops(text: str, rule: re.Pattern = MAPPED_FLOPS) -> int:
    """The flip-flop cells (of RULE's kinds) the statistics in TEXT list."""
    return sum(int(last_field(l)) for l in text.splitlines() if rule.search(l))


def last_block(text: str, marker: str) -> str:
    """TEXT from the last line that holds MARKER on (all of it where none does)."""
    at = text.rfind(marker)
    return text if at < 0 else text[text.rfind("\n", 0, at) + 1:]


def hierarchy(text: str) -> str:
    """A `stat -top`'s design hierarchy block: the whole design, each module once per instance."""
    return last_block(text, "=== design hierarchy ===")


def longest_path(text: str, whole: bool = True) -> int | None:
    """`ltp`'s last length: from its full line, or, with WHOLE false, any `length=N`."""
    rule = r"Longest topological path in [^ ]+ \(length=([0-9]+)\)" if whole else r"length=([0-9]+)"
    found = re.findall(rule, text)
    return int(found[-1]) if found else None


def memory_bits(text: str) -> str:
    """The memory bits of a design hierarchy block ('' where there is none)."""
    found = [last_field(l) for l in hierarchy(text).splitlines() if "Number of memory bits" in l]
    return found[-1] if found else ""


def stat_json_cells(path: str) -> dict[str, int]:
    """The top's cell counts from `stat -json` (a flattened design: its one module)."""
    s = json.load(open(path))
    design = s.get("design") or next(iter(s["modules"].values()))
    return {k: int(v) for k, v in design.get("num_cells_by_type", {}).items()}
