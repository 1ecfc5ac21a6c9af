# Mutant of rtl/mxu_ctrl_scoreboard.sv: an instruction that writes UB rows a STORE reads waits
# until the STORE has completed (its writes answered), not until it has read them: safe, but the
# head then waits on host memory, which need never answer. scoreboard_live must reject it.
s/if (st_rows_q \&\& st_buf_q == mxu_isa_pkg::BufUb \&\& dec_i.w_ub \&\&/if (st_cnt_q != '0 \&\& st_buf_q == mxu_isa_pkg::BufUb \&\& dec_i.w_ub \&\&/
