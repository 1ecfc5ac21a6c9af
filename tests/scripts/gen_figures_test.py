"""scripts/gen_figures.py on a tree of its own (a copy of the script, one committed bench JSON, a
page with a generated table and a figure in prose): the generator fills both; --check passes on
what it wrote, and fails, naming the figure, when the prose or the table was edited by hand or
the JSON moved; a path that picks no row, or two, and a tag it cannot read (an unknown format, no
closing tag) are one-line errors. And the inputs' hash
(issue 69): --check fails, naming the source and the command that re-records it, once the code
under a recorded source changed; a comment or a blank line changes nothing. The re-running of
commands is left out (--no-rerun): figures_up_to_date does that on the real tree. Records of
two sources side by side each keep the other's entry of sources.json."""

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PAGE = """# A page
The 256^3 GEMM takes <!-- fig bench_model_16x16 rows[shape=256x256x256].cycles int -->1<!-- /fig -->
cycles, <!-- fig bench_model_16x16 rows[shape=256x256x256].utilization_ideal pct --><!-- /fig -->.

<!-- BEGIN GENERATED: bench_model_16x16 (scripts/gen_figures.py) -->
<!-- END GENERATED: bench_model_16x16 -->
"""


def gen(tree, *args):
  return subprocess.run([sys.executable, str(tree / "scripts" / "gen_figures.py"), *args],
                        capture_output=True, text=True)


def make_tree(tree):
  """The script, its library, one committed JSON; returns its source (inputs: src/*.cc)."""
  (tree / "scripts").mkdir()
  (tree / "docs" / "figures").mkdir(parents=True)
  shutil.copy(ROOT / "scripts" / "gen_figures.py", tree / "scripts")
  (tree / "scripts" / "lib").mkdir()
  for lib in ("one_line_parser.py", "figure_inputs.py", "figure_records.py"):
    shutil.copy(ROOT / "scripts" / "lib" / lib, tree / "scripts" / "lib")
  shutil.copy(ROOT / "docs" / "figures" / "bench_model_16x16.json", tree / "docs" / "figures")
  source = next(s for s in json.load(open(ROOT / "docs" / "figures" / "sources.json"))["sources"]
                if s["name"] == "bench_model_16x16")
  source["doc"] = ["docs/page.md"]  # a list of pages, or one
  source["inputs"] = ["src/*.cc"]
  source.pop("inputs_sha256", None)
  (tree / "src").mkdir()
  (tree / "src" / "engine.cc").write_text("int cycles() { return 1; }\n")
  return source


def test_generator_on_a_tree_of_its_own():
  with tempfile.TemporaryDirectory() as tmp:
    tree = Path(tmp)
    source = make_tree(tree)
    (tree / "docs" / "figures" / "sources.json").write_text(json.dumps({"sources": [source]}))
    (tree / "README.md").write_text("# readme\n")
    page = tree / "docs" / "page.md"
    page.write_text(PAGE)
    # An example's README quotes figures too (examples/*/README.md).
    example = tree / "examples" / "demo" / "README.md"
    example.parent.mkdir(parents=True)
    example.write_text(PAGE.split("\n\n")[0] + "\n")
    data = json.load(open(tree / "docs" / "figures" / "bench_model_16x16.json"))
    row = next(r for r in data["rows"] if r["shape"] == "256x256x256")

    # Unfilled: --check fails; the generator fills the prose and the table; then --check passes.
    assert gen(tree, "--check", "--no-rerun").returncode == 1
    result = gen(tree)
    assert result.returncode == 0, result.stderr
    text = page.read_text()
    assert f"-->{row['cycles']:,}<!-- /fig -->" in text, text
    assert f"-->{100 * row['utilization_ideal']:.1f}%<!-- /fig -->" in text, text
    assert f"| square 256 | 256x256x256 | {row['cycles']:,} |" in text, text
    assert f"-->{row['cycles']:,}<!-- /fig -->" in example.read_text(), example.read_text()
    result = gen(tree, "--check", "--no-rerun")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 figures in prose, 0 problems" in result.stdout, result.stdout

    # A figure in prose edited by hand: named, with what the JSON gives.
    page.write_text(text.replace(f"-->{row['cycles']:,}<!--", "-->66,000<!--"))
    result = gen(tree, "--check", "--no-rerun")
    assert result.returncode == 1, result.stdout
    assert (f"rows[shape=256x256x256].cycles quoted as '66,000', its JSON gives "
            f"'{row['cycles']:,}'") in result.stdout, result.stdout

    # The table edited by hand.
    page.write_text(text.replace(f"| square 256 | 256x256x256 | {row['cycles']:,} |",
                                 "| square 256 | 256x256x256 | 1 |"))
    result = gen(tree, "--check", "--no-rerun")
    assert result.returncode == 1 and "a generated table differs" in result.stdout, result.stdout

    # The JSON moved (a new measurement not regenerated): both the table and the prose fail.
    page.write_text(text)
    row["cycles"] += 1
    (tree / "docs" / "figures" / "bench_model_16x16.json").write_text(json.dumps(data))
    result = gen(tree, "--check", "--no-rerun")
    assert result.returncode == 1, result.stdout
    assert "quoted as" in result.stdout and "a generated table differs" in result.stdout

    # A path that picks no row: one line, exit 1.
    page.write_text(PAGE.replace("shape=256x256x256].cycles", "shape=3x3x3].cycles"))
    result = gen(tree, "--check", "--no-rerun")
    assert result.returncode == 1, result.stdout
    assert "0 entries of rows with shape=3x3x3" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr

    # A tag with a format the generator does not know (it used to be left alone silently), and
    # one never closed: one line each, exit 1, naming the tag.
    for bad in ("cycles int -->1<!-- /fig -->", "cycles int -->1"):
      page.write_text(PAGE.replace("cycles int -->1<!-- /fig -->",
                                   bad.replace("int", "d6") if bad.endswith("-->") else bad))
      result = gen(tree, "--check", "--no-rerun")
      assert result.returncode == 1, result.stdout
      assert "is not SOURCE PATH FORMAT" in result.stderr, result.stderr
      assert len(result.stderr.strip().splitlines()) == 1, result.stderr
  print("gen_figures_test: passed")


