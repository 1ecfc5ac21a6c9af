# Mutant of rtl/dma/mxu_dma_load_pack.sv: a plain beat is taken although the row register still
# holds a row not yet written, so that row is overwritten (lost). dma_pack must reject it.
s/^                can_move;/                1'b1;/
