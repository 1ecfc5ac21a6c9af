"""The SRAMs: a first-order model of a macro's area, energy and access time, and the port cells
and stub that stand in for them in synthesis and timing."""
import math

import yosys

from .config import VDD


# The SRAM model (first order, after CACTI's organisation: Wilton and Jouppi, "CACTI: an
# enhanced cache access and cycle time model", IEEE JSSC 31(5), 1996; Thoziyoor et al., "CACTI
# 5.1", HP Labs HPL-2008-20). Each memory is one macro, Depth x Width, folded by a column mux
# into a near-square array. The constants and where they come from:
SRAM = {
    "cell_um2": 5.59,        # 6T cell, Intel 0.18 um (Yang et al., IEDM 1998): 5.59 um^2
    "array_efficiency": 0.7,  # cells / macro area (decoders, sense amps, I/O: CACTI's typical)
    "c_gate_ff": 1.0,         # an access transistor's gate (min. width, 180 nm): ~1 fF, assumed
    "c_drain_ff": 1.0,        # its drain on the bitline: taken equal to the gate, assumed
    "c_wire_ff_per_um": 0.2,  # metal wire, 180 nm (ITRS 1999 order of magnitude), assumed
    "cell_pitch_um": 2.4,     # sqrt(5.59): bitline and wordline length per cell
    "swing": 0.1,             # bitline read swing, a fraction of Vdd (sense-amp read)
    "i_cell_ua": 100.0,       # read current of a 6T cell at 180 nm, assumed
    "fo4_ns": 0.09,           # FO4 = 500 ps x L(um) (Ho, Mai, Horowitz, Proc. IEEE 2001)
    "c_periph_ff_per_bit": 20.0,  # sense amp, latch and output driver per bit read, assumed
}


# ---------------------------------------------------------------------------------------------
# The SRAM as the flow sees it: one MXU_SRAM_Q cell per read-data bit (a start point of timing)
# and one MXU_SRAM_D per input bit (an end point), ideal: no area, no delay; area, energy and
# access time come from the SRAM model instead.
MACRO_LIB = """library (mxu_sram_ports) {
  delay_model : table_lookup;
  time_unit : "1ns";
  voltage_unit : "1V";
  current_unit : "1uA";
  capacitive_load_unit (1,pf);
  leakage_power_unit : "1nW";
  pulling_resistance_unit : "1kohm";
  nom_voltage : 1.8;
  nom_temperature : 27;
  nom_process : 1;
  input_threshold_pct_rise : 50;
  input_threshold_pct_fall : 50;
  output_threshold_pct_rise : 50;
  output_threshold_pct_fall : 50;
  slew_lower_threshold_pct_rise : 20;
  slew_lower_threshold_pct_fall : 20;
  slew_upper_threshold_pct_rise : 80;
  slew_upper_threshold_pct_fall : 80;
  cell (MXU_SRAM_Q) {
    area : 0;
    dont_touch : true;
    dont_use : true;
    ff (IQ, IQN) { next_state : "IQ"; clocked_on : "CLK"; }
    pin (CLK) { direction : input; clock : true; capacitance : 0.005; }
    pin (Q) {
      direction : output;
      function : "IQ";
      timing () {
        related_pin : "CLK";
        timing_type : rising_edge;
        cell_rise (scalar) { values ("0.0"); }
        cell_fall (scalar) { values ("0.0"); }
        rise_transition (scalar) { values ("0.1"); }
        fall_transition (scalar) { values ("0.1"); }
      }
    }
  }
  cell (MXU_SRAM_D) {
    area : 0;
    dont_touch : true;
    dont_use : true;
    ff (IQ, IQN) { next_state : "D"; clocked_on : "CLK"; }
    pin (CLK) { direction : input; clock : true; capacitance : 0.005; }
    pin (D) {
      direction : input;
      capacitance : 0.005;
      timing () {
        related_pin : "CLK";
        timing_type : setup_rising;
        rise_constraint (scalar) { values ("0.0"); }
        fall_constraint (scalar) { values ("0.0"); }
      }
    }
  }
}
"""


# The stub's body; its header (parameters and ports) is the real module's (sram_stub()).
SRAM_STUB_BODY = """  localparam int unsigned NumIn = 2 * AddrWidth + Width + 2;
  logic [NumIn-1:0] ins;
  assign ins = {rd_en_i, rd_addr_i, wr_en_i, wr_addr_i, wr_data_i};
  for (genvar i = 0; i < Width; i++) begin : g_q
    MXU_SRAM_Q u_q (.CLK(clk_i), .Q(rd_data_o[i]));
  end
  for (genvar i = 0; i < NumIn; i++) begin : g_d
    MXU_SRAM_D u_d (.CLK(clk_i), .D(ins[i]));
  end
  // Depth, for the SRAM model: a constant cell nothing reads (removed before timing).
  (* keep *) MXU_SRAM_DEPTH #(.Depth(Depth)) u_depth ();
endmodule
(* blackbox *)
module MXU_SRAM_DEPTH #(parameter int unsigned Depth = 1) ();
endmodule
"""


def sram_stub() -> str:
    """mxu_sram_1r1w with the real module's header and the stub's body: no copy to drift."""
    return yosys.module_header("mxu_sram_1r1w") + SRAM_STUB_BODY


# ---------------------------------------------------------------------------------------------
def sram_model(width: int, depth: int) -> dict:
    """Area (um^2), read and write energy (pJ), access time (ns) of one Depth x Width macro."""
    p = SRAM
    bits = width * depth
    mux = 1
    while depth // (mux * 2) >= width * mux * 2 and mux < 16:
        mux *= 2
    rows, cols = max(1, depth // mux), width * mux
    c_bl = rows * (p["c_drain_ff"] + p["c_wire_ff_per_um"] * p["cell_pitch_um"])  # fF
    c_wl = cols * (2 * p["c_gate_ff"] + p["c_wire_ff_per_um"] * p["cell_pitch_um"])
    e_read = VDD * VDD * (cols * c_bl * p["swing"] + c_wl + width * p["c_periph_ff_per_bit"])
    e_write = VDD * VDD * (width * c_bl + (cols - width) * c_bl * p["swing"] + c_wl
                           + width * p["c_periph_ff_per_bit"])
    overhead = 1.2  # decoder and control: 20% on top (CACTI's typical share at this size)
    t_decode = (math.log(max(rows, 2), 4) + 2) * p["fo4_ns"]
    t_bitline = c_bl * 1e-15 * VDD * p["swing"] / (p["i_cell_ua"] * 1e-6) * 1e9
    t_access = t_decode + t_bitline + 4 * p["fo4_ns"]  # + sense amp and output, 2 FO4 each
    return {"width": width, "depth": depth, "bits": bits, "rows": rows, "cols": cols,
            "area_um2": round(bits * p["cell_um2"] / p["array_efficiency"], 1),
            "read_pj": round(e_read * overhead * 1e-3, 3),
            "write_pj": round(e_write * overhead * 1e-3, 3),
            "access_ns": round(t_access, 3)}


def sram_instances(modules: dict, count: dict) -> list[dict]:
    """The SRAMs: every instance of the stub, Width from its read-data cells."""
    srams = []
    for m, v in modules.items():
        if m.split("__")[0] == "mxu_sram_1r1w" and m in count:
            w = v["cells"].get("MXU_SRAM_Q", 0)
            dep = v["depth"] or 2 ** ((v["cells"].get("MXU_SRAM_D", 0) - w - 2) // 2)
            s = sram_model(w, dep)
            s["instances"] = count[m]
            s["module"] = m
            srams.append(s)
    return srams
