# Mutant of rtl/mxu_sync_fifo.sv: the storage is written on every push_i, also one refused
# because the FIFO is full, so the push overwrites the oldest entry (overflow).
# sync_fifo_data must reject it.
s/if (push) entries_d\[wr_ptr\*Width +: Width\] = wdata_i;/if (push_i) entries_d[wr_ptr*Width +: Width] = wdata_i;/
