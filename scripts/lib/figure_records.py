"""What scripts/gen_figures.py keeps of a recorded run and what a re-run must give again: the
machine-dependent fields it strips, the deterministic keys it compares, and the JSON layout it
writes (a list of flat objects one object per line)."""
import json
import shlex

# Per row of `mxu bench --json`: machine-dependent, neither shown nor compared.
MACHINE_DEPENDENT = ("wall_seconds", "elapsed_seconds", "sim_cycles_per_second",
                     "steps_per_second", "samples_per_second",
                     # mxu gemm --json; the torch examples' --json (and its device_totals)
                     "cycles_per_second", "wall_s", "epoch_s", "train_s", "eval_s",
                     "device_seconds", "mode_overhead_seconds", "mode_overhead_us_per_gemm",
                     # scripts/bench_chips.py: the machine's cores and its wall-time ratios
                     "cores", "wall_over_one_chip")
# Per row: what the same build, command and seed always give (the model's cycles are exact and
# repeatable; the utilizations follow from them).
ROW_KEYS = ("setting", "name", "shape", "m", "k", "n", "ta", "tb", "bias", "relu", "dtype", "macs",
            "latency_cycles", "bytes_per_cycle", "max_in_flight", "cycles", "ideal_cycles",
            "bytes_min", "memory_cycles", "bound_cycles", "bound_by", "array_busy_cycles",
            "dma_read_bytes", "dma_write_bytes", "instructions", "stall_dependency",
            "stall_weights", "stall_fetch", "stall_memory")
SUMMARY_KEYS = ("gemms", "cycles", "ideal_cycles", "bound_cycles")


# Per layer and per device total of a network run (`--topology`): what is deterministic.
LAYER_KEYS = ("name", "device_spec", "setting", "m", "k", "n", "macs", "cycles", "dma_read_bytes",
              "dma_write_bytes", "stall_dependency", "stall_weights", "stall_fetch",
              "stall_memory", "array_busy_cycles")
TOTAL_KEYS = ("device_spec", "setting", "array_rows", "array_cols", "bus_bytes",
              "memory_bytes_per_cycle", "memory_in_flight", "gemms", "macs", "cycles",
              "dma_read_bytes", "dma_write_bytes", "clock_mhz")


def compare_entries(part, committed, fresh, keys, label):
  """Lines naming each of keys that differs between the lists' entries, label(entry) naming it."""
  diffs = [f"{part}: committed {len(committed)}, now {len(fresh)}"] if len(committed) != len(
      fresh) else []
  for c, f in zip(committed, fresh):
    diffs += [f"{part} {label(c)}: {key} committed {c.get(key)!r}, now {f.get(key)!r}"
              for key in keys if c.get(key) != f.get(key)]
  return diffs


def compare(run, committed, fresh):
  """The deterministic figures of fresh that differ from committed's, as lines."""
  if "result" in committed:
    c = strip_machine_dependent({"result": committed["result"]}, run["command"])["result"]
    f = strip_machine_dependent({"result": fresh["result"]}, run["command"])["result"]
    return [f"{run['json']}: {key} committed {c.get(key)!r}, now {f.get(key)!r}"
            for key in sorted(set(c) | set(f)) if c.get(key) != f.get(key)]
  if "lines" in committed:
    diffs = compare_entries("lines", committed["lines"], fresh["lines"],
                            sorted(set().union(*committed["lines"])),
                            lambda l: str(l.get("module", f"pe_stages={l.get('pe_stages')}")))
    return [f"{run['json']}: {d}" for d in diffs]
  diffs = []
  for key in ("backend", "device", "seed", "memory_settings"):
    if committed.get(key) != fresh.get(key):
      diffs.append(f"{key}: committed {committed.get(key)!r}, now {fresh.get(key)!r}")
  if "layers" in committed:
    for part, keys in (("totals", TOTAL_KEYS), ("layers", LAYER_KEYS)):
      diffs += compare_entries(part, committed[part], fresh[part], keys,
                               lambda x: f"{x.get('name', '')} ({x.get('device_spec')})")
    return [f"{run['json']}: {d}" for d in diffs]
  diffs += compare_entries("rows", committed["rows"], fresh["rows"], ROW_KEYS,
                           lambda r: f"{r['name']} ({r['shape']}, setting {r['setting']})")
  for key in SUMMARY_KEYS:
    if committed["summary"].get(key) != fresh["summary"].get(key):
      diffs.append(f"summary: {key} committed {committed['summary'].get(key)!r}, now "
                   f"{fresh['summary'].get(key)!r}")
  return [f"{run['json']}: {d}" for d in diffs]


def strip_machine_dependent(data, command):
  """data less its machine-dependent fields; a network run also less its per-GEMM rows (its
  layers hold the same figures), to keep the committed file small."""
  data["command_line"] = command
  data["argv"] = shlex.split(command)
  if "lines" in data:
    return data
  if "result" in data:
    def strip(value):
      if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in MACHINE_DEPENDENT}
      return [strip(v) for v in value] if isinstance(value, list) else value
    data["result"] = strip(data["result"])
    return data
  if "layers" in data:
    data.pop("rows")
    data["layers"] = [{k: l[k] for k in LAYER_KEYS + ("utilization",) if k in l}
                      for l in data["layers"]]
  for row in data.get("rows", []):
    for key in MACHINE_DEPENDENT:
      row.pop(key, None)
  for key in MACHINE_DEPENDENT:
    data["summary"].pop(key, None)
  return data


def write_json(path, data):
  """Indented, but a list of flat objects (rows, layers) one object per line: a smaller file
  whose diffs still show what moved."""
  def scalar_or_small_dict(y):  # a row's counters by name (buffer_accesses) stay on its line
    return not isinstance(y, list) and (not isinstance(y, dict) or not any(
        isinstance(z, (dict, list)) for z in y.values()))

  def flat(v):
    return isinstance(v, list) and v and all(
        isinstance(x, dict) and all(scalar_or_small_dict(y) for y in x.values()) for x in v)
  parts = []
  for key, value in data.items():
    if flat(value):
      items = ",\n".join("  " + json.dumps(x) for x in value)
      parts.append(f" {json.dumps(key)}: [\n{items}\n ]")
    else:
      parts.append(f" {json.dumps(key)}: " + json.dumps(value, indent=1).replace("\n", "\n "))
  with open(path, "w", encoding="utf-8") as f:
    f.write("{\n" + ",\n".join(parts) + "\n}\n")
