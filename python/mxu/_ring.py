"""The interconnect of several simulated chips, and the report of a run on them. Framework-free:
mxu.keras's replicas and mxu.torch's DDP hook both charge their collectives here.

Ring charges each collective on `mxu train`'s ring model (train/interconnect.h, through
mxu.ring_all_reduce_cycles / ring_all_gather_cycles): an all-reduce is 2 (N - 1) steps, an
all-gather N - 1, each step every chip sending ceil(bytes / N) to its neighbour. It counts the
bytes that cross links and prices them at `link_pj_per_bit` (an assumed figure, LINK_PJ_PER_BIT).

report() makes the run's report from each chip's profile (mxu/_report.py's dict): per chip and
in total, the interconnect, and the run's time at Fmax (the busiest chip's compute, step by step
where the caller knows it, plus the interconnect: the device does not overlap the two) and its
simulated scaling efficiency (the chips' mean compute over that time).
"""
import threading

from mxu import _mxu

# A chip-to-chip link's energy per bit: no figure is published for a TPU's links. Assumed from a
# published board-level link: IBM Research's "A 1.4-pJ/b, power-scalable 16x12-Gb/s
# source-synchronous I/O with DFE receiver in 32nm SOI CMOS technology" measured 1.9 pJ/b over
# 20-inch Megtron-6 PCB traces.
LINK_PJ_PER_BIT = 1.9
LINK_ENERGY_SOURCE = ("assumed: 1.9 pJ/bit, IBM's 16x12-Gb/s source-synchronous I/O in 32 nm "
                      "SOI over 20-inch board traces (a TPU's link energy is not published)")
_DEFAULTS = {"link_bytes_per_cycle": 88, "link_latency_cycles": 350}


LINK_SETTINGS = ("link_bytes_per_cycle", "link_latency_cycles", "link_pj_per_bit")


def check_links(links, who):
    """TypeError naming the first keyword of `links` that is not a link setting."""
    for name in links:
        if name not in LINK_SETTINGS:
            raise TypeError(f"{who}: unknown argument {name!r} (the links take "
                            f"{', '.join(LINK_SETTINGS)})")


def _check_positive(name, value, who):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{who}: {name} must be a positive number, got {value!r}")


