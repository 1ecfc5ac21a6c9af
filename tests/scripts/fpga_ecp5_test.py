#!/usr/bin/env python3
"""scripts/fpga_ecp5.sh's refusals: a bad option, an unknown device, a bad --timeout or --freq,
and missing tools (scripts/setup.sh's .venv not there) each give one line on stderr naming the
problem, nothing on stdout, exit status 2, never a traceback. The flow itself is not run: the
smallest device takes tens of minutes of Yosys and nextpnr on 2 cores (a benchmark, docs/ppa.md).
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fpga_ecp5.sh"


def refused(args, word, env=None):
    result = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True,
                            env=env, timeout=300)
    assert result.returncode == 2, (args, result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert result.stdout == "" and len(lines) == 1, (args, result.stdout, result.stderr)
    assert lines[0].startswith("fpga_ecp5.sh: ") and word in lines[0], (args, lines[0])


def keep_refusals():
    """Issue 58, item 5: --keep never takes a user's directory or file: a non-empty directory
    that no earlier --keep made is refused with its files untouched, a file likewise."""
    with tempfile.TemporaryDirectory() as tmp:
        user = Path(tmp, "results")
        user.mkdir()
        mine = {"report.json": "{}", "yosys.log": "mine", "synth.ys": "mine"}
        for name, text in mine.items():
            (user / name).write_text(text)
        refused(["--keep", str(user)], "--keep")
        assert {p.name: p.read_text() for p in user.iterdir()} == mine, list(user.iterdir())
        afile = Path(tmp, "notes.txt")
        afile.write_text("mine")
        refused(["--keep", str(afile)], "not a directory")
        assert afile.read_text() == "mine"


def main():
    refused(["--frobnicate"], "--frobnicate")
    refused(["--device", "banana", "--json"], "banana")
    refused(["--device", "4x4:ub=100"], "4x4:ub=100")
    refused(["--device", "2x2:gate=1"], "gate=1 does not apply to an FPGA")
    refused(["--timeout", "0"], "--timeout")
    refused(["--freq", "-5"], "--freq")
    refused(["--seed", "x"], "--seed")
    refused(["--lut-map", "vpr"], "--lut-map")
    keep_refusals()
    env = dict(os.environ, MXU_FPGA_TOOLS="/nonexistent/bin")
    refused(["--device", "2x2", "--json"], "setup.sh", env=env)
    print("fpga_ecp5_test: ok")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as error:
        print(f"fpga_ecp5_test: FAIL: {error}", file=sys.stderr)
        sys.exit(1)
