#!/usr/bin/env python3
"""Generates the tables of measured figures in docs/ from committed benchmark JSON (one source
for each table), so that a table cannot drift from its figures.

Each source is listed in docs/figures/sources.json: its name, the JSON file it reads (under
docs/figures/), the exact command that made that JSON, the date it was made, and the Markdown
page whose table it writes. The table sits between

  <!-- BEGIN GENERATED: NAME (scripts/gen_figures.py) -->
  <!-- END GENERATED: NAME -->

on that page (the prose outside the markers is kept), and it says its date and its command. A
source may have several runs (a command and JSON each; e.g. one per network). A figure quoted in
prose, in README.md or docs/*.md, is written as

  <!-- fig SOURCE PATH FORMAT -->VALUE<!-- /fig -->

(FIGURE below) and filled from the source's JSON the same way. Machine-dependent fields of the
JSON (wall_seconds, sim_cycles_per_second) are never shown and never compared.

Each source also names its "inputs", the files its figures are computed from (globs, or names of
the file's "input_sets"); --record keeps their content hash as "inputs_sha256"
(scripts/lib/figure_inputs.py), and --check fails when they changed after the recording, naming
the source and the command that re-records it: a source too slow to re-run in the check cannot go
stale unseen. A source not yet recorded against its inputs is named, and checked by its JSON only.

Usage: scripts/gen_figures.py                 rewrite every generated table that differs
       scripts/gen_figures.py --check         rewrite nothing; exit 1 when a table differs from
                                              what its JSON gives, or when re-running a source's
                                              command (model backend: seconds) moves any
                                              deterministic figure (cycles, ideal, bound, DMA
                                              bytes, stalls) from the committed JSON; a source
                                              with "rerun": false (the RTL's table: minutes) is
                                              checked against its JSON only; --no-rerun: no
                                              source is re-run (the docs against the JSON only)
       scripts/gen_figures.py --record NAME   re-run NAME's command, write its JSON (less the
                                              machine-dependent fields), date it today, and
                                              regenerate the tables
Options: --build DIR (default build/): where `build/bin/mxu` in a command is looked for.
Standard library only.
"""

import datetime
import fcntl
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from one_line_parser import OneLineParser  # noqa: E402
import figure_inputs  # noqa: E402
from figure_records import compare, strip_machine_dependent, write_json  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "docs" / "figures" / "sources.json"

class FigureError(Exception):
  pass


def load_sources_file():
  """sources.json whole: its "sources" and the "input_sets" they name."""
  with open(SOURCES, encoding="utf-8") as f:
    return json.load(f)


def save_record(source):
  """Writes one recorded source's date and digest into sources.json as it is now, under a lock,
  leaving every other entry as it is: records of different sources may run side by side (each
  takes minutes) without one undoing another's. Written whole (a temporary renamed); returns
  the file's new content."""
  lock = Path(tempfile.gettempdir()) / ("mxu-gen-figures-" + hashlib.sha256(
      str(ROOT).encode()).hexdigest()[:16] + ".lock")
  with open(lock, "w") as held:
    fcntl.flock(held, fcntl.LOCK_EX)
    fresh = load_sources_file()
    for entry in fresh["sources"]:
      if entry["name"] == source["name"]:
        entry["date"], entry["inputs_sha256"] = source["date"], source["inputs_sha256"]
    temporary = SOURCES.with_name(SOURCES.name + ".tmp")
    with open(temporary, "w", encoding="utf-8") as f:
      json.dump(fresh, f, indent=2)
      f.write("\n")
    os.replace(temporary, SOURCES)
  return fresh


def load_sources():
  return load_sources_file()["sources"]


def inputs_digest(source, sets):
  """The hash of what source's figures are computed from (scripts/lib/figure_inputs.py)."""
  if not source.get("inputs"):
    raise FigureError(f"source {source['name']}: no \"inputs\" (the files its figures are "
                      f"computed from) in {SOURCES.relative_to(ROOT)}")
  try:
    return figure_inputs.digest(ROOT, source["inputs"], sets)
  except figure_inputs.InputError as e:
    raise FigureError(f"source {source['name']}: {e}")


def inputs_problems(sources, sets):
  """A line for each source whose inputs changed after its recording; and the names of those
  never recorded against their inputs."""
  problems, unrecorded = [], []
  for source in sources:
    if source.get("snapshot"):  # a past commit's figures, kept to compare with: not re-made
      continue
    now = inputs_digest(source, sets)
    if "inputs_sha256" not in source:
      unrecorded.append(source["name"])
    elif source["inputs_sha256"] != now:
      problems.append(f"source {source['name']}: its inputs ({', '.join(source['inputs'])}) "
                      f"changed after it was recorded on {source['date']}: re-record it with "
                      f"scripts/gen_figures.py --record {source['name']}")
  return problems, unrecorded


