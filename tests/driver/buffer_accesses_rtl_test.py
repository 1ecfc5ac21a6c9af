#!/usr/bin/env python3
"""The buffer traffic the driver counts from a program's instructions (driver/buffer_accesses.h,
`buffer_accesses` in `mxu gemm --json`) against the RTL's own SRAM enables: each GEMM traced
whole (every signal), the read and write enables of every mxu_sram_1r1w counted at each rising
edge (scripts/ppa_activity.py), summed per buffer kind, and compared exactly. Plain, transposed
(A and B), int8 and bias + ReLU GEMMs on the default device, and two of them on every other
built device (the CI's 8x4: an array of other proportions, a 64-byte port).
The same traces hold the clock counters (COLUMN_CLOCKS, ACC_CLOCKS, ACTIVATE_CLOCKS) to the
clock gates themselves: each gated clock's rising edges (scripts/ppa_activity.py's "gates"),
summed over the PE columns (each runs for the tiles as wide as it), the accumulators' gate and
the activation unit's, exactly; a
device without gates (gate=0) counts every cycle of the program (ArrayCols a cycle for the
columns).

Usage: buffer_accesses_rtl_test.py BIN_DIR SOURCE_DIR BINARY [BINARY...] (the default first)"""

import json
import os
import subprocess
import sys
import tempfile

BIN, SRC = sys.argv[1], sys.argv[2]
ACTIVITY = os.path.join(SRC, "scripts", "ppa_activity.py")


def kind(scope: str) -> str:
    if "/u_unified_buffer/" in scope + "/":
        return "ub"
    if "/u_weight_fifo/" in scope + "/":
        return "wfifo"
    if "/u_acc/" in scope + "/":
        return "acc"
    if "/u_transpose/" in scope + "/":
        return "transpose"
    raise AssertionError(f"an SRAM of no known buffer: {scope}")


CLOCKS = {"/u_col/": "column_clocks", "/u_acc/": "acc_clocks",
          "/u_activation/": "activate_clocks", "/u_dma/": "dma_clocks"}
DMA_ENGINES = 3  # DMA_CLOCKS counts each engine's clock: activation load, weight load, store


def array_cols(binary: str) -> int:
    info = subprocess.run([os.path.join(BIN, binary), "info", "--json"], capture_output=True,
                          text=True)
    assert info.returncode == 0, info.stderr
    return json.loads(info.stdout)["array_cols"]


def check_clocks(binary: str, args: list[str], out: dict, gates: dict) -> None:
    """Each clock counter against its gates' rising edges; a block without gates, every cycle of
    the program (ArrayCols a cycle for the columns, one per DMA engine)."""
    per_cycle = {"column_clocks": array_cols(binary), "acc_clocks": 1, "activate_clocks": 1,
                 "dma_clocks": DMA_ENGINES}
    edges: dict[str, int] = {}
    columns, column0 = 0, None
    for scope, g in gates.items():
        scope = scope.replace(".", "/") + "/"  # hier=1: "a.b.g_col[0].u_col/mxu_pe_col_4/..."
        if "/u_pe/" in scope:
            continue  # a PE's own gates (rtl/array/mxu_pe.sv) open per operation: no counter has them
        for part, counter in CLOCKS.items():
            if part in scope:
                edges[counter] = edges.get(counter, 0) + g["edges"]
        columns += "/u_col/" in scope
        if "/g_col[0]/u_col/" in scope:
            column0 = g["edges"]
    counted = {k: out[k] for k in per_cycle}
    rtl = {k: edges.get(k, per_cycle[k] * out["cycles"]) for k in per_cycle}
    if column0 is not None and columns != per_cycle["column_clocks"]:
        # COLUMN_CLOCKS adds up every column's cycles (the columns a tile uses run, the rest
        # rest); a device whose columns are verilated apart (hier=1) traces column 0's gate
        # alone, which runs whenever any column does: the sum lies between it and Cols times it.
        assert column0 <= counted["column_clocks"] <= per_cycle["column_clocks"] * column0, (
            binary, args, column0, counted)
        rtl["column_clocks"] = counted["column_clocks"]
    assert rtl == counted, (binary, args, {k: (counted[k], rtl[k]) for k in counted})
    print(f"{binary} {' '.join(args)}: clocks {counted}")


def check(binary: str, args: list[str], work: str) -> None:
    fst = os.path.join(work, "t.fst")
    bias = os.path.join(work, "bias.npy")
    if "--bias" in args:
        import numpy as np
        np.save(bias, (np.arange(int(args[args.index("--n") + 1])) / 8 - 1).astype(np.float32))
        args = [bias if a == "BIAS" else a for a in args]
    gemm = subprocess.run([os.path.join(BIN, binary), "gemm", *args, "--json", "--trace", fst,
                           "--trace-scope", "all", "--trace-cycles", "0"],
                          capture_output=True, text=True)
    assert gemm.returncode == 0, (args, gemm.stderr)
    out = json.loads(gemm.stdout)
    counted = out["buffer_accesses"]
    vcd = subprocess.Popen(["fst2vcd", fst], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    activity = subprocess.run([sys.executable, ACTIVITY], stdin=vcd.stdout, capture_output=True,
                              text=True)
    vcd.wait()
    assert activity.returncode == 0, activity.stderr
    traced = json.loads(activity.stdout)
    srams = traced["srams"]
    check_clocks(binary, args, out, traced["gates"])
    rtl = {k: 0 for k in counted}
    for scope, a in srams.items():
        k = kind(scope)
        rtl[k + "_reads"] += a["reads"]
        rtl[k + "_writes"] += a["writes"]
    assert rtl == counted, (binary, args, {k: (counted[k], rtl[k]) for k in counted
                                           if counted[k] != rtl[k]})
    print(f"{binary} {' '.join(args)}: {counted}")


def main() -> int:
    with tempfile.TemporaryDirectory() as work:
        default, others = sys.argv[3], sys.argv[4:]
        for args in [["--m", "40", "--k", "24", "--n", "20"],
                     ["--m", "33", "--k", "40", "--n", "17", "--ta", "--tb"],
                     ["--m", "32", "--k", "32", "--n", "32", "--dtype", "int8"],
                     ["--m", "20", "--k", "40", "--n", "16", "--bias", "BIAS", "--relu"],
                     ["--m", "30", "--k", "5", "--n", "3"]]:  # one short, narrow tile
            check(default, args, work)
        for binary in others:
            for args in [["--m", "40", "--k", "24", "--n", "20", "--ta", "--tb"],
                         ["--m", "17", "--k", "9", "--n", "13", "--dtype", "int8", "--ta"]]:
                check(binary, args, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
