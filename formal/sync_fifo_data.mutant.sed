# Mutant of rtl/prim/mxu_sync_fifo.sv: the free slot is written also while the FIFO is full, where
# the write pointer is the oldest entry's: a refused push overwrites it (overflow).
# sync_fifo_data must reject it.
s/if (!full_o) entries_d\[wr_ptr\*Width +: Width\] = wdata_i;/entries_d[wr_ptr*Width +: Width] = wdata_i;/
