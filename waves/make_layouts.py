#!/usr/bin/env python3
# Writes the GTKWave layouts waves/overview.gtkw, array.gtkw and buffers.gtkw (run it after
# changing a layout here; the .gtkw files are committed). Signals are named as they appear in the
# FST the platform writes; marker times are those of the trace of docs/waves.md
# (mxu gemm --m 32 --k 32 --n 32 --trace t.fst --trace-cycles 2000). Flags: gtkwave's analyzer.h
# (TR_*): 0x28 binary, 0x22 hex, 0x24 decimal, 0x40020 bits as a real (fp32), 0x4000 process
# filter, 0x800200 / 0x1000200 group begin / end.
import os
T = "mxu_top."            # the model's ports
M = "mxu_top.mxu_top."    # the mxu_top module
C = M + "u_controller."
CD = C + "u_dispatch."    # the controller's blocks
CC = C + "u_decode."
CS = C + "u_scoreboard."
D = M + "u_datapath."
A = D + "u_array."
BIT, HEX, DEC, BF16, FP32 = "@28", "@22", "@24", "@4022", "@40020"
# Opcodes by name: hex through the opcode filter process (a filter file would not apply to the
# FST). The format strings of BF16 and OPCODE are the same; the filters tell them apart.
OPCODE = "@4022 "
FILTERS = {BF16: "^>1 build/bin/mxu-bf16-filter", OPCODE: "^>2 build/bin/mxu-opcode-filter"}

def pe(r, c, sig, fmt, name=None):
    leaf = name or sig.split("[")[0]
    return (fmt, f"{A}g_col[{c}].u_col.g_row[{r}].u_pe.{sig}", f"PE({r},{c}) {leaf}")

def save(name, comment, timestart, zoom, markers, groups, letters_only=False):
    out = ["[*]", f"[*] {comment}", "[*] Signals: full hierarchical names in the FST the platform writes.", "[*]"]
    out += [f"[timestart] {timestart}", "[size] 1600 1200", "[pos] -1 -1"]
    named = [-1] * 26
    names = []
    for i, (time, label) in enumerate(markers):
        named[i] = time
        # Markers close together (the array's B and C, 1 ns apart) would write their names over
        # each other: such a layout shows the letters, and docs/waves.md says what each marks.
        names.append(f"[markername] {chr(65 + i)}" + ("" if letters_only else label.strip()))
    out.append(f"*{zoom:.6f} -1 " + " ".join(str(t) for t in named))
    out += names
    out += ["[sst_width] 1", "[signals_width] 330", "[sst_expanded] 0"]
    for title, traces in groups:
        out += ["@800200", f"-{title}"]
        for fmt, signal, *alias in traces:
            out.append(fmt.strip())
            if fmt in FILTERS:
                out.append(FILTERS[fmt])
            out.append(f"+{{{alias[0]}}} {signal}" if alias else signal)
        out += ["@1000200", f"-{title}"]
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), name), "w") as f:
        f.write("\n".join(out) + "\n")

save("overview.gtkw", "mxu device overview: control, instructions, engines, stalls, memory port",
     0, -17.1,
     [(10000, " start"), (288500, " first MATMUL row enters the array"),
      (745500, " done (interrupt)")],
     [("clock and control", [(BIT, T + "clk_i"), (BIT, T + "irq_o"),
                             (BIT, T + "dbg_busy_o"), (DEC, CD + "state_q[2:0]", "state_q (1 Clear 2 Run 3 DrainDone 4 DrainError)")]),
      ("instructions", [(DEC, CD + "pc_q[31:0]"), (OPCODE, CC + "op[7:0]"),
                        (DEC, CC + "f_rows[15:0]"), (BIT, T + "dbg_dispatch_o"),
                        (DEC, T + "dbg_dispatch_pc_o[31:0]")]),
      ("engines busy", [(BIT, CS + "ld_valid_q[3:0]"), (BIT, CS + "wld_valid_q[3:0]"),
                        (BIT, T + "dbg_wshift_start_o"), (BIT, T + "dbg_wshift_busy_o"), (BIT, CS + "mm_valid_q[3:0]"),
                        (BIT, T + "dbg_array_row_o"), (BIT, CS + "ac_busy_q"),
                        (DEC, CS + "st_cnt_q[1:0]", "st_cnt_q (STOREs in flight)")]),
      ("engines done", [(BIT, T + "dbg_load_done_o"), (BIT, T + "dbg_wload_done_o"),
                        (BIT, T + "dbg_matmul_done_o"), (BIT, T + "dbg_activate_done_o"),
                        (BIT, T + "dbg_store_done_o")]),
      ("stalls", [(BIT, C + "stall_dep_o"), (BIT, C + "stall_fetch_o"),
                  (BIT, D + "mm_wait_weights_o"), (BIT, M + "u_dma.stall_o")]),
      ("memory read (AR, R)", [(BIT, T + "mem_ar_valid_o"),
                               (DEC, T + "mem_ar_id_o[1:0]"), (HEX, T + "mem_ar_addr_o[47:0]"),
                               (DEC, T + "mem_ar_len_o[7:0]"), (BIT, T + "mem_r_valid_i"),
                               (DEC, T + "mem_r_id_i[1:0]"), (BIT, T + "mem_r_last_i")]),
      ("memory write (AW, W, B)", [(BIT, T + "mem_aw_valid_o"), (HEX, T + "mem_aw_addr_o[47:0]"),
                                   (DEC, T + "mem_aw_len_o[7:0]"), (BIT, T + "mem_w_valid_o"),
                                   (BIT, T + "mem_w_last_o"),
                                   (BIT, T + "mem_b_valid_i"), (BIT, T + "mem_b_ready_o")])])

