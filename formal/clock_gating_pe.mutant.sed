# Mutant of rtl/array/mxu_pe.sv: the float pipeline's gate closes a cycle early after an operation (its
# count one short), so its last register keeps a valid that a later partial sum sees again.
# clock_gating_pe must reject it.
s/float_starts ? LeftWidth'(PipeRegs) :/float_starts ? LeftWidth'(PipeRegs - 1) :/
