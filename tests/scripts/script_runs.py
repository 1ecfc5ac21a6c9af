"""Running the scripts of scripts/ from the pytest files here, and what a refusal must look like
(issue 58): exit status 2, nothing on stdout, one line on stderr naming the problem, never a
traceback."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"


def run_script(script: Path, *args: str, env=None, timeout=None) -> subprocess.CompletedProcess:
    """SCRIPT (bash for a .sh, this Python for a .py) with ARGS, from the repository's root."""
    command = [sys.executable if script.suffix == ".py" else "bash", str(script), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout,
                          stdin=subprocess.DEVNULL, cwd=ROOT)


def assert_refused(script: Path, args: list[str], word: str = "", env=None, timeout=None,
                   prefix: str = "") -> None:
    """SCRIPT refuses ARGS as issue 58 asks, its one line holding WORD (and starting with
    PREFIX)."""
    r = run_script(script, *args, env=env, timeout=timeout)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2, (script.name, args, r.returncode, r.stderr)
    assert r.stdout == "" and len(lines) == 1, (script.name, args, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, (script.name, args, r.stderr)
    assert lines[0].startswith(prefix) and word in lines[0], (script.name, args, lines[0])
