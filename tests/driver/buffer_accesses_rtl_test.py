#!/usr/bin/env python3
"""The buffer traffic the driver counts from a program's instructions (driver/buffer_accesses.h,
`buffer_accesses` in `mxu gemm --json`) against the RTL's own SRAM enables: each GEMM traced
whole (every signal), the read and write enables of every mxu_sram_1r1w counted at each rising
edge (scripts/ppa_activity.py), summed per buffer kind, and compared exactly. Plain, transposed
(A and B), int8 and bias + ReLU GEMMs on the default device, and two of them on every other
built device (the CI's 8x4: an array of other proportions, a 64-byte port).

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
    counted = json.loads(gemm.stdout)["buffer_accesses"]
    vcd = subprocess.Popen(["fst2vcd", fst], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    activity = subprocess.run([sys.executable, ACTIVITY], stdin=vcd.stdout, capture_output=True,
                              text=True)
    vcd.wait()
    assert activity.returncode == 0, activity.stderr
    srams = json.loads(activity.stdout)["srams"]
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
                     ["--m", "20", "--k", "40", "--n", "16", "--bias", "BIAS", "--relu"]]:
            check(default, args, work)
        for binary in others:
            for args in [["--m", "40", "--k", "24", "--n", "20", "--ta", "--tb"],
                         ["--m", "17", "--k", "9", "--n", "13", "--dtype", "int8", "--ta"]]:
                check(binary, args, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
