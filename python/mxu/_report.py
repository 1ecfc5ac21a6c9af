"""What a framework's device mode ran (mxu.torch's, and any other's): per op, module and pass,
the device GEMMs, MACs, cycles, DMA bytes and on-chip buffer traffic, and the products that ran
on the host; the profile as a dict (with the energy and the time at Fmax those counts cost), as
JSON and as a bar chart. Framework-free: it imports neither torch nor jax."""
import json
import threading

from mxu._output import check_outputs, write_whole

# The clock counters: the cycles each gated clock ran (docs/architecture.md, "Clock gating").
CLOCKS = ("column_clocks", "acc_clocks", "activate_clocks", "dma_clocks")
_COUNTED = ("calls", "device_gemms", "device_macs", "device_cycles", "array_macs",
            "dma_read_bytes", "dma_write_bytes", *CLOCKS, "host_products")
# The programs' on-chip traffic (Device.counters()["buffer_accesses"]), priced by the energy model.
ACCESSES = ("ub_reads", "ub_writes", "acc_reads", "acc_writes", "wfifo_reads", "wfifo_writes",
            "transpose_reads", "transpose_writes")
DEFAULT_NODE = 180  # nm: the measured energy table (the others are scaled from it)


def _energy_of(entry, node, device):
    """The energy (uJ) of an entry's counts at `node`, by `mxu bench --energy`'s model, with the
    table of the entry's dtype (the int8 mode's MACs cost less)."""
    from mxu import _mxu  # the energy model is the C++ library's (energy/)
    counts = {"cycles": entry["device_cycles"], "device_macs": entry["array_macs"],
              "dma_read_bytes": entry["dma_read_bytes"],
              "dma_write_bytes": entry["dma_write_bytes"],
              **{k: entry[k] for k in CLOCKS},
              "buffer_accesses": {k: entry["buffer_accesses"][k] for k in ACCESSES},
              "array_rows": device["array_rows"], "array_cols": device["array_cols"],
              "bus_bytes": device["bus_bytes"], "dtype": entry["dtype"]}
    return _mxu.energy(node, counts)["total_uj"]


# The integer mode's share of the totals: the counts of the entries whose dtype is int8.
_INT8_TOTALS = {"device_gemms_int8": "device_gemms", "device_macs_int8": "device_macs",
                "device_cycles_int8": "device_cycles"}


class Report:
    """Totals per (op, module, pass, dtype), filled by the mode from every product it ran; dtype
    "bf16" (the float products) or "int8" (the integer mode's: a quantized model's)."""

    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self._entries = {}
        self._lock = threading.Lock()
        self.device_seconds = 0.0
        self.handler_seconds = 0.0

    def add(self, op, module, phase, dtype="bf16", **counts):
        if dtype not in ("bf16", "int8"):
            raise ValueError(f"dtype must be 'bf16' or 'int8', got {dtype!r}")
        with self._lock:
            entry = self._entries.get((op, module, phase, dtype))
            if entry is None:
                entry = dict(op=op, module=module, phase=phase, dtype=dtype,
                             **{k: 0 for k in _COUNTED},
                             buffer_accesses={k: 0 for k in ACCESSES})
                self._entries[(op, module, phase, dtype)] = entry
            for key, value in counts.items():
                if key == "buffer_accesses":
                    for k in ACCESSES:
                        entry[key][k] += int(value.get(k, 0))
                else:
                    entry[key] += value

    def as_dict(self, device_info, node=DEFAULT_NODE):
        """The profile; energy_uj and seconds_at_fmax from the energy table of `node` (nm)."""
        from mxu import _mxu
        table = _mxu.energy_table(node)  # ValueError naming the nodes there are
        with self._lock:
            ops = [dict(entry, buffer_accesses=dict(entry["buffer_accesses"]))
                   for entry in self._entries.values()]
        peak = self.rows * self.cols
        totals = {k: sum(e[k] for e in ops) for k in _COUNTED}
        totals["buffer_accesses"] = {k: sum(e["buffer_accesses"][k] for e in ops)
                                     for k in ACCESSES}
        totals.update({key: sum(e[counted] for e in ops if e["dtype"] == "int8")
                       for key, counted in _INT8_TOTALS.items()})
        hz = table["clock_mhz"] * 1e6
        for entry in ops:
            entry["energy_uj"] = (_energy_of(entry, node, device_info)
                                  if entry["device_cycles"] else 0.0)
        totals["energy_uj"] = sum(e["energy_uj"] for e in ops)  # each at its dtype's table
        for entry in ops + [totals]:
            cycles = entry["device_cycles"]
            entry["utilization"] = entry["device_macs"] / (cycles * peak) if cycles else 0.0
            entry["dma_bytes"] = entry["dma_read_bytes"] + entry["dma_write_bytes"]
            entry["seconds_at_fmax"] = cycles / hz
        ops.sort(key=lambda e: (e["phase"] != "forward", -e["device_cycles"], e["op"],
                                str(e["module"]), e["dtype"]))
        gemms = totals["device_gemms"]
        overhead = max(0.0, self.handler_seconds - self.device_seconds)
        totals.update(device_seconds=self.device_seconds, mode_overhead_seconds=overhead,
                      mode_overhead_us_per_gemm=overhead / gemms * 1e6 if gemms else 0.0)
        energy = {"node_nm": table["node_nm"],
                  "table": "measured" if table["measured"] else "scaled",
                  "method": table["method"], "clock_mhz": table["clock_mhz"]}
        return {"device": device_info, "energy": energy, "ops": ops, "totals": totals}


