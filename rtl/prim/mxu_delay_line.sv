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
    // Two chains, one vector each (a generate block a stage is ~130k scopes on a 255-row array's
    // skew, minutes of Verilator's time): the control bits with a reset, the data bits without.

    if (ResetBits > 0) begin : g_ctrl
      logic [Depth*ResetBits-1:0] ctrl_d, ctrl_q;
      if (Depth == 1) begin : g_one
        assign ctrl_d = d_i[Width-1 -: ResetBits];
      end else begin : g_many
        assign ctrl_d = {ctrl_q[(Depth-1)*ResetBits-1:0], d_i[Width-1 -: ResetBits]};
      end
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          // Stage by stage: one '0 of a long chain is a replication of thousands of bits
          // (Verilator's WIDTHCONCAT).
          for (int unsigned s = 0; s < Depth; s++) begin
            ctrl_q[s*ResetBits +: ResetBits] <= '0;
          end
        end else begin
          ctrl_q <= ctrl_d;
        end
      end
      assign q_o[Width-1 -: ResetBits] = ctrl_q[Depth*ResetBits-1 -: ResetBits];
    end else begin : g_no_reset
      logic unused_rst;
      assign unused_rst = rst_ni;
    end

    if (DataBits > 0) begin : g_data
      logic [Depth*DataBits-1:0] data_d, data_q;
      if (Depth == 1) begin : g_one
        assign data_d = d_i[DataBits-1:0];
      end else begin : g_many
        assign data_d = {data_q[(Depth-1)*DataBits-1:0], d_i[DataBits-1:0]};
      end
      always_ff @(posedge clk_i) begin
        data_q <= data_d;
      end
      assign q_o[DataBits-1:0] = data_q[Depth*DataBits-1 -: DataBits];
    end

`ifndef SYNTHESIS
    // A stage's data counts only where its new control bits are set: unqualified data (a power-up
    // value, say) may stand still or not while the clock is off, and nothing reads it.
    if (DataBits == 0) begin : g_all_ctrl
      assign would_change = g_ctrl.ctrl_d != g_ctrl.ctrl_q;
    end else if (ResetBits == 0) begin : g_all_data
      assign would_change = 1'b0;
    end else begin : g_mixed
      always_comb begin
        would_change = g_ctrl.ctrl_d != g_ctrl.ctrl_q;
        for (int unsigned s = 0; s < Depth; s++) begin
          if (g_ctrl.ctrl_d[s*ResetBits +: ResetBits] != '0 &&
              g_data.data_d[s*DataBits +: DataBits] != g_data.data_q[s*DataBits +: DataBits]) begin
            would_change = 1'b1;
          end
        end
      end
    end
`endif
  end

endmodule
