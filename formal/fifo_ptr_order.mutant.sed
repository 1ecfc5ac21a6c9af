# Mutant of rtl/prim/mxu_fifo_ptr.sv: the read pointer wraps one slot early, so entries are read out
# of order (and one slot is skipped). fifo_ptr_order must reject it.
s/rd_ptr_d = (rd_ptr_q == PtrWidth'(Depth - 1))/rd_ptr_d = (rd_ptr_q == PtrWidth'(Depth - 2))/