class Ring:
    """The collectives of `chips` chips on a ring, counted as they are charged (thread-safe)."""

    def __init__(self, chips, link_bytes_per_cycle=_DEFAULTS["link_bytes_per_cycle"],
                 link_latency_cycles=_DEFAULTS["link_latency_cycles"],
                 link_pj_per_bit=LINK_PJ_PER_BIT, who="mxu"):
        if isinstance(chips, bool) or not isinstance(chips, int) or chips < 1:
            raise ValueError(f"{who}: chips must be a whole number >= 1, got {chips!r}")
        _check_positive("link_pj_per_bit", link_pj_per_bit, who)
        self.chips = chips
        self.links = {"link_bytes_per_cycle": link_bytes_per_cycle,
                      "link_latency_cycles": link_latency_cycles}
        # The bindings check the two link settings (one ValueError line naming the argument).
        _mxu.ring_all_reduce_cycles(0, chips, **self.links)
        self.link_pj_per_bit = float(link_pj_per_bit)
        self._lock = threading.Lock()
        self.counts = {"all_reduces": 0, "all_reduce_bytes": 0, "all_reduce_cycles": 0,
                       "all_gathers": 0, "all_gather_bytes": 0, "all_gather_cycles": 0,
                       "link_bytes": 0}

    def _chunk(self, nbytes):
        return -(-int(nbytes) // self.chips)

    def all_reduce(self, nbytes):
        """Charges a ring all-reduce of `nbytes` (each chip's buffer); returns its cycles."""
        cycles = _mxu.ring_all_reduce_cycles(int(nbytes), self.chips, **self.links)
        moved = 2 * (self.chips - 1) * self.chips * self._chunk(nbytes)
        with self._lock:
            self.counts["all_reduces"] += 1
            self.counts["all_reduce_bytes"] += int(nbytes)
            self.counts["all_reduce_cycles"] += cycles
            self.counts["link_bytes"] += moved
        return cycles

    def all_gather(self, nbytes):
        """Charges a ring all-gather ending with `nbytes` on every chip; returns its cycles."""
        cycles = _mxu.ring_all_gather_cycles(int(nbytes), self.chips, **self.links)
        moved = (self.chips - 1) * self.chips * self._chunk(nbytes)
        with self._lock:
            self.counts["all_gathers"] += 1
            self.counts["all_gather_bytes"] += int(nbytes)
            self.counts["all_gather_cycles"] += cycles
            self.counts["link_bytes"] += moved
        return cycles

    def summary(self):
        with self._lock:
            counts = dict(self.counts)
        counts["cycles"] = counts["all_reduce_cycles"] + counts["all_gather_cycles"]
        counts["link_energy_uj"] = counts["link_bytes"] * 8 * self.link_pj_per_bit * 1e-6
        return {"chips": self.chips, **self.links, "link_pj_per_bit": self.link_pj_per_bit,
                "link_energy_source": LINK_ENERGY_SOURCE, **counts}


_SUMMED = ("calls", "device_gemms", "device_macs", "device_cycles", "array_macs",
           "dma_read_bytes", "dma_write_bytes", "column_clocks", "acc_clocks", "activate_clocks",
           "dma_clocks", "host_products", "energy_uj", "device_seconds",
           "mode_overhead_seconds", "dma_bytes", "seconds_at_fmax", "device_gemms_int8",
           "device_macs_int8", "device_cycles_int8")


def _merged_entry(entries):
    out = dict(entries[0], buffer_accesses=dict(entries[0]["buffer_accesses"]))
    for entry in entries[1:]:
        for key in _SUMMED:
            if key in entry:
                out[key] += entry[key]
        for key, value in entry["buffer_accesses"].items():
            out["buffer_accesses"][key] += value
    return out


def merge(reports):
    """One report ({'device', 'energy', 'ops', 'totals'}) adding up the chips' reports: each op
    entry summed over the chips, utilization over all their cycles (chip 0's device)."""
    groups = {}
    for report in reports:
        for entry in report["ops"]:
            key = (entry["op"], entry["module"], entry["phase"], entry["dtype"])
            groups.setdefault(key, []).append(entry)
    ops = [_merged_entry(entries) for entries in groups.values()]
    totals = _merged_entry([r["totals"] for r in reports])
    device = reports[0]["device"]
    peak = device["array_rows"] * device["array_cols"]
    for entry in ops + [totals]:
        cycles = entry["device_cycles"]
        entry["utilization"] = entry["device_macs"] / (cycles * peak) if cycles else 0.0
    gemms = totals["device_gemms"]
    totals["mode_overhead_us_per_gemm"] = (totals["mode_overhead_seconds"] / gemms * 1e6
                                           if gemms else 0.0)
    ops.sort(key=lambda e: (e["phase"] != "forward", -e["device_cycles"], e["op"],
                            str(e["module"]), e["dtype"]))
    return {"device": device, "energy": reports[0]["energy"], "ops": ops, "totals": totals}


def report(reports, ring, compute_cycles=None, steps=None):
    """The run on several chips: `reports` each chip's profile (rank order), `ring` the Ring its
    collectives were charged on, `compute_cycles` the busiest chip's cycles summed step by step
    (None: the busiest chip's total), `steps` how many steps ran (None where unknown). The
    merged profile (merge), with 'chips' (each chip's totals and ops), 'interconnect' and
    'step_time' added."""
    out = merge(reports)
    out["chips"] = [{"rank": rank, **{k: r["totals"][k] for k in
                                      ("device_gemms", "device_macs", "device_cycles",
                                       "host_products", "utilization", "energy_uj",
                                       "seconds_at_fmax")}, "ops": r["ops"]}
                    for rank, r in enumerate(reports)]
    link = ring.summary()
    out["interconnect"] = link
    per_chip = [r["totals"]["device_cycles"] for r in reports]
    critical = max(per_chip) if compute_cycles is None else int(compute_cycles)
    cycles = critical + link["cycles"]
    hz = out["energy"]["clock_mhz"] * 1e6
    mean = sum(per_chip) / len(per_chip)
    out["step_time"] = {
        "steps": steps, "compute_cycles": critical, "communication_cycles": link["cycles"],
        "cycles": cycles, "seconds_at_fmax": cycles / hz,
        "scaling_efficiency": mean / cycles if cycles else 1.0}
    out["totals"]["energy_uj_with_links"] = out["totals"]["energy_uj"] + link["link_energy_uj"]
    return out