def test_inputs_changed_after_recording():
  with tempfile.TemporaryDirectory() as tmp:
    tree = Path(tmp)
    source = make_tree(tree)
    sources = tree / "docs" / "figures" / "sources.json"
    sources.write_text(json.dumps({"sources": [source]}))
    (tree / "README.md").write_text("# readme\n")
    (tree / "docs" / "page.md").write_text(PAGE)
    assert gen(tree).returncode == 0

    # Never recorded against its inputs: said, not failed (its JSON is still checked).
    result = gen(tree, "--check", "--no-rerun")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "not yet recorded against their inputs" in result.stdout, result.stdout

    # Recorded: the hash as --record writes it (computed by the library the script uses).
    sys.path.insert(0, str(tree / "scripts" / "lib"))
    import figure_inputs
    source["inputs_sha256"] = figure_inputs.digest(tree, source["inputs"], {})
    sys.path.pop(0)
    sources.write_text(json.dumps({"sources": [source]}))
    result = gen(tree, "--check", "--no-rerun")
    assert result.returncode == 0 and "not yet recorded" not in result.stdout, result.stdout

    # A comment and a blank line move no figure.
    engine = tree / "src" / "engine.cc"
    engine.write_text("// why it returns 1\n\nint cycles() { return 1; }  \n")
    assert gen(tree, "--check", "--no-rerun").returncode == 0

    # The code changed: the source and its re-recording command are named.
    engine.write_text("int cycles() { return 2; }\n")
    result = gen(tree, "--check", "--no-rerun")
    assert result.returncode == 1, result.stdout
    assert ("source bench_model_16x16: its inputs (src/*.cc) changed after it was recorded"
            in result.stdout), result.stdout
    assert "scripts/gen_figures.py --record bench_model_16x16" in result.stdout, result.stdout

    # A new input file counts too.
    engine.write_text("int cycles() { return 1; }\n")
    assert gen(tree, "--check", "--no-rerun").returncode == 0
    (tree / "src" / "more.cc").write_text("int more;\n")
    assert gen(tree, "--check", "--no-rerun").returncode == 1

    # An input that selects nothing (a typo would hash nothing forever): one line, exit 1.
    source["inputs"] = ["srcs/*.cc"]
    sources.write_text(json.dumps({"sources": [source]}))
    result = gen(tree, "--check", "--no-rerun")
    assert result.returncode == 1 and "'srcs/*.cc' selects no file" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_records_side_by_side_keep_each_others_entries():
  # A slow record (its command sleeps) and a fast one started after it: the slow one finishes
  # last and must leave the fast one's date and digest in sources.json (each record writes its
  # own entry into the file as it then is, not the copy it read at its start).
  with tempfile.TemporaryDirectory() as tmp:
    tree = Path(tmp)
    make_tree(tree)
    (tree / "build").mkdir()  # --record wants a build folder
    (tree / "README.md").write_text("# readme\n")
    (tree / "docs" / "page.md").write_text("# A page\n")
    (tree / "data.json").write_text('{"cycles": 7}\n')
    sources_file = tree / "docs" / "figures" / "sources.json"
    for name in ("slow", "fast"):  # as recorded before
      (tree / "docs" / "figures" / f"{name}.json").write_text('{"result": {"cycles": 6}}\n')

    def source(name, command):
      return {"name": name, "kind": "figures_only", "doc": "docs/page.md",
              "inputs": ["src/*.cc"], "date": "2000-01-01",
              "runs": [{"json": f"docs/figures/{name}.json", "command": command,
                        "stdout": "json"}]}
    sources_file.write_text(json.dumps({"sources": [
        source("slow", "sh -c 'sleep 3; cat data.json'"), source("fast", "cat data.json")]}))
    slow = subprocess.Popen([sys.executable, str(tree / "scripts" / "gen_figures.py"),
                             "--record", "slow"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    fast = gen(tree, "--record", "fast")
    assert fast.returncode == 0, fast.stdout + fast.stderr
    assert slow.wait(timeout=60) == 0, slow.stdout.read()
    entries = {s["name"]: s for s in json.loads(sources_file.read_text())["sources"]}
    for name in ("slow", "fast"):
      assert entries[name]["date"] != "2000-01-01", entries[name]
      assert len(entries[name].get("inputs_sha256", "")) == 64, entries[name]
    for name in ("slow", "fast"):
      recorded = json.loads((tree / "docs" / "figures" / f"{name}.json").read_text())
      assert recorded["result"] == {"cycles": 7}, recorded