def runs(source):
  """A source's runs, each {json, command}: its "runs" list, or the source itself."""
  return source.get("runs") or [{"json": source["json"], "command": source["command"]}]


def load_json(run):
  if not (ROOT / run["json"]).is_file():
    raise FigureError(f"{run['json']} does not exist: run scripts/gen_figures.py --record NAME "
                      "for its source")
  with open(ROOT / run["json"], encoding="utf-8") as f:
    data = json.load(f)
  if data.get("command_line") not in (None, run["command"]):
    raise FigureError(f"{run['json']}: made by `{data['command_line']}`, not by the command "
                      f"{SOURCES.relative_to(ROOT)} gives (`{run['command']}`)")
  return data


def fmt(n):
  return f"{n:,}"


def pct(x):
  return f"{100 * x:.1f}%"


def bench_table(source, datas):
  """The Markdown lines of a `mxu bench --json` table (deterministic fields only)."""
  data = datas[0]
  dev = data["device"]
  mems = "; ".join(f"latency {m['latency_cycles']} cycles, {m['bytes_per_cycle']} B/cycle, "
                   f"{m['max_in_flight']} in flight" for m in data["memory_settings"])
  intro = (
      f"Generated by `scripts/gen_figures.py` from `{source['json']}`, measured "
      f"{source['date']} with `{source['command']}` ({data['backend']} backend, "
      f"{dev['array_rows']} x {dev['array_cols']} array, {dev['pe_stages']}-stage PE; memory: "
      f"{mems}; seed {data['seed']}). Every figure here is deterministic, and the test "
      "`figures_up_to_date` re-runs the command and fails when one moves; wall times and "
      "cycles/s are machine-dependent and left out.")
  lines = textwrap.wrap(intro, 100, break_on_hyphens=False, break_long_words=False) + [""]
  several = len(data["memory_settings"]) > 1
  head = ["GEMM", "M x K x N", "cycles", "ideal", "bound", "% of ideal", "% of bound",
          "DMA read B", "DMA write B", "st.dep", "st.wts", "st.fch", "st.mem"]
  if several:
    head.insert(0, "memory")
  lines.append("| " + " | ".join(head) + " |")
  lines.append("|" + "---|" * len(head))
  for r in data["rows"]:
    name = "" if r["name"] == r["shape"] else r["name"]
    bound = fmt(r["bound_cycles"]) + (" (memory)" if r["bound_by"] == "memory" else "")
    cells = [name, r["shape"], fmt(r["cycles"]), fmt(r["ideal_cycles"]), bound,
             pct(r["utilization_ideal"]), pct(r["utilization_bound"]), fmt(r["dma_read_bytes"]),
             fmt(r["dma_write_bytes"]), fmt(r["stall_dependency"]), fmt(r["stall_weights"]),
             fmt(r["stall_fetch"]), fmt(r["stall_memory"])]
    if several:
      cells.insert(0, str(r["setting"]))
    lines.append("| " + " | ".join(cells) + " |")
  s = data["summary"]
  total = [f"**all {s['gemms']}**", "", fmt(s["cycles"]), fmt(s["ideal_cycles"]),
           fmt(s["bound_cycles"]), pct(s["utilization_ideal"]), pct(s["utilization_bound"]),
           "", "", "", "", "", ""]
  if several:
    total.insert(0, "")
  lines.append("| " + " | ".join(total) + " |")
  lines.append("")
  lines += textwrap.wrap(
      "bound: max(ideal, the bytes of A, B, C and the bias once / the memory's bytes per cycle), "
      "\"(memory)\" where the bytes set it; st.*: stall cycles (STALL_DEPENDENCY, STALL_WEIGHTS, "
      "STALL_FETCH, STALL_MEMORY).", 100, break_on_hyphens=False, break_long_words=False)
  return lines


