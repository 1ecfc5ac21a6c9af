// Depth pipeline registers with their valid bits (mxu_pipe_reg each): data_o is data_i delayed by
// Depth cycles, taken only in the cycles its valid is set, so a register of the chain changes only
// while data are in flight; Depth = 0 is a wire. A mxu_delay_line that holds when nothing is valid:
// in a gated clock domain (mxu_icg) nothing changes once the last valid has passed, which is what
// the domain's assertion checks (docs/architecture.md, "Clock gating").
module mxu_valid_pipe #(
  parameter int unsigned Width = 1,
  parameter int unsigned Depth = 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             valid_i,
  input  logic [Width-1:0] data_i,
  output logic             valid_o,
  output logic [Width-1:0] data_o
);

  // Entry s feeds stage s; entry Depth is the output.
  logic [Depth:0]         valid_bus;
  logic [(Depth+1)*Width-1:0] data_bus;

`ifndef SYNTHESIS
  // Whether a register would take a new value at the next edge (the gated domain's assertion).
  logic [Depth:0] stage_changes;
  logic           would_change;
  assign stage_changes[Depth] = 1'b0;
  assign would_change         = |stage_changes;
`endif

  assign valid_bus[0]        = valid_i;
  assign data_bus[Width-1:0] = data_i;

  for (genvar s = 0; s < Depth; s++) begin : g_stage
    mxu_pipe_reg #(.Width(Width)) u_reg (
      .clk_i,
      .rst_ni,
      .valid_i(valid_bus[s]),
      .data_i (data_bus[s*Width +: Width]),
      .valid_o(valid_bus[s+1]),
      .data_o (data_bus[(s+1)*Width +: Width])
    );
`ifndef SYNTHESIS
    assign stage_changes[s] = u_reg.would_change;
`endif
  end

  if (Depth == 0) begin : g_wire
    logic unused_clk_rst;
    assign unused_clk_rst = clk_i ^ rst_ni;
  end

  assign valid_o = valid_bus[Depth];
  assign data_o  = data_bus[Depth*Width +: Width];

endmodule
