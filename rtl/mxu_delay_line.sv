// A chain of Depth registers: q_o is d_i delayed by Depth cycles (Depth = 0 is a wire). Used for
// the array's skew and de-skew and for metadata that travels beside the array.
module mxu_delay_line #(
  parameter int unsigned Width = 1,
  parameter int unsigned Depth = 1
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
    logic [Depth*Width-1:0] stages_d, stages_q;

    if (Depth == 1) begin : g_one
      assign stages_d = d_i;
    end else begin : g_many
      assign stages_d = {stages_q[(Depth-1)*Width-1:0], d_i};
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        // Stage by stage: one '0 of the whole chain is a replication of over 8k bits on a
        // 128-row array's skew (Verilator's WIDTHCONCAT).
        for (int unsigned s = 0; s < Depth; s++) begin
          stages_q[s*Width +: Width] <= '0;
        end
      end else begin
        stages_q <= stages_d;
      end
    end

    assign q_o = stages_q[Depth*Width-1 -: Width];
`ifndef SYNTHESIS
    assign would_change = stages_d != stages_q;
`endif
  end

endmodule