def rtl_vs_model_table(source, datas):
  """The RTL's cycles per GEMM beside the model's (source["model"]: the model's bench JSON of the
  same table, device, memory and seed)."""
  data = datas[0]
  with open(ROOT / source["model"], encoding="utf-8") as f:
    model = json.load(f)
  for key in ("device", "seed", "memory_settings"):
    if model.get(key) != data.get(key):
      raise FigureError(f"{source['json']} and {source['model']} differ in {key}")
  model_rows = {(r["name"], r["shape"], r["setting"]): r for r in model["rows"]}
  dev = data["device"]
  intro = (
      f"Generated by `scripts/gen_figures.py` from `{source['json']}`, measured {source['date']} "
      f"with `{source['command']}` ({dev['array_rows']} x {dev['array_cols']} array, "
      f"{dev['pe_stages']}-stage PE, seed {data['seed']}; every result bit-exact against the "
      f"host: {data['summary'].get('checked', 0):,} outputs, "
      f"{data['summary'].get('mismatches', 0)} mismatches), beside `{source['model']}` (the "
      "model's table above). The RTL's cycles are exact and repeatable but take minutes to "
      "re-run, so the test checks this table against its JSON; the model's are re-run.")
  lines = textwrap.wrap(intro, 100, break_on_hyphens=False, break_long_words=False) + [""]
  lines.append("| GEMM | M x K x N | ideal | RTL cycles (utilization) | model cycles (utilization) "
               "| model vs RTL |")
  lines.append("|---|---|---|---|---|---|")
  diffs = []
  for r in data["rows"]:
    m = model_rows.get((r["name"], r["shape"], r["setting"]))
    if m is None:
      raise FigureError(f"{source['model']} has no row {r['name']} ({r['shape']})")
    diff = (m["cycles"] - r["cycles"]) / r["cycles"]
    diffs.append(diff)
    name = "" if r["name"] == r["shape"] else r["name"]
    lines.append(f"| {name} | {r['shape']} | {fmt(r['ideal_cycles'])} | {fmt(r['cycles'])} "
                 f"({pct(r['utilization_ideal'])}) | {fmt(m['cycles'])} "
                 f"({pct(m['utilization_ideal'])}) | {100 * diff:+.2f}% |")
  rtl_sum = sum(r["cycles"] for r in data["rows"])
  model_sum = sum(model_rows[(r["name"], r["shape"], r["setting"])]["cycles"]
                  for r in data["rows"])
  lines.append(f"| **all {len(data['rows'])}** |  |  | {fmt(rtl_sum)} | {fmt(model_sum)} | "
               f"{100 * (model_sum - rtl_sum) / rtl_sum:+.2f}% |")
  lines.append("")
  lines += textwrap.wrap(
      f"The model against the RTL: from {100 * min(diffs):+.2f}% to {100 * max(diffs):+.2f}% per "
      f"GEMM, {100 * (model_sum - rtl_sum) / rtl_sum:+.2f}% over the {len(diffs)}.", 100,
      break_on_hyphens=False, break_long_words=False)
  return lines


def megabytes(n):
  return f"{n / 1e6:.1f}"


def networks_table(source, datas):
  """Per network (a run each: `mxu bench --topology NET.csv --sweep ...`) and per device of
  source["devices"], the network's totals; then every device of source["sweep_of"]'s sweep."""
  lines = textwrap.wrap(
      f"Generated by `scripts/gen_figures.py` from the JSON of the commands in "
      f"`docs/figures/sources.json` (source `{source['name']}`), measured {source['date']}: "
      "`build/bin/mxu bench --backend model --topology topologies/NET.csv --sweep "
      f"{datas[0]['argv'][datas[0]['argv'].index('--sweep') + 1]} --json ...` per "
      "network, each device's memory as wide as its port (the default). Every figure is "
      "deterministic; the test `figures_up_to_date` re-runs the commands and fails when one "
      "moves.", 100, break_on_hyphens=False, break_long_words=False) + [""]
  lines.append("| network | array | layers | MACs | cycles | utilization | DMA read / written (MB) "
               "| st.mem | layers < 80% | layers from ... to |")
  lines.append("|---|---|---|---|---|---|---|---|---|---|")
  for spec in source["devices"]:
    for data in datas:
      net = Path(data["topology"]["file"]).stem
      total = next(t for t in data["totals"] if t["device_spec"] == spec)
      layers = [l for l in data["layers"] if l["device_spec"] == spec]
      below = sum(1 for l in layers if l["utilization"] < 0.8)
      st_mem = sum(l["stall_memory"] for l in layers)
      low = min(layers, key=lambda l: l["utilization"])
      high = max(layers, key=lambda l: l["utilization"])
      lines.append(
          f"| {net} | {total['array_rows']}x{total['array_cols']} | {total['gemms']} | "
          f"{total['macs'] / 1e9:.2f} G | {fmt(total['cycles'])} | **{pct(total['utilization'])}** "
          f"| {megabytes(total['dma_read_bytes'])} / {megabytes(total['dma_write_bytes'])} | "
          f"{fmt(st_mem)} | {below} | {low['name']} {pct(low['utilization'])} ... "
          f"{high['name']} {pct(high['utilization'])} |")
  sweep = next(d for d in datas if Path(d["topology"]["file"]).stem == source["sweep_of"])
  clock = sweep["totals"][0]["clock_mhz"]
  lines += ["", f"{source['sweep_of']} on every device of the sweep (time at {clock:.1f} MHz: "
            "`mxu bench`'s default, the Fmax the PPA measured at 180 nm, `energy/180nm.json`):",
            "",
            "| device | memory B/cycle | cycles | utilization | DMA bytes | time |",
            "|---|---|---|---|---|---|"]
  for t in sweep["totals"]:
    lines.append(f"| {t['device_spec']} | {t['memory_bytes_per_cycle']} | {fmt(t['cycles'])} | "
                 f"{pct(t['utilization'])} | {megabytes(t['dma_bytes'])} MB | "
                 f"{t['milliseconds']:.3g} ms |")
  return lines


