"""scripts/port_width.sh on one small point: its JSON goes where --json says, or by default to a
new temporary directory that it names, and never into the build tree (MXU_BUILD_DIR, whose
bin/mxu runs)."""

import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

from script_runs import SCRIPTS

BUILD = Path(os.environ.get("MXU_BUILD_DIR", SCRIPTS.parent / "build")).resolve()
POINT = ["--build", str(BUILD), "--size", "32", "--arrays", "4x4", "--buses", "32"]


def port_width(*args, cwd, env=None):
    r = subprocess.run(["bash", str(SCRIPTS / "port_width.sh"), *POINT, *args], cwd=cwd, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def build_json_files():
    return {p: p.stat().st_mtime for p in BUILD.glob("*.json")}


def test_json_where_told_or_in_a_new_temporary_directory():
    before = build_json_files()
    with tempfile.TemporaryDirectory() as work:
        out = port_width("--json", "given.json", cwd=work)
        assert f"wrote {work}/given.json" in out.splitlines(), f"--json: {out}"
        rows = json.loads(Path(work, "given.json").read_text())
        assert rows[0]["device"] == "4x4:bus=32", rows

        out = port_width(cwd=work, env=dict(os.environ, TMPDIR=work))
        written = re.findall(r"^wrote (.*)$", out, re.M)
        assert len(written) == 1 and re.fullmatch(
            re.escape(work) + r"/port_width\.[^/]+/port_width\.json", written[0]), (
            f"default JSON path {written} is not a new temporary directory")
        assert Path(written[0]).stat().st_size > 0, f"{written[0]} is empty"
    assert build_json_files() == before, "a JSON file appeared in the build tree"
