"""The standard-cell library read: each cell's area (liberty, LEF) and the cells the clock gates
map onto (a latch, an integrated clock-gating cell, buffers, clock pins)."""
import os
import re

from .workdirs import die


def liberty_areas(path: str) -> dict[str, float]:
    """Each cell's area; a cell the liberty gives no area (osu018's LATCH says 0) takes its
    footprint from the LEF beside the liberty (same name, .lef), where there is one."""
    areas, cell = {}, None
    for line in open(path):
        m = re.match(r"\s*cell\s*\(\s*\"?(\w+)\"?\s*\)", line)
        if m:
            cell = m.group(1)
        m = re.match(r"\s*area\s*:\s*([0-9.]+)", line)
        if m and cell and cell not in areas:
            areas[cell] = float(m.group(1))
    lef = lef_areas(re.sub(r"\.lib$", ".lef", path))
    return {c: (a if a > 0 else lef.get(c, a)) for c, a in areas.items()}


def lef_areas(path: str) -> dict[str, float]:
    """Each LEF macro's footprint (SIZE w BY h, um^2); none where there is no LEF."""
    if not os.path.isfile(path):
        return {}
    text = open(path, errors="replace").read()
    return {m.group(1): float(m.group(2)) * float(m.group(3)) for m in re.finditer(
        r"^MACRO\s+(\S+).*?^\s*SIZE\s+([0-9.]+)\s+BY\s+([0-9.]+)", text, re.S | re.M)}


def _groups(text: str, kind: str) -> dict[str, str]:
    """The liberty groups `kind (NAME) { ... }` directly in text: name -> body."""
    out = {}
    for m in re.finditer(rf"\b{kind}\s*\(\s*([^)]*?)\s*\)\s*\{{", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out.setdefault(m.group(1).strip('"'), text[m.end():i - 1])
    return out


def _attr(body: str, name: str) -> str | None:
    m = re.search(rf"\b{name}\s*:\s*\"?([^\";]*)\"?\s*;", body)
    return m.group(1).strip() if m else None


def liberty_cells(path: str) -> dict[str, dict]:
    """Each usable cell of a liberty: its pins (name -> body) and body; dont_use cells left out."""
    text = re.sub(r"/\*.*?\*/", "", open(path, errors="replace").read(), flags=re.S)
    cells = {}
    for name, body in _groups(text, "cell").items():
        if _attr(body, "dont_use") != "true":
            cells[name] = {"body": body, "pins": _groups(body, "pin")}
    return cells


def liberty_latch(cells: dict) -> dict | None:
    """A plain latch (data in, enable, one output that is its state; no set or reset) to map
    Yosys's $_DLATCH_P_/N_ onto: {"cell", "d", "en", "q", "en_low"}, or None."""
    for name, c in sorted(cells.items()):
        latch = _groups(c["body"], "latch")
        if len(latch) != 1 or len(c["pins"]) != 3:
            continue
        names, body = next(iter(latch.items()))
        state = names.split(",")[0].strip(' "')  # the latch's state variable (IQ)
        d, en = _attr(body, "data_in"), _attr(body, "enable")
        if not d or not en or _attr(body, "clear") or _attr(body, "preset"):
            continue
        en_low = en.startswith("!") or en.endswith("'")
        en = en.strip("!'() ")
        q = [p for p, b in c["pins"].items() if _attr(b, "function") == state]
        if d in c["pins"] and en in c["pins"] and len(q) == 1:
            return {"cell": name, "d": d, "en": en, "q": q[0], "en_low": en_low}
    return None


def liberty_icg(cells: dict) -> dict | None:
    """An integrated clock-gating cell (clock_gating_integrated_cell latch_posedge, a test pin
    allowed and tied off): {"cell", "clk", "en", "out", "test"}, or None."""
    for name, c in sorted(cells.items()):
        if _attr(c["body"], "clock_gating_integrated_cell") not in (
                "latch_posedge", "latch_posedge_precontrol", "latch_posedge_postcontrol"):
            continue
        role = {}
        for pin, b in c["pins"].items():
            for key in ("clock", "enable", "out", "test"):
                if _attr(b, f"clock_gate_{key}_pin") == "true":
                    role[key] = pin
        if {"clock", "enable", "out"} <= set(role):
            return {"cell": name, "clk": role["clock"], "en": role["enable"],
                    "out": role["out"], "test": role.get("test")}
    return None


def liberty_buffers(cells: dict) -> dict[str, tuple[str, str]]:
    """The one-input cells (buffers, inverters): cell -> (input pin, output pin). A clock passes
    through them unchanged in rate, so the clock-domain trace follows them."""
    out = {}
    for name, c in cells.items():
        ins = [p for p, b in c["pins"].items() if _attr(b, "direction") == "input"]
        outs = [p for p, b in c["pins"].items() if _attr(b, "direction") == "output"]
        if len(ins) == 1 and len(outs) == 1 and not _groups(c["body"], "ff") \
                and not _groups(c["body"], "latch"):
            f = (_attr(c["pins"][outs[0]], "function") or "").replace(" ", "")
            if f.strip("()!") == ins[0]:
                out[name] = (ins[0], outs[0])
    return out


def liberty_clock_pins(cells: dict) -> dict[str, str]:
    """Each sequential cell's clock pin (the pin marked `clock : true`): cell -> pin."""
    out = {}
    for name, c in cells.items():
        for pin, b in c["pins"].items():
            if _attr(b, "clock") == "true" and _attr(b, "direction") == "input":
                out[name] = pin
    return out


def gating_cells(liberty: str) -> dict:
    """The cells the clock gates (rtl/prim/mxu_icg.sv) map onto: the library's latch and, where it
    has one, its integrated clock-gating cell; a library with neither is refused (one line, exit
    2)."""
    try:
        cells = liberty_cells(liberty)
    except OSError as e:
        die(f"liberty {liberty}: {e.strerror}")
    g = {"latch": liberty_latch(cells), "icg": liberty_icg(cells),
         "clock_pins": liberty_clock_pins(cells), "buffers": liberty_buffers(cells)}
    if not g["latch"] and not g["icg"]:
        die(f"liberty {liberty} has no latch cell: the clock gates (rtl/prim/mxu_icg.sv) need one "
            "(or an integrated clock-gating cell)")
    return g
