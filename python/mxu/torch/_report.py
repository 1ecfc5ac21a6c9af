"""What the mode ran: per op, module and pass, the device GEMMs, MACs, cycles and DMA bytes, and
the products that ran on the host; the profile as a dict, as JSON and as a bar chart."""
import json
import os
import tempfile
import threading

_COUNTED = ("calls", "device_gemms", "device_macs", "device_cycles", "array_macs",
            "dma_read_bytes", "dma_write_bytes", "host_products")


class Report:
    """Totals per (op, module, pass), filled by the mode from every product it ran."""

    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self._entries = {}
        self._lock = threading.Lock()
        self.device_seconds = 0.0
        self.handler_seconds = 0.0

    def add(self, op, module, phase, **counts):
        with self._lock:
            entry = self._entries.get((op, module, phase))
            if entry is None:
                entry = dict(op=op, module=module, phase=phase, **{k: 0 for k in _COUNTED})
                self._entries[(op, module, phase)] = entry
            for key, value in counts.items():
                entry[key] += value

    def as_dict(self, device_info):
        with self._lock:
            ops = [dict(entry) for entry in self._entries.values()]
        peak = self.rows * self.cols
        totals = {k: sum(e[k] for e in ops) for k in _COUNTED}
        for entry in ops + [totals]:
            cycles = entry["device_cycles"]
            entry["utilization"] = entry["device_macs"] / (cycles * peak) if cycles else 0.0
            entry["dma_bytes"] = entry["dma_read_bytes"] + entry["dma_write_bytes"]
        ops.sort(key=lambda e: (e["phase"] != "forward", -e["device_cycles"], e["op"],
                                str(e["module"])))
        gemms = totals["device_gemms"]
        overhead = max(0.0, self.handler_seconds - self.device_seconds)
        totals.update(device_seconds=self.device_seconds, mode_overhead_seconds=overhead,
                      mode_overhead_us_per_gemm=overhead / gemms * 1e6 if gemms else 0.0)
        return {"device": device_info, "ops": ops, "totals": totals}


def _write_whole(path, write):
    """Writes path through a temporary file in its folder, renamed into place: whole or not at
    all."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=".mxu-report-", dir=folder)
    os.close(fd)
    try:
        write(temporary)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def write_report(mode, path, plot=None):
    """Writes mode.report() to `path` as JSON and, with `plot`, a PNG bar chart of the device
    cycles per op, forward beside backward (the project's own chart code); returns the report."""
    report = mode.report()

    def write_json(temporary):
        with open(temporary, "w") as f:
            json.dump(report, f, indent=2)
            f.write("\n")

    _write_whole(path, write_json)
    if plot is not None:
        from mxu import _mxu  # the chart code is the C++ library's (io/plot)
        # One category per op kind (the JSON has the modules): few, readable labels.
        labels, forward, backward = [], [], []
        for entry in report["ops"]:
            label = entry["op"].replace("aten.", "")
            if label not in labels:
                labels.append(label)
                forward.append(0.0)
                backward.append(0.0)
            (forward if entry["phase"] == "forward" else backward)[labels.index(label)] += \
                entry["device_cycles"]
        totals = report["totals"]
        title = (f"mxu.torch: {totals['device_gemms']:,} device GEMMs, "
                 f"{totals['device_cycles']:,} cycles, {totals['host_products']} host products")
        _write_whole(plot, lambda temporary: _mxu.write_bar_chart(
            temporary, title, "device cycles", labels,
            [("forward", forward), ("backward", backward)]))
    return report
