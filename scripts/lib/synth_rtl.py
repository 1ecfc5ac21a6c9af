"""The work behind scripts/synth_rtl.sh (its header is the usage; it answers --help): one module
synthesized to generic gates, latches refused but the clock gate's, the cell count printed."""
import os
import re
import sys
import tempfile

import yosys

NAME = "synth_rtl.sh"


def usage_error(msg: str) -> None:
    print(f"{NAME}: {msg}", file=sys.stderr)
    sys.exit(2)


def parse(argv: list[str]) -> tuple[bool, str, str, list[tuple[str, str]]]:
    """[--whole] MODULE [STAT_FILE] [-set PARAM VALUE]...: whole, module, stat file, params."""
    whole = bool(argv) and argv[0] == "--whole"
    args = argv[1:] if whole else list(argv)
    if not args:
        usage_error("expected a MODULE (--help for the usage)")
    module, stat_file = args[0], args[1] if len(args) >= 2 else "/dev/null"
    args = args[2:]
    params = []
    while len(args) >= 3 and args[0] == "-set":
        params.append((args[1], args[2]))
        args = args[3:]
    if args:
        usage_error(f"unexpected '{args[0]}' (after MODULE [STAT_FILE]: -set PARAM VALUE only)")
    if module.endswith("_pkg"):
        usage_error(f"'{module}': rtl/{module}.sv is a package, not a module")
    if not yosys.module_file(module):
        usage_error(f"no module '{module}' (no {module}.sv in rtl/ or its rooms)")
    if stat_file.startswith("-"):
        usage_error(f"unknown option '{stat_file}' (--whole, -set; --help)")
    return whole, module, stat_file, params


def script(whole: bool, module: str, stat_file: str, params: list[tuple[str, str]]) -> str:
    """Only the module's own logic, the modules it instantiates black boxes (each synthesized by
    its own run), unless WHOLE; the SRAM macro a black box unless it is the module."""
    own = yosys.module_file(module)
    if module == "mxu_sram_1r1w":
        read = [f"read_verilog -sv {yosys.INCLUDE} {' '.join(yosys.PACKAGES)}",
                f"read_verilog -sv {yosys.INCLUDE} {yosys.SRAM}"]
    else:
        others = [f for f in yosys.module_files() if f != own]
        read = ([f"read_verilog -sv {yosys.INCLUDE} {' '.join(yosys.sources())}"] if whole else
                [f"read_verilog -sv {yosys.INCLUDE} {' '.join(yosys.PACKAGES + [own])}",
                 f"read_verilog -sv {yosys.INCLUDE} -lib {' '.join(others)}"])
        read.append(f"read_verilog -sv {yosys.INCLUDE} -lib {yosys.SRAM}")
    return "\n".join(read + [f"chparam -set {p} {v} {module}" for p, v in params] + [
        f"synth -top {module}",
        "check -assert",
        # No latch but the clock gate's one (mxu_icg's design).
        r"select -assert-none t:$dlatch t:$adlatch %u t:$_DLATCH* %u t:$_DLATCHSR* %u mxu_icg/* %d "
        r"$paramod*mxu_icg*/* %d",
        r"select -assert-max 1 mxu_icg/t:$_DLATCH*",
        f"tee -q -o {stat_file} stat"])


def main(argv: list[str]) -> int:
    whole, module, stat_file, params = parse(argv)
    fd, log = tempfile.mkstemp(prefix="synth_rtl.", suffix=".log")
    os.close(fd)
    try:
        # Yosys's own errors go straight to stderr; the log's error lines follow them.
        failed = yosys.run(script(whole, module, stat_file, params), log, stderr=None).returncode
        text = open(log, errors="replace").read()
    finally:
        os.remove(log)
    if failed:
        errors = [l for l in text.splitlines() if re.search("ERROR|Assertion|Error", l)]
        print("\n".join(errors[:5] + [f"synthesis of {module} failed"]), file=sys.stderr)
        return 1
    latches = "its one latch (the clock gate's)" if module == "mxu_icg" else "no latches"
    print(f"{module}: synthesized, {latches}, {yosys.cells(text)} cells")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
