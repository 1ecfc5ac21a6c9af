// One optional pipeline register with its valid bit: the cut between two stages of a pipelined
// unit (FPnew's PipeConfig in spirit). Enable = 1: data_o is data_i registered in the cycles
// valid_i is set (and holds otherwise, so idle stages do not toggle); valid_o is valid_i one cycle
// later. Enable = 0: a wire, so one description serves every pipeline depth. The valid bit resets;
// the data, which only the valid qualifies, has no reset (docs/architecture.md, "Reset").
module mxu_pipe_reg #(
  parameter int unsigned Width  = 1,
  parameter bit          Enable = 1'b1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             valid_i,
  input  logic [Width-1:0] data_i,
  output logic             valid_o,
  output logic [Width-1:0] data_o
);

`ifndef SYNTHESIS
  // Whether a register would take a new value at the next edge: a gated clock domain (mxu_icg)
  // asserts that none would while its clock is off (docs/architecture.md, "Clock gating").
  logic would_change;
`endif

  if (Enable) begin : g_reg
    logic             valid_q;
    logic [Width-1:0] data_d, data_q;

    assign data_d = valid_i ? data_i : data_q;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        valid_q <= 1'b0;
      end else begin
        valid_q <= valid_i;
      end
    end

    always_ff @(posedge clk_i) begin
      data_q <= data_d;
    end

    assign valid_o = valid_q;
    assign data_o  = data_q;
`ifndef SYNTHESIS
    assign would_change = (valid_i != valid_q) || (data_d != data_q);
`endif
  end else begin : g_wire
    assign valid_o = valid_i;
    assign data_o  = data_i;
    logic unused_clk_rst;
    assign unused_clk_rst = clk_i ^ rst_ni;
`ifndef SYNTHESIS
    assign would_change = 1'b0;
`endif
  end

endmodule
