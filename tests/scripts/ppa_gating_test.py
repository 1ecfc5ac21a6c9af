"""scripts/ppa.sh under clock gating (issue 55), without synthesis: seconds.

- scripts/ppa_activity.py counts each clock gate's (mxu_icg's) gated clock edges on a hand-made
  trace, and ppa_lib turns them into duties by netlist path (hier=1 scopes included);
- the clock-domain trace on a hand-made netlist: a register's clock followed through ports,
  assigns and buffers up the hierarchy to the free clock or to a gate, nested gates too; a
  gate's shell in a module's power netlist passes the clock on;
- the gated power's arithmetic (clock share times duty, leakage always, data as measured);
- OpenSTA paths to periods: a whole-period path, a clock gate's half-period one, a borrowed one,
  one into a latch out of time to borrow;
- the liberty: a latch of either enable polarity found and mapped, an integrated clock-gating
  cell found, and a library with neither refused on one line, exit 2, naming it."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "lib"))
from ppa_lib import activity, clocks, liberty, netlist, sta, synth  # noqa: E402

# Two gates under a top clock of 4 rising edges: u_a's clock passes edges 2 and 3, u_b's none.
VCD = """$scope module top $end
$var wire 1 ! clk_i $end
$scope module u_a $end
$var wire 1 ! clk_i $end
$var wire 1 " en_i $end
$var wire 1 # clk_o $end
$upscope $end
$scope module u_b $end
$var wire 1 ! clk_i $end
$var wire 1 $ en_i $end
$var wire 1 % clk_o $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
0!
0"
0#
0$
0%
#5
1!
#10
0!
1"
#15
1!
1#
#20
0!
0#
#25
1!
1#
#30
0!
0#
0"
#35
1!
"""


def test_gate_edges_and_duties():
    tool = ROOT / "scripts" / "ppa_activity.py"
    r = subprocess.run([sys.executable, str(tool)], input=VCD, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    a = json.loads(r.stdout)
    assert a["cycles"] == 4, a
    assert a["gates"] == {"top/u_a": {"edges": 2}, "top/u_b": {"edges": 0}}, a["gates"]
    duty = activity.gate_duties(a, ["u_a", "u_b", "u_c"], "top")
    assert duty == {"u_a": 0.5, "u_b": 0.0, "u_c": 1.0}, duty  # untraced: no saving claimed
    # A column verilated apart (hier=1) traces as its dotted path, then its module's scope.
    hier = {"cycles": 10, "gates": {"mxu_top.u_arr.g_col[1].u_col/mxu_pe_col_2/g_gate/u_icg":
                                    {"edges": 3}}}
    duty = activity.gate_duties(hier, ["u_arr/g_col[1]/u_col/g_gate/u_icg"], "mxu_top")
    assert duty == {"u_arr/g_col[1]/u_col/g_gate/u_icg": 0.3}, duty


# A block's clock domain (mxu_clock_domain, u_clock) around its gate: the wrapper's signals name
# the block's nets (its clock, the gate's enable and output), so only the gate's scope counts.
WRAPPED_VCD = """$scope module top $end
$var wire 1 ! clk_i $end
$var wire 1 " active $end
$var wire 1 # clk_eng $end
$scope module u_clock $end
$var wire 1 ! clk_i $end
$var wire 1 " active_i $end
$var wire 1 # clk_o $end
$var wire 1 " clock_on_o $end
$scope module g_gate $end
$scope module u_icg $end
$var wire 1 ! clk_i $end
$var wire 1 " en_i $end
$var wire 1 # clk_o $end
$upscope $end
$upscope $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
0!
1"
0#
#5
1!
1#
#10
0!
0#
0"
#15
1!
"""


def test_clock_domain_wrapper_counts_once():
    tool = ROOT / "scripts" / "ppa_activity.py"
    r = subprocess.run([sys.executable, str(tool)], input=WRAPPED_VCD, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    a = json.loads(r.stdout)
    assert a["gates"] == {"top/u_clock/g_gate/u_icg": {"edges": 1}}, a["gates"]
    assert sorted(a["scopes"]) == ["top", "top/u_clock/g_gate/u_icg"], a["scopes"]
    # clk_i toggles 3 times, active once, clk_eng twice: each once, not again as the wrapper's.
    assert a["scopes"]["top"] == [3, 6], a["scopes"]


# top: a flop on the free clock, one on gate u_icg's clock through an assign and a buffer, and
# sub on u_icg's clock; sub: a flop on its clk_i, a gate of its own (nested) clocking leaf.
NETLIST = r"""module leaf(clk_i, d_i, q_o);
  input clk_i;
  input d_i;
  output q_o;
  DFFPOSX1 _0_ (
    .CLK(clk_i),
    .D(d_i),
    .Q(q_o)
  );
endmodule

module mxu_icg(clk_i, en_i, clk_o);
  input clk_i;
  input en_i;
  output clk_o;
