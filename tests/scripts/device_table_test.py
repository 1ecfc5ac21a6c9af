"""The device table (issue 70): scripts/gen_device.py writes every output from common/device.toml
and refuses a broken table; scripts/check_constants.py lists a constant or a rule defined again
by hand, and nothing on a tree without one."""

import shutil

from script_runs import ROOT, SCRIPTS, run_script

GEN = SCRIPTS / "gen_device.py"
CHECK = SCRIPTS / "check_constants.py"


def tree(tmp_path, toml=None):
    """A copy of what the generator reads and writes, the table possibly replaced."""
    for rel in ("common/device.toml", "common/device_table.h", "rtl/mxu_pkg.sv",
                "docs/architecture.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    if toml is not None:
        (tmp_path / "common/device.toml").write_text(toml)
    return tmp_path


def test_the_outputs_are_the_tables(tmp_path):
    root = tree(tmp_path)
    assert run_script(GEN, "--check", "--root", str(root)).returncode == 0
    toml = (ROOT / "common/device.toml").read_text().replace("value = 2\n", "value = 4\n", 1)
    root = tree(tmp_path, toml)
    r = run_script(GEN, "--check", "--root", str(root))
    assert r.returncode == 1 and "rtl/mxu_pkg.sv" in r.stderr and "device_table.h" in r.stderr
    assert run_script(GEN, "--root", str(root)).returncode == 0
    assert "parameter int unsigned AccBanks = 4;" in (root / "rtl/mxu_pkg.sv").read_text()
    assert "kAccBanks = 4;" in (root / "common/device_table.h").read_text()


def test_a_broken_rule_is_refused(tmp_path):
    good = (ROOT / "common/device.toml").read_text()
    rule = '"max(bus_bytes / 32, 8)"'
    assert rule in good
    for bad in ('"max(bus_bytes / 32, 8"',  # unbalanced
                '"max(width, 8)"',          # not an argument
                '"sqrt(bus_bytes)"',        # no such function
                '"max(bus_bytes)"'):        # too few arguments
        root = tree(tmp_path, good.replace(rule, bad, 1))
        r = run_script(GEN, "--check", "--root", str(root))
        assert r.returncode == 2 and "TableError" in r.stderr, (bad, r.stderr)
        assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_constant_defined_again_is_listed(tmp_path):
    (tmp_path / "common").mkdir()
    shutil.copy(ROOT / "common/device.toml", tmp_path / "common/device.toml")
    for d in ("rtl", "backends/model", "scripts"):
        (tmp_path / d).mkdir(parents=True)
    assert run_script(CHECK, "--root", str(tmp_path)).returncode == 0
    (tmp_path / "rtl/a.sv").write_text("package a;\n  parameter int unsigned AccBanks = 2;\n"
                                       "endpackage\n")
    (tmp_path / "backends/model/b.h").write_text(
        "constexpr uint32_t CommitGap(uint32_t rows, uint32_t add) {\n  return rows;\n}\n"
        "constexpr uint32_t kBurstLimit = 16;\n")
    (tmp_path / "scripts/c.py").write_text("BURST_LIMIT = 16\n")
    r = run_script(CHECK, "--root", str(tmp_path))
    assert r.returncode == 1
    assert "rtl/a.sv:2: defines common/device.toml's constant acc_banks" in r.stdout
    assert "backends/model/b.h:1: defines commit_gap" in r.stdout
    assert "burstlimit: one name, a number in 2 languages" in r.stdout


def test_a_size_written_as_a_bare_number_is_listed(tmp_path):
    (tmp_path / "common").mkdir()
    shutil.copy(ROOT / "common/device.toml", tmp_path / "common/device.toml")
    for d in ("rtl", "backends/model", "driver"):
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / "rtl/a.sv").write_text(
        "module a;\n  fifo #(.Width(8), .Depth(Depth)) u_ok ();\n"
        "  fifo #(.Width(8), .Depth(4)) u_queue ();\nendmodule\n")
    (tmp_path / "backends/model/b.cc").write_text(
        "bool Full(const Q& q) { return q.size() >= kQueueDepth || q.size() == 1; }\n"
        "bool Busy(const Q& q) { return q.size() >= 4; }\n")
    (tmp_path / "driver/c.cc").write_text("bool Many(const V& v) { return v.size() >= 4; }\n")
    r = run_script(CHECK, "--root", str(tmp_path))
    assert r.returncode == 1
    assert "rtl/a.sv:3: a size as a bare number (.Depth(4))" in r.stdout
    assert "backends/model/b.cc:2: a size as a bare number (.size() >= 4)" in r.stdout
    assert len(r.stdout.strip().splitlines()) == 2, r.stdout  # driver/ is not the model
