# Mutant of rtl/prim/mxu_fifo_ptr.sv: the full check is off by one, so a push into a full FIFO is
# taken (overflow). fifo_ptr_flow must reject it.
s/wr_en_o  = push_i \&\& (count_q != CntWidth'(Depth));/wr_en_o  = push_i \&\& (count_q != CntWidth'(Depth + 1));/