def write_report(mode, path, plot=None, node=DEFAULT_NODE):
    """Writes mode.report(node) to `path` as JSON and, with `plot`, a PNG of the device cycles and
    the energy per module, forward beside backward, each bar's value at its end (the project's
    own chart code); returns the report. Each file is written whole or not at all, by the CLI's
    rule (mxu/_output.py): no special files or directories, a symbolic link's target replaced, a
    replaced file's mode kept, the two outputs on two files; both paths are checked before
    anything is written."""
    check_outputs([("report", path)] + ([] if plot is None else [("plot", plot)]))
    report = mode.report(node)

    def write_json(temporary):
        with open(temporary, "w") as f:
            json.dump(report, f, indent=2)
            f.write("\n")

    write_whole(path, write_json, "report")
    if plot is not None:
        from mxu import _mxu  # the chart code is the C++ library's (io/plot)
        # One category per module (the layers of the model in the order of the report's ops;
        # "(no module)" for products outside any), named with the op kinds it ran, forward
        # beside backward.
        modules, kinds = [], {}
        sums = {key: ([], []) for key in ("device_cycles", "energy_uj")}
        for entry in report["ops"]:
            module = "(no module)" if entry["module"] is None else entry["module"]
            if module not in modules:
                modules.append(module)
                kinds[module] = []
                for forward, backward in sums.values():
                    forward.append(0.0)
                    backward.append(0.0)
            kind = entry["op"].replace("aten.", "")
            if kind not in kinds[module]:
                kinds[module].append(kind)
            for key, (forward, backward) in sums.items():
                (forward if entry["phase"] == "forward" else backward)[modules.index(module)] += \
                    entry[key]
        labels = [f"{m} ({', '.join(kinds[m])})" for m in modules]
        totals, energy = report["totals"], report["energy"]
        # Short enough for the narrowest picture (640 px).
        title = (f"{totals['device_gemms']:,} GEMMs, {totals['device_cycles']:,} cycles, "
                 f"{totals['energy_uj']:,.0f} uJ ({energy['node_nm']} nm)" +
                 (f", {totals['host_products']} on the host" if totals["host_products"] else ""))
        panels = [(y_label, labels, [("forward", sums[key][0]), ("backward", sums[key][1])])
                  for key, y_label in (("device_cycles", "device cycles"),
                                       ("energy_uj", f"energy (uJ, {energy['node_nm']} nm)"))]
        write_whole(plot, lambda temporary: _mxu.write_bar_panels(
            temporary, title, panels, horizontal=True, values=True), "plot")
    return report
