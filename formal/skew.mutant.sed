# Mutant of rtl/prim/mxu_delay_line.sv: a chain of two or more stages drops its last stage, so every
# lane or column delayed by 2 or more cycles comes out one cycle early (control and data bits
# alike). skew must reject it.
s/= ctrl_q\[Depth\*ResetBits-1 -: ResetBits\];/= ctrl_q[((Depth > 1) ? Depth - 1 : Depth)*ResetBits-1 -: ResetBits];/
s/= data_q\[Depth\*DataBits-1 -: DataBits\];/= data_q[((Depth > 1) ? Depth - 1 : Depth)*DataBits-1 -: DataBits];/