def pe_cost_table(source, datas):
  """Per PE depth: Yosys's cells, flip-flops and longest stage with the int8 path and without
  (runs 0 and 1, scripts/hw_cost.sh --json lines), and the model's cycles on a few GEMMs at that
  depth (run 2, a bench --sweep over 16x16:pe=N)."""
  with_int8 = {l["pe_stages"]: l for l in datas[0]["lines"]}
  without = {l["pe_stages"]: l for l in datas[1]["lines"]}
  bench = datas[2]
  shapes = []
  for r in bench["rows"]:
    if r["shape"] not in shapes:
      shapes.append(r["shape"])
  cmds = [r["command"] for r in runs(source)]
  lines = textwrap.wrap(
      f"Generated by `scripts/gen_figures.py`, measured {source['date']} with `{cmds[0]}` and "
      f"`{cmds[1]}` (Yosys, the PE flattened and mapped to two-input gates; the longest path "
      "between registers by `ltp -noff`; without the int8 path in brackets) and "
      f"`{cmds[2]}` (the model's cycles; the RTL agrees within 20 cycles where built). The test "
      "`figures_up_to_date` re-runs all three (about two minutes).", 100,
      break_on_hyphens=False, break_long_words=False) + [""]
  head = ["PE stages", "cells", "flip-flops", "longest stage (gates)"] + shapes
  lines.append("| " + " | ".join(head) + " |")
  lines.append("|" + "---|" * len(head))
  for n in sorted(with_int8):
    a, b = with_int8[n], without[n]
    stages = f"**{n}** (default)" if n == source.get("default") else str(n)
    cells = [stages, f"{fmt(a['cells'])} ({fmt(b['cells'])})",
             f"{fmt(a['flip_flops'])} ({fmt(b['flip_flops'])})",
             f"{a['max_stage_depth']} ({b['max_stage_depth']})"]
    for shape in shapes:
      r = next(r for r in bench["rows"]
               if r["shape"] == shape and r["device_spec"] == f"16x16:pe={n}")
      cells.append(f"{fmt(r['cycles'])} ({pct(r['utilization_ideal'])})")
    lines.append("| " + " | ".join(cells) + " |")
  return lines


def intro_lines(source, what):
  cmds = " and ".join(f"`{r['command']}`" for r in runs(source))
  return textwrap.wrap(
      f"Generated by `scripts/gen_figures.py`, measured {source['date']} with {cmds} ({what}). "
      "Every figure is deterministic; the test `figures_up_to_date` re-runs the command and fails "
      "when one moves.", 100, break_on_hyphens=False, break_long_words=False) + [""]


def memory_settings_table(source, datas):
  """Per memory setting (a row) and shape (a column): cycles and utilization."""
  data = datas[0]
  shapes = []
  for r in data["rows"]:
    if r["shape"] not in shapes:
      shapes.append(r["shape"])
  lines = intro_lines(source, "model backend, default device")
  lines.append("| latency | bytes/cycle | in flight | " + " | ".join(shapes) + " |")
  lines.append("|" + "---|" * (3 + len(shapes)))
  for i, m in enumerate(data["memory_settings"]):
    cells = [str(m["latency_cycles"]), str(m["bytes_per_cycle"]), str(m["max_in_flight"])]
    for shape in shapes:
      r = next(r for r in data["rows"] if r["setting"] == i and r["shape"] == shape)
      cells.append(f"{fmt(r['cycles'])} ({pct(r['utilization_ideal'])})")
    lines.append("| " + " | ".join(cells) + " |")
  return lines


