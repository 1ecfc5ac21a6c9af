"""scripts/scaling.sh's rows: a device's table line and JSON object from its measurements, and
the JSON file of every device's.
Usage: scaling_rows.py row ROW.json DEVICE ROWS COLS HIER S BW VERILATE_S VERILATE_MB BUILD_S
                           BUILD_MB GEMM.json UTIL.json
       scaling_rows.py collect SCALING.json NPROC ROW.json..."""
import json
import sys


def row(out, device, rows, cols, hier, s, bw, vs, vm, bs, bm, gemm_json, util_json) -> None:
    """The device's line on stdout and its object in OUT. The times are GNU time's as awk printed
    them, numbers in the JSON as they were written."""
    gemm, util16 = json.load(open(gemm_json)), json.load(open(util_json))["utilization"]
    cps, util, mismatches = (gemm["sim_cycles_per_second"], gemm["utilization"],
                             gemm["mismatches"])
    pecps = round(cps * int(rows) * int(cols))
    check = "bit-exact" if mismatches == 0 else f"{mismatches} mismatches"
    u16 = "-" if util16 is None else f"{100 * util16:.1f}% @{int(bw)}"
    print(f"{device:<18} {hier:>4} {float(vs):10.0f} {vm:>7} {float(bs):7.0f} {bm:>7} "
          f"{s + '^3':>8} {100 * util:5.1f}% {cps:9.0f} {pecps:11.0f} {check:>9} {u16}",
          flush=True)
    obj = {"device": device, "rows": int(rows), "cols": int(cols), "hier": int(hier),
           "verilate_seconds": json.loads(vs), "verilate_peak_mb": int(vm),
           "build_seconds": json.loads(bs), "build_peak_mb": int(bm), "gemm": int(s),
           "utilization": util, "cycles_per_second": cps, "pe_cycles_per_second": pecps,
           "mismatches": mismatches, "util16_bytes_per_cycle": int(bw), "util16": util16}
    with open(out, "w") as f:
        json.dump(obj, f)


def collect(out, nproc, *rows) -> None:
    with open(out, "w") as f:
        json.dump({"nproc": int(nproc), "devices": [json.load(open(r)) for r in rows]}, f,
                  indent=4)
        f.write("\n")


if __name__ == "__main__":
    {"row": row, "collect": collect}[sys.argv[1]](*sys.argv[2:])
