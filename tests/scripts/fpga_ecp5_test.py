"""scripts/fpga_ecp5.sh's refusals: a bad option, an unknown device, a bad --timeout or --freq,
and missing tools (scripts/setup.sh's .venv not there) each give one line on stderr naming the
problem, nothing on stdout, exit status 2, never a traceback. The flow itself is not run: the
smallest device takes tens of minutes of Yosys and nextpnr on 2 cores (a benchmark, docs/ppa.md).
"""

import os
import tempfile
from pathlib import Path

import pytest

from script_runs import SCRIPTS, assert_refused

SCRIPT = SCRIPTS / "fpga_ecp5.sh"


def refused(args, word, env=None):
    assert_refused(SCRIPT, args, word, env=env, timeout=300, prefix="fpga_ecp5.sh: ")


@pytest.mark.parametrize("args,word", [
    (["--frobnicate"], "--frobnicate"),
    (["--device", "banana", "--json"], "banana"),
    (["--device", "4x4:ub=100"], "4x4:ub=100"),
    (["--device", "2x2:gate=1"], "gate=1 does not apply to an FPGA"),
    (["--timeout", "0"], "--timeout"),
    (["--freq", "-5"], "--freq"),
    (["--seed", "x"], "--seed"),
    (["--lut-map", "vpr"], "--lut-map"),
])
def test_bad_arguments(args, word):
    refused(args, word)


def test_keep_never_takes_a_users_files():
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


def test_missing_tools():
    env = dict(os.environ, MXU_FPGA_TOOLS="/nonexistent/bin")
    refused(["--device", "2x2", "--json"], "setup.sh", env=env)
