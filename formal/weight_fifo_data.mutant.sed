# Mutant of rtl/array/mxu_weight_fifo.sv: the SRAM is written on every push_i, also one refused
# because the FIFO is full, so the push overwrites the oldest row (overflow).
# weight_fifo_data must reject it.
s/\.wr_en_i  (push),/.wr_en_i  (push_i),/