def int8_table(source, datas):
  """Per device and shape, the bf16 row beside its :int8 twin: cycles and DMA bytes read."""
  data = datas[0]
  lines = intro_lines(source, "model backend, each device's memory as wide as its port")
  lines.append("| device | shape | bf16 cycles | int8 cycles | bf16 read | int8 read |")
  lines.append("|---|---|---|---|---|---|")
  for r in data["rows"]:
    if r["dtype"] == "int8":
      continue
    twin = next(t for t in data["rows"] if t["device_spec"] == r["device_spec"]
                and t["shape"] == r["shape"] + ":int8")
    change = (twin["cycles"] - r["cycles"]) / r["cycles"]
    lines.append(f"| {r['device_spec']} | {r['shape']} | {fmt(r['cycles'])} | "
                 f"{fmt(twin['cycles'])} ({100 * change:+.1f}%) | "
                 f"{r['dma_read_bytes'] / 1e6:.2f} MB | {twin['dma_read_bytes'] / 1e6:.2f} MB |")
  return lines


def train_table(source, datas):
  """One row per run of `mxu train --json` (a backend each)."""
  lines = intro_lines(source, "wall times are machine-dependent and left out; the RTL's run "
                      "takes minutes, so its JSON is checked, not re-run")
  lines.append("| backend | test accuracy | final train loss | steps | GEMMs | device cycles / step "
               "| utilization |")
  lines.append("|---|---|---|---|---|---|---|")
  for data in datas:
    r = data["result"]
    device = r["backend"] != "host"
    lines.append(f"| {r['backend']} | **{pct(r['test_accuracy'])}** | {r['final_train_loss']:.4f} "
                 f"| {r['steps']} | {fmt(r['gemms']) if device else '-'} | "
                 f"{fmt(round(r['cycles_per_step'])) if device else '-'} | "
                 f"{pct(r['utilization']) if device else '-'} |")
  return lines


def torch_ops_table(source, datas):
  """Per example and op kind (scripts/bench_torch_ops.py): cycles per GEMM, utilization and share
  of the cycles, one program per GEMM -> batched; then the whole run's."""
  result = datas[0]["result"]
  lines = intro_lines(source, f"model backend, {result['steps']} training steps and the "
                      "evaluation; before: `--unbatched`, one program per GEMM")
  lines.append("| example | op | GEMMs | cycles per GEMM | utilization | share of the cycles |")
  lines.append("|---|---|---|---|---|---|")
  for name, runs in result["examples"].items():
    before, after = runs["unbatched"], runs["batched"]
    for op, o in before["ops"].items():
      n = after["ops"][op]
      lines.append(f"| {name} | `{op}` | {fmt(o['device_gemms'])} | {o['cycles_per_gemm']:,.1f} "
                   f"-> **{n['cycles_per_gemm']:,.1f}** | {pct(o['utilization'])} -> "
                   f"{pct(n['utilization'])} | {pct(o['share'])} -> {pct(n['share'])} |")
    b, a = before["totals"], after["totals"]
    lines.append(f"| {name} | whole run | {fmt(b['device_gemms'])} | {fmt(b['device_cycles'])} -> "
                 f"**{fmt(a['device_cycles'])}** cycles | {pct(b['utilization'])} -> "
                 f"**{pct(a['utilization'])}** | energy {b['energy_uj'] / 1e3:,.1f} -> "
                 f"{a['energy_uj'] / 1e3:,.1f} mJ ({runs['energy_table']['node_nm']} nm) |")
  return lines