endmodule

module sub__p1(clk_i, en_i, d_i, q_o);
  input clk_i;
  input en_i;
  input d_i;
  output q_o;
  wire gclk;
  wire q1;
  DFFPOSX1 _1_ (
    .CLK(clk_i),
    .D(d_i),
    .Q(q1)
  );
  mxu_icg \g_gate.u_icg  (
    .clk_i(clk_i),
    .clk_o(gclk),
    .en_i(en_i)
  );
  leaf \g_row[0].u_leaf  (
    .clk_i(gclk),
    .d_i(q1),
    .q_o(q_o)
  );
endmodule

module top(clk_i, en_i, d_i, q_o);
  input clk_i;
  input en_i;
  input d_i;
  output q_o;
  wire gclk;
  wire gclk_alias;
  wire gclk_buf;
  wire a;
  wire b;
  assign gclk_alias = gclk;
  mxu_icg u_icg (
    .clk_i(clk_i),
    .clk_o(gclk),
    .en_i(en_i)
  );
  BUFX2 _2_ (
    .A(gclk_alias),
    .Y(gclk_buf)
  );
  DFFPOSX1 _3_ (
    .CLK(clk_i),
    .D(d_i),
    .Q(a)
  );
  DFFPOSX1 _4_ (
    .CLK(gclk_buf),
    .D(a),
    .Q(b)
  );
  sub__p1 u_sub (
    .clk_i(gclk),
    .d_i(b),
    .en_i(en_i),
    .q_o(q_o)
  );
endmodule
"""

GATING = {"clock_pins": {"DFFPOSX1": "CLK"}, "buffers": {"BUFX2": ("A", "Y")}}


def test_clock_domains():
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "netlist.v"
        path.write_text(NETLIST)
        modules, _ = netlist.load_netlist(str(path))
        # Power netlists: a clock gate's shell passes its clock on, or the registers it clocks
        # would have none; any other submodule's shell is its ports alone.
        own = Path(netlist.own_netlist(modules, "top", tmp)).read_text()
        shells = {m.split("(")[0]: m for m in own.split("module ")[1:]}
        assert "assign clk_o = clk_i;" in shells["mxu_icg"], shells["mxu_icg"]
        assert "assign" not in shells["sub__p1"] and "DFF" not in shells["sub__p1"], shells
    groups = clocks.own_clock_groups(modules, "top", GATING)
    assert groups == {("port", "clk_i"): ["_3_"], ("gate", "u_icg"): ["_4_"]}, groups
    assert clocks.own_clock_groups(modules, "sub__p1", GATING) == {("port", "clk_i"): ["_1_"]}
    dom = clocks.ClockDomains(modules, "top", GATING)
    assert dom.gates() == ["u_icg", "u_sub/g_gate/u_icg"], dom.gates()
    assert dom.domain("") == "" and dom.domain("u_icg") == "", "the gates run on the free clock"
    assert dom.domain("u_sub") == "u_icg", dom.domain("u_sub")
    assert dom.domain("u_sub/g_gate/u_icg") == "u_icg", "a nested gate runs on its parent's"
    assert dom.domain("u_sub/g_row[0]/u_leaf") == "u_sub/g_gate/u_icg"
    assert dom.resolve("", ("gate", "u_icg")) == "u_icg"
    assert dom.resolve("u_sub", ("port", "clk_i")) == "u_icg"


def test_gated_power():
    # 1 mW leakage; 10 mW of clock at rate 0, 6 of it the flops of a gate's group; the data's
    # share 4 mW (bf16's 14 less the 10).
    p = {"leak": 1.0, "dyn0": 10.0, "dyn": {"bf16": 14.0, "idle": 10.0},
         "clock": {("gate", "g"): 6.0}}

    def duty_of(group):
        d = 0.25 if group == ("gate", "g") else 1.0
        return {"bf16": d, "idle": 0.0 if group == ("gate", "g") else 1.0}

    pw = sta.gated_power(p, [("gate", "g")], duty_of)
    assert pw == {"bf16": 1.0 + 4.0 + 6.0 * 0.25 + 4.0, "idle": 1.0 + 4.0}, pw


# OpenSTA 2.0.17's reports, cut to what parse_path reads.
FULL = """Startpoint: u_a (rising edge-triggered flip-flop clocked by clk)
Endpoint: u_b (rising edge-triggered flip-flop clocked by clk)
   0.000    0.000   clock clk (rise edge)
   0.250    5.903 ^ u_b/D (DFFSR)
            5.903   data arrival time

   4.000    4.000   clock clk (rise edge)
  -0.096    3.904   library setup time
            3.904   data required time
           -2.000   slack (VIOLATED)
