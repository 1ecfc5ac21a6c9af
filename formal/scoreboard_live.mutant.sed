# Mutant of rtl/ctrl/mxu_ctrl_scoreboard.sv: an instruction that writes rows a STORE reads waits until
# the STORE has completed (its writes answered), not until it has read them: safe, but the head
# then waits on host memory, which need never answer. scoreboard_live must reject it.
s/st_hit = st_rows_q \&\&/st_hit = st_cnt_q != '0 \&\&/