def demo_block(source, datas):
  """The README's demo output (scripts/demo.sh), its runs in order: the GEMM (`mxu gemm
  --json`), the short training on the RTL and in host fp32, the full epoch on the model (and in
  host fp32, quoted in prose only). Wall times are machine-dependent: "[...]"."""
  gemm, rtl, host, epoch = (d["result"] for d in datas[:4])
  rows, cols = gemm["array"]

  def training(r):
    return [f"training {r['data']}: {r['train_samples']} train / {r['test_samples']} test samples, "
            "784 features, 10 classes",
            f"model {r['model']} ({r['parameters']} parameters), {r['optimizer']} lr "
            f"{r['learning_rate']:g}, batch {r['batch']}, {r['epochs']} epochs, seed {r['seed']}",
            f"GEMMs on {r['backend']} ({rows}x{cols} array, bf16 operands, fp32 accumulation)",
            "..."]

  def result(r):
    line = (f"test accuracy {pct(r['test_accuracy'])} after {r['steps']} steps "
            f"({r['skipped_steps']} skipped), [...] s, [...] steps/s")
    if r["backend"] == "host":
      return line
    return (line + f"; {r['gemms']} GEMMs, {round(r['cycles_per_step'])} device cycles per "
            f"training step, utilization {pct(r['utilization'])}")

  lines = textwrap.wrap(
      f"Generated by `scripts/gen_figures.py` from the JSON of the demo's commands (source "
      f"`{source['name']}` in `docs/figures/sources.json`), measured {source['date']}; wall times "
      "are machine-dependent and shown as [...].", 100, break_on_hyphens=False,
      break_long_words=False) + ["", "```",
      "$ bash scripts/demo.sh",
      "MXU device (rtl backend), version 1.0",
      f"  systolic array      {rows} x {cols} PEs (bf16 x bf16 -> fp32)",
      "  ...",
      f"GEMM {gemm['m']} x {gemm['k']} x {gemm['n']} on a {rows} x {cols} array (rtl backend), "
      "ReLU, fp32 out",
      f"  device cycles       {gemm['cycles']} (ideal {gemm['ideal_cycles']}, utilization "
      f"{pct(gemm['utilization'])})",
      "  ...",
      f"  check               {gemm['checked']} outputs, {gemm['mismatches']} mismatches: "
      + ("bit-exact" if gemm["mismatches"] == 0 else "FAILED"), ""]
  lines += training(rtl) + [result(rtl), "the same run in host fp32: " + result(host), ""]
  lines += training(epoch) + [result(epoch), "```"]
  return lines


KINDS = {"demo": demo_block, "torch_ops": torch_ops_table, "bench": bench_table, "train": train_table, "memory_settings": memory_settings_table, "int8": int8_table, "rtl_vs_model": rtl_vs_model_table, "networks": networks_table,
         "pe_cost": pe_cost_table, "figures_only": None}  # figures_only: quoted in prose only


# A figure quoted in prose, in README.md or docs/*.md:
#   <!-- fig SOURCE[#RUN] PATH FORMAT -->VALUE<!-- /fig -->
# SOURCE a source's name (#RUN: the run whose JSON file is named RUN.json, for a source of several
# runs); PATH dot-separated keys into its JSON, `list[key=value,...]` picking the one entry of the
# list with those values (e.g. rows[shape=256x256x256].cycles, totals[device_spec=16x16].cycles);
# FORMAT int (67,121), pct (97.6%), pct2 (85.99%), d1 ... d5 (1,234.5 with that many decimals;
# d2/1e6 divides by a power of ten first, d2*1e3 multiplies), or text. The generator writes VALUE; --check fails where the
# text differs from what the JSON gives.
FIGURE = re.compile(
    r"<!-- fig (\S+) (\S+) (int|pct2|pct|d[1-5](?:[*/]1e\d+)?|text) -->(.*?)<!-- /fig -->")
