// Placeholder translation unit: the verilated sources are added by verilate().
