# Mutant of rtl/prim/mxu_delay_line.sv: the output is taken from the next-to-last stage, so a value
# leaves one cycle early (Depth - 1), control and data bits alike. delay_line must reject it (run
# at Depth >= 2).
s/= ctrl_q\[Depth\*ResetBits-1 -: ResetBits\];/= ctrl_q[(Depth-1)*ResetBits-1 -: ResetBits];/
s/= data_q\[Depth\*DataBits-1 -: DataBits\];/= data_q[(Depth-1)*DataBits-1 -: DataBits];/
