"""scripts/coverage_report.py on a small hand-made coverage file: per-module fractions with the
waived points left out, bit rules, line waivers by source text, FSM states and arcs from MXU_COVER
points, the functional bins; a stale waiver, a waiver of a covered FSM arc and a malformed line
are refused. Seconds; no simulation."""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "coverage_report.py"


def point(kind, module, name, count, file="x.sv", line=1):
    fields = {"f": file, "l": str(line), "page": f"{kind}/{module}", "o": name, "h": "TOP"}
    key = "".join(f"\x01{k}\x02{v}" for k, v in fields.items())
    return f"C '{key}' {count}\n"


def run(tmp, waivers, *extra):
    (tmp / "waivers.txt").write_text(waivers)
    return subprocess.run([sys.executable, str(SCRIPT), str(tmp / "merged.dat"),
                           str(tmp / "waivers.txt"), str(tmp / "summary.txt"), *extra],
                          capture_output=True, text=True)


def test_report():
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        (tmp / "src.sv").write_text("a\n      default: state_d = Idle;\nc\n")
        points = [
            # mxu_csr: 8 toggle bits of pc_q, bits 0-3 toggled; 2 line points, one at line 2.
            *(point("v_toggle", "mxu_csr", f"pc_q[{i}]", 1 if i < 4 else 0) for i in range(8)),
            point("v_line", "mxu_csr", "block", 5, str(tmp / "src.sv"), 1),
            point("v_branch", "mxu_csr", "case", 0, str(tmp / "src.sv"), 2),
            # a parameterized copy counts as its module
            point("v_toggle", "mxu_csr__W8", "rdata_o[0]", 3),
            # not in the closure set
            point("v_toggle", "mxu_pe_col", "x[0]", 0),
            point("v_user", "mxu_ctrl_dispatch", "FsmState_Idle", 9),
            point("v_user", "mxu_ctrl_dispatch", "FsmState_Run", 0),
            point("v_user", "mxu_ctrl_dispatch", "FsmArc_Idle_Run", 2),
            point("v_user", "mxu_ctrl_dispatch", "FsmArc_Run_Idle", 0),
            point("v_user", "mxu_ctrl_dispatch", "OtherCover", 0),
        ]
        (tmp / "merged.dat").write_text("# SystemC::Coverage-3\n" + "".join(points))
        (tmp / "functional.json").write_text(json.dumps(
            {"bins": 3, "bins_hit": 2, "counts": {"a": 1, "b": 0, "c": 4}}))
        waivers = ("# comment\n"
                   "toggle mxu_c* pc_q[i >= 6] | two bits a larger device sets\n"
                   "line mxu_csr default: state_d | unreachable default\n"
                   "fsm mxu_ctrl_dispatch FsmArc_Run_Idle | not an arc this test takes\n")
        r = run(tmp, waivers, "--functional", str(tmp / "functional.json"), "--json")
        assert r.returncode == 0, r.stderr
        report = json.loads(r.stdout)
        csr = next(m for m in report["modules"] if m["module"] == "mxu_csr")
        # pc_q: bits 6, 7 waived; 4 of 6 covered, plus rdata_o[0]: 5 of 7.
        assert csr["toggle_points"] == [5, 7], csr
        assert abs(csr["toggle"] - 5 / 7) < 1e-3, csr
        assert csr["line_points"] == [1, 1], csr  # the default branch waived
        assert csr["in_closure_set"], csr
        assert {e["kind"] for e in csr["excluded"]} == {"toggle", "line"}, csr
        pe = next(m for m in report["modules"] if m["module"] == "mxu_pe_col")
        assert not pe["in_closure_set"] and pe["toggle"] == 0.0, pe
        assert report["closure"]["toggle_points"] == [5, 7], report["closure"]
        fsm = report["fsm"]
        assert (fsm["states"], fsm["states_reached"], fsm["transitions"],
                fsm["transitions_taken"]) == (2, 1, 2, 1), fsm
        assert fsm["missed"] == ["mxu_ctrl_dispatch.FsmState_Run"], fsm
        assert [u["cover"] for u in fsm["unreachable"]] == ["FsmArc_Run_Idle"], fsm
        assert report["functional"] == {"bins": 3, "bins_hit": 2, "missed": ["b"]}, report
        summary = (tmp / "summary.txt").read_text()
        assert "closure set: line 100.0%" in summary and "FSM: states 1/2" in summary, summary

        # A waiver matching nothing, and one whose FSM arc was taken, fail the report.
        r = run(tmp, waivers + "toggle mxu_csr no_such_signal | stale\n")
        assert r.returncode == 1 and "matches no point" in r.stderr, (r.returncode, r.stderr)
        r = run(tmp, waivers + "fsm mxu_ctrl_dispatch FsmArc_Idle_Run | wrong\n")
        assert r.returncode == 1 and "waives covered points" in r.stderr, (r.returncode, r.stderr)
        # A malformed waiver line: one line naming the file and line.
        r = run(tmp, "toggle mxu_csr pc_q\n")
        lines = r.stderr.strip().splitlines()
        assert r.returncode != 0 and len(lines) == 1 and "waivers.txt:1" in lines[0], r.stderr
    print("coverage_report: fractions, waivers, FSM, functional bins and refusals as expected")
