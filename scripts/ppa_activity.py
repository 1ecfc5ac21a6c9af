#!/usr/bin/env python3
"""Switching activity measured on the RTL, for scripts/ppa.sh's power figures.

Reads a VCD (fst2vcd of `mxu gemm --trace FILE.fst --trace-scope all`) from stdin or a file and
prints one JSON object: "cycles" (rising edges of the top clock in the window) and "scopes", a
map from each scope's path ("mxu_top/u_datapath/u_array/g_col[3]/u_col"...) to [bits, toggles]:
the bits of the signals declared in that scope (not below it) and how many of them changed over
the window, each bit of a vector counted on its own (x and z read as 0; a signal's first value
is its initial state, not a toggle); a clock domain's wrapper (rtl/prim/mxu_clock_domain.sv),
whose signals are names for its block's nets, is left out. A toggle rate is toggles / bits /
cycles: transitions per bit per clock cycle, what OpenSTA's set_power_activity -activity takes.
"srams": each SRAM's scope (one that declares mxu_sram_1r1w's ports: rd_en_i, rd_addr_i,
rd_data_o, wr_en_i, wr_data_i) to {"width", "addr_bits", "reads", "writes"}: the clock's rising
edges in the window at which rd_en_i / wr_en_i was 1 (its value before the edge's time step:
what the macro samples), the accesses that its per-access energy multiplies.
"gates": each clock gate's scope (one that declares mxu_icg's ports: clk_i, en_i, clk_o) to
{"edges"}: the rising edges in the window at which its enable (en_i) was 1, as for the SRAMs: the
edges its gated clock passes in silicon; edges / cycles is the gate's duty, the share of the top
clock's cycles in which its registers are clocked.
Usage: ppa_activity.py [FILE.vcd]
"""
import json
import sys


def source():
    """The VCD to read: FILE or stdin; --help prints the usage; anything else is one line, exit 2."""
    args = sys.argv[1:]
    if args in (["-h"], ["--help"]):
        print(__doc__.strip())
        sys.exit(0)
    if len(args) > 1 or (args and args[0].startswith("-")):
        print(f"ppa_activity.py: expected one FILE.vcd or none (stdin), got {' '.join(args)}",
              file=sys.stderr)
        sys.exit(2)
    if not args:
        return sys.stdin
    try:
        return open(args[0], encoding="ascii", errors="replace")
    except OSError as e:
        print(f"ppa_activity.py: {args[0]}: {e.strerror}", file=sys.stderr)
        sys.exit(2)


def main() -> int:
    src = source()
    scope: list[str] = []
    owners: dict[str, list[tuple[str, int]]] = {}  # id -> [(scope, width)]
    clock_id = None
    vars_in: dict[str, dict[str, tuple[str, int]]] = {}  # scope -> name -> (id, width)
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
            vars_in.setdefault(path, {})[name] = (code, width)
            if clock_id is None and name == "clk_i" and len(scope) <= 2:
                clock_id = code
        elif line.startswith("$enddefinitions"):
            break
    ports = ("rd_en_i", "rd_addr_i", "rd_data_o", "wr_en_i", "wr_data_i")
    srams = {path: v for path, v in vars_in.items() if all(p in v for p in ports)}
    # A wrapper with the same port names (the accumulators) is not the macro: keep the innermost.
    srams = {path: v for path, v in srams.items()
             if not any(o.startswith(path + "/") for o in srams)}
    # A gate's clock pulses at a rising edge when its enable was 1 before it (the latch holds
    # it through the high phase); counted from the enable, not clk_o, whose simulation also
    # pulses while the domain is in reset (rtl/prim/mxu_icg.sv), which silicon's gate does not.
    gates = {path: v["en_i"][0] for path, v in vars_in.items()
             if all(p in v for p in ("clk_i", "en_i", "clk_o"))}
    enables = sorted({v[p][0] for v in srams.values() for p in ("rd_en_i", "wr_en_i")} |
                     set(gates.values()))
    before: dict[str, int] = dict.fromkeys(enables, 0)  # each enable's value before this step
    high: dict[str, int] = dict.fromkeys(enables, 0)    # rising edges with the enable at 1
    last: dict[str, int] = {}
    toggles: dict[str, int] = dict.fromkeys(owners, 0)
    edges = 0
    for line in src:
        c = line[0]
        if c == "#":
            for e in enables:
                before[e] = last.get(e, 0)
            continue
        if c == "$":
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
                for e in enables:
                    high[e] += before[e]
    # A clock domain's wrapper (mxu_clock_domain: clk_i, active_i, clk_o, clock_on_o; flattened
    # into its block by the synthesis) declares only names for its block's nets: its scope and
    # its generate blocks are left out, so that no net (the clocks above all) counts twice. A gate
    # inside it stays a gate.
    wrappers = [path for path, v in vars_in.items()
                if all(p in v for p in ("clk_i", "active_i", "clk_o", "clock_on_o"))]

    def alias(path: str) -> bool:
        return any(path == w or (path.startswith(w + "/") and
                                 not any(path == g or path.startswith(g + "/") for g in gates))
                   for w in wrappers)

    scopes: dict[str, list[int]] = {}
    for code, where in owners.items():
        for path, width in where:
            if alias(path):
                continue
            s = scopes.setdefault(path, [0, 0])
            s[0] += width
            s[1] += toggles[code]
    out_srams = {path: {"width": v["wr_data_i"][1], "addr_bits": v["rd_addr_i"][1],
                        "reads": high[v["rd_en_i"][0]], "writes": high[v["wr_en_i"][0]]}
                 for path, v in srams.items()}
    out_gates = {path: {"edges": high[code]} for path, code in gates.items()}
    json.dump({"cycles": edges, "scopes": scopes, "srams": out_srams, "gates": out_gates},
              sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