# Any figure tag, to refuse one FIGURE does not take (an unknown FORMAT, a missing /fig).
ANY_FIGURE = re.compile(r"<!-- fig [^>]*-->")
FIGURE_HEAD = re.compile(r"<!-- fig (\S+) (\S+) (int|pct2|pct|d[1-5](?:[*/]1e\d+)?|text) -->")
SELECT = re.compile(r"^([A-Za-z_0-9]+)\[([^\]]+)\]$")
PROSE_PAGES = (["README.md"] + sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")) +
               sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples").glob("*/README.md")))


def resolve(path, data):
  """The value at PATH (see FIGURE) in data."""
  value = data
  for token in path.split("."):
    m = SELECT.match(token)
    if m:
      key, conditions = m.groups()
      wants = [c.split("=", 1) for c in conditions.split(",")]
      if any(len(w) != 2 for w in wants):
        raise FigureError(f"{path}: {token}: conditions are key=value")
      matches = [x for x in value.get(key, []) if all(str(x.get(f)) == v for f, v in wants)]
      if len(matches) != 1:
        raise FigureError(f"{path}: {len(matches)} entries of {key} with {conditions}")
      value = matches[0]
    elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
      value = value[int(token)]
    elif isinstance(value, dict) and token in value:
      value = value[token]
    else:
      raise FigureError(f"{path}: no {token}")
  return value


def format_figure(value, form):
  if form == "int":
    return fmt(round(value))
  if form == "pct":
    return pct(value)
  if form == "pct2":
    return f"{100 * value:.2f}%"
  if form[0] == "d":  # d2, or d2/1e6 (millions: uJ as J), d2*1e3 (thousandths: s as ms)
    scale = form[2:]
    if scale:
      value = value / float(scale[1:]) if scale[0] == "/" else value * float(scale[1:])
    return f"{value:,.{form[1]}f}"
  return str(value)


def render_figures(text, datas_by_name):
  """text with every prose figure's VALUE as its JSON gives it."""
  def one(m):
    name, path, form = m.group(1), m.group(2), m.group(3)
    source, _, run = name.partition("#")
    if source not in datas_by_name:
      raise FigureError(f"figure {name} {path}: no source {source}")
    datas = datas_by_name[source]
    data = datas.get(run) if run else next(iter(datas.values()))
    if data is None or (not run and len(datas) > 1):
      raise FigureError(f"figure {name} {path}: name one run of {source}: "
                        f"{', '.join(datas)}")
    value = format_figure(resolve(path, data), form)
    return f"<!-- fig {name} {path} {form} -->{value}<!-- /fig -->"
  for tag in ANY_FIGURE.finditer(text):
    if text[tag.start() - 1:tag.start()] == "`":  # the syntax quoted as code
      continue
    if not FIGURE_HEAD.fullmatch(tag.group(0)) or not FIGURE.match(text, tag.start()):
      raise FigureError(f"figure tag `{tag.group(0)}` is not SOURCE PATH FORMAT with a FORMAT of "
                        "int, pct, pct2, d1 ... d5 (d2/1e6, d2*1e3) or text, closed by <!-- /fig -->")
  return FIGURE.sub(one, text)


def begin_marker(name):
  return f"<!-- BEGIN GENERATED: {name} (scripts/gen_figures.py) -->"


def end_marker(name):
  return f"<!-- END GENERATED: {name} -->"


def render(doc_text, name, table_lines):
  """doc_text with the lines between NAME's markers replaced by table_lines."""
  lines = doc_text.split("\n")
  try:
    b = lines.index(begin_marker(name))
    e = lines.index(end_marker(name), b)
  except ValueError:
    raise FigureError(f"no `{begin_marker(name)}` ... `{end_marker(name)}` markers")
  return "\n".join(lines[:b + 1] + table_lines + lines[e:])


def rerun_command(source, run, build, json_path):
  """Runs the run's command with its JSON written to json_path; returns what it wrote. A run
  marked "stdout": "jsonl" prints JSON lines instead (scripts/hw_cost.sh --json), one marked
  "synth" the line `MODULE: synthesized, no latches, N cells` (scripts/synth_rtl.sh): they are
  returned as {"lines": [...]} ({"module", "cells"} for synth)."""
  argv = shlex.split(run["command"])
  lines = run.get("stdout") in ("jsonl", "synth", "json")
  if not lines:
    if "--json" not in argv:
      raise FigureError(f"{source['name']}: `{run['command']}` has no --json")
    argv[argv.index("--json") + 1] = str(json_path)
  argv = [re.sub(r"^(\w+=)?build/", lambda m: (m.group(1) or "") + build.rstrip("/") + "/", a)
          for a in argv]
  result = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL if lines else subprocess.STDOUT, text=True,
                          timeout=source.get("timeout_s", 300))
  if result.returncode != 0:
    raise FigureError(f"{source['name']}: `{' '.join(argv)}` exited {result.returncode}:\n"
                      f"{result.stdout[-2000:]}")
  if run.get("stdout") == "synth":
    found = re.findall(r"^(\S+): synthesized, no latches, (\d+) cells$", result.stdout, re.M)
    if len(found) != 1:
      raise FigureError(f"{source['name']}: `{run['command']}` printed no cell count")
    return {"lines": [{"module": found[0][0], "cells": int(found[0][1])}]}
  if run.get("stdout") == "json":  # one object (mxu train --json)
    return {"result": json.loads(result.stdout)}
  if lines:
    return {"lines": [json.loads(l) for l in result.stdout.splitlines() if l.strip()]}
  with open(json_path, encoding="utf-8") as f:
    return json.load(f)


