"""The table and JSON of scripts/port_width.sh (which checks the arguments and says what it
measures): a GEMM on the model for each array size and bus width.
Usage: port_width.py MXU SIZE ARRAYS BUSES PE_SUFFIX JSON_FILE
(ARRAYS and BUSES each one argument, space-separated)."""
import json
import subprocess
import sys


def in_flight(bus: int) -> int:
    """The requests the DMA's three engines issue: 8 each, bus/32 each beyond 256 bytes."""
    return 3 * bus // 32 if bus // 32 > 8 else 24


def main(mxu: str, size: str, arrays: str, buses: str, pe: str, json_file: str) -> int:
    buses = buses.split()
    print(f"{'array':<10}" + "".join(f" {'bus=' + b:>12}" for b in buses), flush=True)
    rows = []
    for array in arrays.split():
        print(f"{array:<10}", end="", flush=True)
        for bus in buses:
            spec = f"{array}:bus={bus}{pe}"
            r = subprocess.run([mxu, "gemm", "--backend", "model", "--device", spec, "--m", size,
                                "--k", size, "--n", size, "--mem-bytes-per-cycle", bus,
                                "--mem-in-flight", str(in_flight(int(bus))), "--json"],
                               capture_output=True, text=True)
            if r.returncode:
                print()
                sys.stderr.write(r.stderr)
                print(f"port_width.sh: {spec}: the GEMM failed", file=sys.stderr)
                return 1
            g = json.loads(r.stdout)
            print(f" {100 * g['utilization']:11.1f}%", end="", flush=True)
            rows.append({"device": spec, "size": int(size), "bus_bytes": int(bus),
                         "utilization": g["utilization"], "cycles": g["cycles"]})
        print()
    with open(json_file, "w") as f:
        json.dump(rows, f, indent=4)
        f.write("\n")
    print(f"wrote {json_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