"""
GATE = """Startpoint: u_icg/_3_ (positive level-sensitive latch clocked by clk')
Endpoint: u_icg/_2_ (rising clock gating-check end-point clocked by clk)
   2.000    2.000   clock clk' (rise edge)
   0.170    2.170 v u_icg/_3_/Q (LATCH)
            2.170   data arrival time

   4.000    4.000   clock clk (rise edge)
   0.000    4.000   clock gating setup time
            4.000   data required time
            1.830   slack (MET)
"""
BORROWED = GATE.replace("   0.170    2.170 v", "   1.000    3.000   time given to startpoint\n"
                        "   0.170    3.170 v").replace("2.170   data", "3.170   data").replace(
                            "1.830   slack", "0.830   slack")

# Into a gate's latch, out of time to borrow: the latch closes on the next rising edge.
LATE = """Startpoint: _489_ (rising edge-triggered flip-flop clocked by clk)
Endpoint: u_icg/_3_ (positive level-sensitive latch clocked by clk')
   0.000    0.000   clock clk (rise edge)
   0.000    4.337 ^ u_icg/_3_/D (LATCH)
            4.337   data arrival time

   2.000    2.000   clock clk' (rise edge)
   1.837    3.837   time borrowed from endpoint
            3.837   data required time
           -0.500   slack (VIOLATED)
"""


def test_sta_paths():
    full = sta.parse_path(FULL, 4.0)
    assert full["ns"] == 6.0 and full["start"] == "u_a" and full["end"] == "u_b", full
    gate = sta.parse_path(GATE, 4.0)
    assert gate["ns"] == 0.34, gate  # half the period: twice the latch's 0.17 ns
    borrowed = sta.parse_path(BORROWED, 4.0)
    assert borrowed["ns"] == 3.17, borrowed  # launched a period before: arrival + setup
    late = sta.parse_path(LATE, 4.0, whole=True)
    assert late["ns"] == 4.5, late  # the arrival and the latch's setup, 0.163 ns
    assert sta.parse_path("No paths found.", 4.0) is None


LIB_HEAD = """library (tiny) {
  cell (INVX1) {
    area : 16;
    pin (A) { direction : input; }
    pin (Y) { direction : output; function : "(!A)"; }
  }
"""
LATCH_LOW = """  cell (LATN) {
    area : 50;
    latch (IQ, IQN) { data_in : "D"; enable : "!GN"; }
    pin (D) { direction : input; }
    pin (GN) { direction : input; clock : true; }
    pin (Q) { direction : output; function : "IQ"; }
  }
"""
ICG_CELL = """  cell (CKGATE) {
    area : 60;
    clock_gating_integrated_cell : "latch_posedge_precontrol";
    statetable ("CK E SE", "IQ") { table : "L L L : - : L"; }
    pin (CK) { direction : input; clock : true; clock_gate_clock_pin : true; }
    pin (E) { direction : input; clock_gate_enable_pin : true; }
    pin (SE) { direction : input; clock_gate_test_pin : true; }
    pin (GCK) { direction : output; clock_gate_out_pin : true; state_function : "CK IQ"; }
  }
"""


def test_liberty():
    with tempfile.TemporaryDirectory() as tmp:
        lib = Path(tmp) / "tiny.lib"
        lib.write_text(LIB_HEAD + LATCH_LOW + ICG_CELL + "}\n")
        cells = liberty.liberty_cells(str(lib))
        latch = liberty.liberty_latch(cells)
        assert latch == {"cell": "LATN", "d": "D", "en": "GN", "q": "Q", "en_low": True}, latch
        icg = liberty.liberty_icg(cells)
        assert icg == {"cell": "CKGATE", "clk": "CK", "en": "E", "out": "GCK", "test": "SE"}, icg
        assert liberty.liberty_buffers(cells) == {"INVX1": ("A", "Y")}
        assert liberty.liberty_clock_pins(cells) == {"LATN": "GN", "CKGATE": "CK"}
        # The active-low latch takes Yosys's negative latch as it is, the positive one inverted.
        m = synth.latch_map(latch)
        p_part, n_part = m.split("module \\$_DLATCH_N_")
        assert "$_NOT_" in p_part and "$_NOT_" not in n_part, m
        assert "LATN _TECHMAP_REPLACE_ (.GN(E), .D(D), .Q(Q))" in n_part, m
        assert "CKGATE u_cell (.CK(clk_i), .E(en_i), .GCK(clk_o), .SE(1'b0))" in synth.icg_stub(icg)
        # A library without latches is refused, named, before any tool runs.
        lib.write_text(LIB_HEAD + "}\n")
        env = dict(os.environ, MXU_PPA_LIBERTY=str(lib))
        r = subprocess.run(["bash", str(ROOT / "scripts" / "ppa.sh"), "--module", "mxu_icg"],
                           capture_output=True, text=True, env=env)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and r.stdout == "" and len(lines) == 1, (r.returncode, r.stderr)
        assert str(lib) in lines[0] and "latch" in lines[0], lines[0]

