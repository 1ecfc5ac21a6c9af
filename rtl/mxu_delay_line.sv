// A chain of Depth registers: q_o is d_i delayed by Depth cycles (Depth = 0 is a wire). Used for
// the array's skew and de-skew and for metadata that travels beside the array.
// ResetBits: how many of the word's top bits reset (its valid bits, the control); the bits below
// are data that those bits qualify and have no reset, as lowRISC's style has it (a plain flip-flop
// where a resettable one costs area and clock load; docs/architecture.md, "Reset").
module mxu_delay_line #(
  parameter int unsigned Width     = 1,
  parameter int unsigned Depth     = 1,
  parameter int unsigned ResetBits = Width
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic [Width-1:0] d_i,
  output logic [Width-1:0] q_o
);

`ifndef SYNTHESIS
  // Whether a register would take a new value at the next edge: a gated clock domain (mxu_icg)
  // asserts that none would while its clock is off (docs/architecture.md, "Clock gating").
  logic would_change;
`endif

  if (Depth == 0) begin : g_wire
    assign q_o = d_i;
    logic unused_clk_rst;
    assign unused_clk_rst = clk_i ^ rst_ni;
`ifndef SYNTHESIS
    assign would_change = 1'b0;
`endif
  end else begin : g_regs
    localparam int unsigned DataBits = Width - ResetBits;
    logic [Depth*Width-1:0] stages_d, stages_q;

    if (Depth == 1) begin : g_one
      assign stages_d = d_i;
    end else begin : g_many
      assign stages_d = {stages_q[(Depth-1)*Width-1:0], d_i};
    end

    // Stage by stage (one '0 of the whole chain is a replication of over 8k bits on a 128-row
    // array's skew, Verilator's WIDTHCONCAT), the control bits with a reset and the data bits
    // without, each in registers of their own.
    for (genvar s = 0; s < Depth; s++) begin : g_stage
      if (ResetBits > 0) begin : g_ctrl
        logic [ResetBits-1:0] ctrl_q;
        always_ff @(posedge clk_i or negedge rst_ni) begin
          if (!rst_ni) begin
            ctrl_q <= '0;
          end else begin
            ctrl_q <= stages_d[s*Width+DataBits +: ResetBits];
          end
        end
        assign stages_q[s*Width+DataBits +: ResetBits] = ctrl_q;
      end
      if (DataBits > 0) begin : g_data
        logic [DataBits-1:0] data_q;
        always_ff @(posedge clk_i) begin
          data_q <= stages_d[s*Width +: DataBits];
        end
        assign stages_q[s*Width +: DataBits] = data_q;
      end
    end
    if (ResetBits == 0) begin : g_no_reset
      logic unused_rst;
      assign unused_rst = rst_ni;
    end

    assign q_o = stages_q[Depth*Width-1 -: Width];
`ifndef SYNTHESIS
    // A stage's data counts only where its new control bits are set: unqualified data (a power-up
    // value, say) may stand still or not while the clock is off, and nothing reads it.
    if (ResetBits == Width) begin : g_all_ctrl
      assign would_change = stages_d != stages_q;
    end else if (ResetBits == 0) begin : g_all_data
      assign would_change = 1'b0;
    end else begin : g_mixed
      logic [Depth-1:0] stage_changes;
      for (genvar s = 0; s < Depth; s++) begin : g_changes
        assign stage_changes[s] =
            stages_d[s*Width+DataBits +: ResetBits] != stages_q[s*Width+DataBits +: ResetBits] ||
            (stages_d[s*Width+DataBits +: ResetBits] != '0 &&
             stages_d[s*Width +: DataBits] != stages_q[s*Width +: DataBits]);
      end
      assign would_change = stage_changes != '0;
    end
`endif
  end

endmodule
