"""scripts/check_structure.py on trees of its own: each rule of docs/layout.md ("Shape") is
reported where it is broken, and a tree that keeps them passes."""
import subprocess
import tempfile
from pathlib import Path

from script_runs import SCRIPTS, run_script

CHECK = SCRIPTS / "check_structure.py"


def check(files: dict) -> subprocess.CompletedProcess:
    """check_structure.py --root on a git repository holding FILES (path -> text)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for path, text in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        subprocess.run(["git", "add", "."], cwd=root, check=True)
        return run_script(CHECK, "--root", str(root))


def cxx_function(name: str, body_lines: int) -> str:
    return f"int {name}(int x) {{\n" + "  x += 1;\n" * body_lines + "  return x;\n}\n"


def sv_module(body_lines: int) -> str:
    """A module whose always_comb (a case inside, an `end else begin`) is body_lines + 6 long."""
    body = "    x = 1'b0;\n" * body_lines
    return ("module m (output logic x, input logic a);\n  always_comb begin\n"
            "    if (a) begin\n      x = 1'b1;\n    end else begin\n" + body +
            "    end\n  end\n  always_ff @(posedge a) x <= a;\nendmodule\n")


def test_a_tree_that_keeps_the_rules_passes():
    r = check({"a/x.cc": cxx_function("Short", 100), "rtl/m.sv": sv_module(74), "python/mxu/__init__.py": "from . import b\n",
               "python/mxu/b.py": "import os\n", "scripts/s.sh": "python3 scripts/x.py\n"})
    assert r.returncode == 0 and r.stdout.startswith("structure clean"), r.stdout + r.stderr


def test_each_rule_is_reported():
    long_python = "def long():\n" + "    x = 1\n" * 121
    r = check({**{f"big/f{i}.h": "" for i in range(41)},
               "a/x.cc": cxx_function("Long", 119) + cxx_function("Short", 10),
               "a/y.py": long_python,
               "rtl/m.sv": sv_module(75),
               "python/mxu/__init__.py": "",
               "python/mxu/p.py": "def f():\n    from mxu import q\n",
               "python/mxu/q.py": "from . import p\n",
               "scripts/s.sh": "n=$(python3 -c 'print(1)')\n"})
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert "big/: 41 source files (at most 40: split it into rooms)" in lines
    assert "a/x.cc:1: Long is 122 lines (at most 120)" in lines
    assert not any("Short" in line for line in lines)
    assert "a/y.py:1: long is 122 lines (at most 120)" in lines
    assert any(line.startswith("import cycle: mxu.p -> mxu.q -> mxu.p") for line in lines), lines
    assert "scripts/s.sh:1: python3 -c (put the Python in a module of scripts/)" in lines
    assert "rtl/m.sv:2: always_comb is 81 lines (at most 80)" in lines
    assert len(lines) == 6, lines
