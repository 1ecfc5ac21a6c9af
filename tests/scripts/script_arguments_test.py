"""Every script a user runs in scripts/ (each .sh and .py): --help prints its usage on stdout and
exits 0; a bad option is one line on stderr, nothing on stdout, exit 2. And issue 58's cases, each
refused before any long work (Yosys, a build, an install): hw_cost.sh's unknown words and
--pe-stages 08, ppa.sh's --keep FILE or a user's directory, --timeout -5 and --module of a
package, gen_figures.py --check --build of a missing tree, a demo, setup, test or scaling run with
a bad argument. Seconds in all: a refusal that started the work would run over its timeout."""

import tempfile
from pathlib import Path

import pytest

from script_runs import SCRIPTS, assert_refused, run_script

TIMEOUT = 60  # a refusal takes well under a second; Yosys or a build takes minutes
USER_SCRIPTS = sorted(p for p in SCRIPTS.iterdir() if p.suffix in (".sh", ".py"))


def refused(script: Path, args: list[str], word: str = "") -> None:
    assert_refused(script, args, word, timeout=TIMEOUT)


def test_scripts_found():
    assert len(USER_SCRIPTS) > 20, USER_SCRIPTS


@pytest.mark.parametrize("script", USER_SCRIPTS, ids=lambda p: p.name)
def test_help_and_a_bad_option(script):
    r = run_script(script, "--help", timeout=TIMEOUT)
    assert r.returncode == 0, (script.name, r.returncode, r.stderr)
    assert r.stdout.strip() and r.stderr == "", (script.name, r.stdout, r.stderr)
    refused(script, ["--no-such-option"])


@pytest.mark.parametrize("args,word", [
    (["--frobnicate"], "--frobnicate"),
    (["4x4", "--json"], "--json"),
    (["--pe-stages", "08"], "'08'"),
    (["--devices"], "--devices"),
])
def test_hw_cost(args, word):
    refused(SCRIPTS / "hw_cost.sh", args, word)


def test_ppa_keep_never_takes_a_users_files():
    ppa = SCRIPTS / "ppa.sh"
    with tempfile.TemporaryDirectory() as tmp:
        afile = Path(tmp, "afile")
        afile.write_text("mine")
        refused(ppa, ["--keep", str(afile)], "not a directory")
        user = Path(tmp, "results")
        user.mkdir()
        (user / "synth.log").write_text("mine")
        refused(ppa, ["--keep", str(user)], "--keep")
        assert [p.name for p in user.iterdir()] == ["synth.log"]
        assert (user / "synth.log").read_text() == "mine" and afile.read_text() == "mine"


@pytest.mark.parametrize("script,args,word", [
    ("ppa.sh", ["--timeout", "-5"], "--timeout"),
    ("ppa.sh", ["--module", "mxu_pkg"], "a package, not a module"),
    ("fpga_ecp5.sh", ["--timeout", "-5"], "--timeout"),
    ("gen_figures.py", ["--check", "--build", "/nonexistent"], "/nonexistent"),
    ("coverage.sh", ["--filter"], "--filter"),
    ("synth_rtl.sh", ["mxu_pkg"], "a package, not a module"),
    ("synth_rtl.sh", ["mxu_no_such_module"], "mxu_no_such_module"),
    ("demo.sh", ["--epochs", "x"], "--epochs"),
    ("setup.sh", ["Ninja"], "Ninja"),
    ("test.sh", ["-L"], "-L"),
    ("scaling.sh", ["16x16", "--keep"], "--keep"),
    ("port_width.sh", ["--size", "0"], "--size"),
    ("render_waves.sh", ["a.gtkw"], "expected"),
    ("ppa_activity.py", ["a.vcd", "b.vcd"], "expected"),
])
def test_issue_58_refusals(script, args, word):
    refused(SCRIPTS / script, args, word)
