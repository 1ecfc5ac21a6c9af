# Mutant of rtl/prim/mxu_fifo_ptr.sv: a push and a pop in the same cycle count as a push only (the
# count drifts away from the contents). fifo_ptr_count must reject it.
s/count_d    = rd_en_o ? count_push - 1'b1 : count_push;/count_d    = (rd_en_o \&\& !wr_en_o) ? count_push - 1'b1 : count_push;/
