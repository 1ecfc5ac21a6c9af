# Mutant of rtl/array/mxu_systolic_array.sv: column 0's enable drops a cycle early after a row (its
# span one cycle short), so the bottom PE of a column misses its last partial sum. clock_gating
# must reject it.
s/mxu_pkg::pe_mul_cycles(Stages) + Add - 1$/mxu_pkg::pe_mul_cycles(Stages) + Add - 2/