rows = [0, 1, 2, 15]
cols = [0, 1, 2, 15]
save("array.gtkw", "mxu systolic array: one tile's journey through PE column 0 and PE row 0",
     250000, -15.0,
     [(255500, " tile 0 weights start shifting in"), (287500, " commit: tile 0 weights active"),
      (288500, " first activation row enters"), (370500, " first result row to the accumulators"),
      (354500, " tile 1 rows enter (accumulate)")],
     [("array input", [(BIT, T + "clk_i"), (BIT, A + "act_valid_i"), (BIT, A + "act_bank_i"),
                       (BIT, A + "w_shift_i"), (BIT, A + "w_commit_i"),
                       (BIT, A + "w_commit_bank_i")]),
      ("weights, column 0 (shadow chain shifts up; banks)",
       [pe(r, 0, "shadow_q[15:0]", BF16) for r in (15, 1, 0)] +
       [pe(0, 0, "weight0_q[15:0]", BF16), pe(0, 0, "weight1_q[15:0]", BF16),
        pe(15, 0, "weight0_q[15:0]", BF16)]),
      ("activations entering column 0 (skewed by row)",
       [pe(r, 0, "act_i[15:0]", BF16) for r in rows]),
      ("activations moving right along row 0",
       [pe(0, c, "act_i[15:0]", BF16) for c in cols[1:]]),
      ("one product through PE(0,0)'s pipeline (pe=6: multiply 3 cycles, add 4)",
       [pe(0, 0, "act_valid_i", BIT), pe(0, 0, "act_i[15:0]", BF16),
        pe(0, 0, "u_mul.u_finish.u_cut.g_reg.valid_q", BIT, "multiply: normalized"),
        pe(0, 0, "u_cut_product.g_reg.data_q[31:0]", FP32, "product at the adder"),
        pe(0, 0, "u_add.u_cut_align.g_reg.valid_q", BIT, "add: aligned"),
        pe(0, 0, "u_add.u_cut_sum.g_reg.valid_q", BIT, "add: summed"),
        pe(0, 0, "u_add.u_finish.u_cut.g_reg.valid_q", BIT, "add: normalized"),
        pe(0, 0, "psum_o[31:0]", FP32)]),
      ("partial sums down column 0 (fp32)",
       [pe(r, 0, "psum_o[31:0]", FP32) for r in rows]),
      ("partial sums along row 0 (fp32)",
       [pe(0, c, "psum_o[31:0]", FP32) for c in cols[1:]]),
      ("results to the accumulators",
       [(BIT, D + "u_acc.res_valid_i"), (DEC, D + "u_acc.res_addr_i[9:0]"),
        (BIT, D + "u_acc.res_accumulate_i"), (BIT, D + "u_acc.res_last_i"),
        (BIT, D + "mm_done_o")])], letters_only=True)

U = D + "u_unified_buffer."
W = D + "u_weight_fifo."
Q = D + "u_acc."
AU = D + "u_activation."
save("buffers.gtkw", "mxu buffers: unified buffer, weight FIFO and accumulator ports",
     0, -17.1,
     [(10000, " start"), (289000, " first MATMUL row enters the array")],
     [("unified buffer: reads (a: array, b: DMA store)",
       [(BIT, T + "clk_i"), (BIT, U + "rd_a_en_i"), (DEC, U + "rd_a_addr_i[12:0]"),
        (BIT, U + "rd_b_en_i"), (DEC, U + "rd_b_addr_i[12:0]"), (BIT, U + "rd_b_gnt_o")]),
      ("unified buffer: writes (a: activation, b: DMA load)",
       [(BIT, U + "wr_a_en_i"), (DEC, U + "wr_a_addr_i[12:0]"), (BIT, U + "wr_b_en_i"),
        (DEC, U + "wr_b_addr_i[12:0]"), (BIT, U + "wr_b_gnt_o")]),
      ("weight FIFO", [(BIT, W + "push_i"), (BIT, W + "full_o"), (BIT, W + "pop_i"),
                       (BIT, W + "empty_o"), (DEC, W + "count_o[5:0]"),
                       (DEC, W + "wr_ptr_q[4:0]"), (DEC, W + "rd_ptr_q[4:0]")]),
      ("accumulators: results from the array",
       [(BIT, Q + "res_valid_i"), (DEC, Q + "res_addr_i[9:0]"), (BIT, Q + "res_accumulate_i"),
        (BIT, Q + "res_last_i"), (BIT, Q + "res_done_o")]),
      # A result row: read at arrival, old value and row in stage 1 (forwarded when the row was
      # written in the read's cycle), the fp32 add's three cuts, written at the write stage.
      ("accumulators: the add pipeline (read | stage 1 | 3 add cuts | write)",
       [(BIT, Q + "s1_valid_q"), (DEC, Q + "s1_addr_q[9:0]"), (BIT, Q + "s1_fwd_q"),
        (BIT, Q + "wb_valid"), (DEC, Q + "wb_addr[9:0]"), (BIT, Q + "wb_accumulate")]),
      ("activation unit: 4 stages (bias add x 3 | ReLU, rounding; or the requantizer's 4)",
       [(BIT, AU + "valid_i"), (BIT, AU + "stage_valid_q[2:0]"), (BIT, AU + "valid_o"),
        (BIT, AU + "busy_o")]),
      ("accumulators: DMA and activation ports",
       [(BIT, Q + "rd_en_i"), (DEC, Q + "rd_addr_i[9:0]"), (BIT, Q + "rd_gnt_o"),
        (BIT, Q + "wr_en_i"), (DEC, Q + "wr_addr_i[9:0]"), (BIT, Q + "wr_gnt_o")])])
