"""The synthesized netlist: read into modules, their cells, instances and connections, and
written back out for OpenSTA (the whole design, or one module over its submodules' shells)."""
import os
import re

from .clocks import ICG, _base


# The netlist: modules renamed to plain identifiers (OpenSTA takes Yosys's $paramod names badly),
# each module's leaf cells and submodule instances.
def load_netlist(path: str) -> tuple[dict, dict]:
    text = open(path).read()
    names: dict[str, str] = {}
    counter: dict[str, int] = {}

    def rename(m: re.Match) -> str:
        full = m.group(1)
        if full not in names:
            base = re.match(r"\$paramod(\$[0-9a-f]+)?\\([^\\]+)", full).group(2)
            counter[base] = counter.get(base, 0) + 1
            names[full] = f"{base}__p{counter[base]}"
        return names[full] + " "

    text = re.sub(r"\\(\$paramod\S*) ", rename, text)
    modules: dict[str, dict] = {}
    for m in re.finditer(r"^module (\S+?) ?\(.*?^endmodule", text, re.S | re.M):
        name, body = m.group(1), m.group(0)
        cells: dict[str, int] = {}
        insts: list[tuple[str, str]] = []
        conns: dict[str, dict[str, str]] = {}
        for c in re.finditer(r"^  (\S+) +(\\\S+ |\S+) ?\(", body, re.M):
            ctype, iname = c.group(1), c.group(2).strip()
            if ctype in ("input", "output", "wire", "inout", "reg", "assign"):
                continue
            if iname.startswith("\\"):
                iname = iname[1:]
            insts.append((ctype, iname))
            conns[iname] = _connections(body[c.end():body.find(";", c.end())])
        for ctype, _ in insts:
            cells[ctype] = cells.get(ctype, 0) + 1
        depth = re.search(r"MXU_SRAM_DEPTH #\(\s*\.Depth\(([^)]*)\)", body)
        cells.pop("MXU_SRAM_DEPTH", None)
        modules[name] = {"text": body, "cells": cells, "insts": insts, "conns": conns,
                         "inputs": set(re.findall(r"^  input (?:\[[^]]*\] )?(\S+);", body, re.M)),
                         "assigns": {_net(a): _net(b) for a, b in re.findall(
                             r"^  assign (\\\S+ |\S+) = (\\\S+ |\S+);", body, re.M)},
                         "depth": _verilog_int(depth.group(1)) if depth else None}
    return modules, {"text": text}


def _net(name: str) -> str:
    """A net's name as written in the netlist, without the escape's backslash and space."""
    return name.strip().lstrip("\\").strip()


def _connections(text: str) -> dict[str, str]:
    """An instance's `.PORT(net)` connections to single nets (concatenations left out)."""
    return {p: _net(n) for p, n in re.findall(r"\.(\w+)\(\s*(\\\S+ |[^(){},\s]+)\s*\)", text)}


def _verilog_int(v: str) -> int:
    v = v.strip()
    if "'" in v:
        base, digits = v.split("'")[1][0].lower(), v.split("'")[1][1:]
        return int(digits, {"b": 2, "h": 16, "d": 10, "o": 8}[base])
    return int(v)


def instance_tree(modules: dict, top: str) -> list[tuple[str, str]]:
    """Every instance of a netlist module below top: (path with '/', module)."""
    out = [("", top)]
    stack = [("", top)]
    while stack:
        path, mod = stack.pop()
        for ctype, iname in modules[mod]["insts"]:
            if ctype in modules:
                p = (path + "/" if path else "") + iname.replace(".", "/")
                out.append((p, ctype))
                stack.append((p, ctype))
    return out


def own_netlist(modules: dict, top: str, work: str) -> str:
    """top's module with each submodule it instantiates as an empty shell (its ports alone; a
    clock gate's a wire from clk_i to clk_o): so that report_power counts top's own cells once,
    not its whole hierarchy again."""
    text = [re.sub(r"^  MXU_SRAM_DEPTH #\([^;]*;\n", "", modules[top]["text"], flags=re.M)]
    for sub in sorted({c for c, _ in modules[top]["insts"] if c in modules}):
        body = modules[sub]["text"]
        head = re.match(r"module .*?;\n", body, re.S).group(0)
        ports = re.findall(r"^  (?:input|output|inout) [^;]*;\n", body, re.M)
        # A clock gate's shell passes its clock on (a wire, no cell), so that the registers it
        # clocks here are clocked in OpenSTA; device_power scales them by its duty.
        through = "  assign clk_o = clk_i;\n" if _base(sub) == ICG else ""
        text.append(head + "".join(ports) + through + "endmodule")
    path = os.path.join(work, f"own_{top}.v")
    open(path, "w").write("\n\n".join(text) + "\n")
    return path


def sta_netlist(whole: dict, work: str) -> str:
    """The netlist for OpenSTA: renamed modules, the SRAM's depth marker dropped."""
    sta_net = os.path.join(work, "sta.v")
    text = re.sub(r"^  MXU_SRAM_DEPTH #\([^;]*;\n", "", whole["text"], flags=re.M)
    open(sta_net, "w").write(text)
    return sta_net
