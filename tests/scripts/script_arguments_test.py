#!/usr/bin/env python3
"""Every script a user runs in scripts/ (each .sh and .py): --help prints its usage on stdout and
exits 0; a bad option is one line on stderr, nothing on stdout, exit 2. And issue 58's cases, each
refused before any long work (Yosys, a build, an install): hw_cost.sh's unknown words and
--pe-stages 08, ppa.sh's --keep FILE or a user's directory, --timeout -5 and --module of a
package, gen_figures.py --check --build of a missing tree, a demo, setup, test or scaling run with
a bad argument. Seconds in all: a refusal that started the work would run over its timeout."""

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
TIMEOUT = 60  # a refusal takes well under a second; Yosys or a build takes minutes


def run(script: Path, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable if script.suffix == ".py" else "bash", str(script), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT,
                          stdin=subprocess.DEVNULL, cwd=ROOT)


def helps(script: Path) -> None:
    r = run(script, "--help")
    assert r.returncode == 0, (script.name, r.returncode, r.stderr)
    assert r.stdout.strip() and r.stderr == "", (script.name, r.stdout, r.stderr)


def refused(script: Path, args: list[str], word: str = "") -> None:
    r = run(script, *args)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2, (script.name, args, r.returncode, r.stderr)
    assert r.stdout == "" and len(lines) == 1, (script.name, args, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and word in lines[0], (script.name, args, lines)


def main() -> None:
    scripts = sorted(p for p in SCRIPTS.iterdir() if p.suffix in (".sh", ".py"))
    assert len(scripts) > 20, scripts
    for script in scripts:
        helps(script)
        refused(script, ["--no-such-option"])

    hw_cost = SCRIPTS / "hw_cost.sh"
    refused(hw_cost, ["--frobnicate"], "--frobnicate")
    refused(hw_cost, ["4x4", "--json"], "--json")
    refused(hw_cost, ["--pe-stages", "08"], "'08'")
    refused(hw_cost, ["--devices"], "--devices")

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
    refused(ppa, ["--timeout", "-5"], "--timeout")
    refused(ppa, ["--module", "mxu_pkg"], "a package, not a module")
    refused(SCRIPTS / "fpga_ecp5.sh", ["--timeout", "-5"], "--timeout")

    refused(SCRIPTS / "gen_figures.py", ["--check", "--build", "/nonexistent"], "/nonexistent")
    refused(SCRIPTS / "coverage.sh", ["--filter"], "--filter")
    refused(SCRIPTS / "synth_rtl.sh", ["mxu_pkg"], "a package, not a module")
    refused(SCRIPTS / "synth_rtl.sh", ["mxu_no_such_module"], "mxu_no_such_module")
    refused(SCRIPTS / "demo.sh", ["--epochs", "x"], "--epochs")
    refused(SCRIPTS / "setup.sh", ["Ninja"], "Ninja")
    refused(SCRIPTS / "test.sh", ["-L"], "-L")
    refused(SCRIPTS / "scaling.sh", ["16x16", "--keep"], "--keep")
    refused(SCRIPTS / "port_width.sh", ["--size", "0"], "--size")
    refused(SCRIPTS / "render_waves.sh", ["a.gtkw"], "expected")
    refused(SCRIPTS / "ppa_activity.py", ["a.vcd", "b.vcd"], "expected")
    print(f"script_arguments_test: {len(scripts)} scripts: --help and refusals ok")


if __name__ == "__main__":
    try:
        main()
    except (AssertionError, subprocess.TimeoutExpired) as error:
        print(f"script_arguments_test: FAIL: {error}", file=sys.stderr)
        sys.exit(1)
