# Mutant of rtl/mxu_delay_line.sv: the output is taken from the next-to-last stage, so a value
# leaves one cycle early (Depth - 1). delay_line must reject it (run at Depth >= 2).
s/assign q_o = stages_q\[Depth\*Width-1 -: Width\];/assign q_o = stages_q[(Depth-1)*Width-1 -: Width];/
