# Mutant of rtl/mxu_delay_line.sv: a chain of two or more stages drops its last stage, so every
# lane or column delayed by 2 or more cycles comes out one cycle early. skew must reject it.
s/assign q_o = stages_q\[Depth\*Width-1 -: Width\];/assign q_o = stages_q[((Depth > 1) ? Depth - 1 : Depth)*Width-1 -: Width];/
