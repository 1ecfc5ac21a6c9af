# Mutant of rtl/prim/mxu_sync_fifo.sv: the pointer block is instantiated one entry short (a wrong
# parameter), so the FIFO says full at Depth - 1 entries. sync_fifo_count must reject it.
s/mxu_fifo_ptr #(.Depth(Depth)) u_ptr/mxu_fifo_ptr #(.Depth(Depth - 1)) u_ptr/
