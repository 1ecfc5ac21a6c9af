// Leading-zero counter: the number of zero bits above the most significant one of in_i.
// An all-zero input reports Width.
module mxu_lzc #(
  parameter int unsigned Width    = 16,
  localparam int unsigned CntWidth = $clog2(Width + 1)
) (
  input  logic [Width-1:0]    in_i,
  output logic [CntWidth-1:0] cnt_o
);

  always_comb begin
    cnt_o = CntWidth'(Width);
    // Scan from the least significant bit so that the highest set bit wins.
    for (int unsigned i = 0; i < Width; i++) begin
      if (in_i[i]) cnt_o = CntWidth'(Width - 1 - i);
    end
  end

endmodule