def main():
  parser = OneLineParser(description=__doc__.split("\n")[0])
  parser.add_argument("--check", action="store_true")
  parser.add_argument("--record", metavar="NAME")
  parser.add_argument("--build", default="build")
  parser.add_argument("--no-rerun", action="store_true",
                      help="with --check: compare the docs with the JSON only")
  args = parser.parse_args()
  # The commands are rerun from build/bin/ under --build: a missing tree is bad input, refused
  # before anything runs.
  if not args.no_rerun and (args.check or args.record) and not (ROOT / args.build).is_dir():
    parser.error(f"--build {args.build}: no such build directory (configure and build it first)")
  sources_file = load_sources_file()
  sources, sets = sources_file["sources"], sources_file.get("input_sets", {})
  problems = []
  unrecorded = []
  try:
    if args.record:
      chosen = [s for s in sources if s["name"] == args.record]
      if not chosen:
        raise FigureError(f"no source {args.record} in {SOURCES.relative_to(ROOT)}")
      source = chosen[0]
      if source.get("snapshot"):
        raise FigureError(f"{args.record} is a snapshot ({source['snapshot']}): the figures of a "
                          "past commit, not re-recorded")
      for run in runs(source):
        data = strip_machine_dependent(rerun_command(source, run, args.build, ROOT / run["json"]),
                                       run["command"])
        write_json(ROOT / run["json"], data)
      source["date"] = datetime.date.today().isoformat()
      source["inputs_sha256"] = inputs_digest(source, sets)
      sources_file = save_record(source)
      sources, sets = sources_file["sources"], sources_file.get("input_sets", {})
      print(f"recorded {', '.join(r['json'] for r in runs(source))} ({source['date']})")

    if args.check:
      problems, unrecorded = inputs_problems(sources, sets)
    docs = {}  # page -> (text as read, text as generated)
    datas_by_name = {}  # source -> {run's JSON stem: its data}
    for source in sources:
      # "doc": the page of the source's table, or a list of pages that each show it.
      pages = source["doc"] if isinstance(source["doc"], list) else [source["doc"]]
      datas = [load_json(run) for run in runs(source)]
      datas_by_name[source["name"]] = {Path(r["json"]).stem: d for r, d in zip(runs(source), datas)}
      for page in pages:
        if page not in docs:
          text = (ROOT / page).read_text(encoding="utf-8")
          docs[page] = (text, text)
        if KINDS[source["kind"]]:
          table = KINDS[source["kind"]](source, datas)
          try:
            docs[page] = (docs[page][0], render(docs[page][1], source["name"], table))
          except FigureError as e:
            raise FigureError(f"{page}: {e}")
      # A source marked "rerun": false (the RTL: minutes) is checked against its JSON only.
      if args.check and not args.no_rerun:
        for run, data in zip(runs(source), datas):
          if not run.get("rerun", source.get("rerun", True)):
            continue
          with tempfile.TemporaryDirectory() as tmp:
            fresh = rerun_command(source, run, args.build, Path(tmp) / "fresh.json")
          problems += compare(run, data, fresh)
    figures = 0
    for page in PROSE_PAGES:
      if page not in docs:
        text = (ROOT / page).read_text(encoding="utf-8")
        docs[page] = (text, text)
      figures += len(FIGURE.findall(docs[page][1]))
      try:
        docs[page] = (docs[page][0], render_figures(docs[page][1], datas_by_name))
      except FigureError as e:
        raise FigureError(f"{page}: {e}")
    for page, (old, new) in docs.items():
      if old == new:
        continue
      if args.check:
        for a, b in zip(FIGURE.finditer(old), FIGURE.finditer(new)):
          if a.group(4) != b.group(4):
            problems.append(f"{page}: {a.group(1)} {a.group(2)} quoted as {a.group(4)!r}, its "
                            f"JSON gives {b.group(4)!r}")
        if FIGURE.sub("", old) != FIGURE.sub("", new):
          problems.append(f"{page}: a generated table differs from what its JSON gives (run "
                          "scripts/gen_figures.py)")
      else:
        (ROOT / page).write_text(new, encoding="utf-8")
        print(f"wrote {page}")
  except FigureError as e:
    print(f"gen_figures: {e}", file=sys.stderr)
    return 1
  for p in problems:
    print(p)
  if args.check and unrecorded:
    print(f"not yet recorded against their inputs (checked by their JSON only): "
          f"{', '.join(unrecorded)}")
  if args.check:
    print(f"figures: {len(sources)} sources, {figures} figures in prose, {len(problems)} problems" +
          ("" if not problems else ": an edited table is remade by scripts/gen_figures.py; "
           "where a figure moved and the change is meant, run scripts/gen_figures.py --record "
           "NAME for each source and commit the JSON and the docs"))
  return 1 if problems else 0


if __name__ == "__main__":
  sys.exit(main())
