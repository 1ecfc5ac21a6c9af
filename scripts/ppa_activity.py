#!/usr/bin/env python3
"""Switching activity measured on the RTL, for scripts/ppa.sh's power figures.

Reads a VCD (fst2vcd of `mxu gemm --trace FILE.fst --trace-scope all`) from stdin or a file and
prints one JSON object: "cycles" (rising edges of the top clock in the window) and "scopes", a
map from each scope's path ("mxu_top/u_datapath/u_array/g_col[3]/u_col"...) to [bits, toggles]:
the bits of the signals declared in that scope (not below it) and how many of them changed over
the window, each bit of a vector counted on its own (x and z read as 0; a signal's first value
is its initial state, not a toggle). A toggle rate is toggles / bits / cycles: transitions per
bit per clock cycle, what OpenSTA's set_power_activity -activity takes.
Usage: ppa_activity.py [FILE.vcd]
"""
import json
import sys


def main() -> int:
    src = open(sys.argv[1], encoding="ascii", errors="replace") if len(sys.argv) > 1 else sys.stdin
    scope: list[str] = []
    owners: dict[str, list[tuple[str, int]]] = {}  # id -> [(scope, width)]
    clock_id = None
    for line in src:
        if line.startswith("$scope"):
            scope.append(line.split()[2])
        elif line.startswith("$upscope"):
            scope.pop()
        elif line.startswith("$var"):
            f = line.split()
            width, code, name = int(f[2]), f[3], f[4]
            path = "/".join(scope)
            owners.setdefault(code, []).append((path, width))
            if clock_id is None and name == "clk_i" and len(scope) <= 2:
                clock_id = code
        elif line.startswith("$enddefinitions"):
            break
    last: dict[str, int] = {}
    toggles: dict[str, int] = dict.fromkeys(owners, 0)
    edges = 0
    for line in src:
        c = line[0]
        if c == "#" or c == "$":
            continue
        if c == "b":
            value, code = line[1:].split()
            v = int(value.replace("x", "0").replace("z", "0"), 2)
        elif c in "01xz":
            code = line[1:].strip()
            v = 1 if c == "1" else 0
        else:
            continue
        old = last.get(code)
        last[code] = v
        if old is None:
            continue
        if old != v:
            toggles[code] += bin(old ^ v).count("1")
            if code == clock_id and v == 1:
                edges += 1
    scopes: dict[str, list[int]] = {}
    for code, where in owners.items():
        for path, width in where:
            s = scopes.setdefault(path, [0, 0])
            s[0] += width
            s[1] += toggles[code]
    json.dump({"cycles": edges, "scopes": scopes}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
