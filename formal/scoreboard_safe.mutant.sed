# Mutant of rtl/ctrl/mxu_ctrl_scoreboard.sv: the conflict check against the load engine looks at its
# first queue slot only, so a LOAD in the second slot no longer holds back an instruction that
# reads or writes its rows. scoreboard_safe must reject it.
0,/for (int unsigned s = 0; s < LdSlots; s++) begin/s//for (int unsigned s = 0; s < 1; s++) begin/
