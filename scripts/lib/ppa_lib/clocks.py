"""Clock domains: every register's clock traced through the netlist to the free clock or to a
clock gate."""


# Clock domains (docs/ppa.md, "Clock gating"): every register's clock traced through the
# netlist's hierarchy to the free clock ("", the top's clk_i) or to a clock gate (mxu_icg's
# instance path), whose duty the trace measures.
ICG = "mxu_icg"


def _base(m: str) -> str:
    return m.split("__")[0]


def _drivers(modules: dict, mod: str, gating: dict) -> dict[str, tuple]:
    """mod's nets that carry a clock on from something inside it: net -> ("gate", instance) for
    a clock gate's output, ("net", input net) for a buffer's or inverter's."""
    v = modules[mod]
    if "drivers" not in v:
        out = {}
        for ctype, iname in v["insts"]:
            c = v["conns"].get(iname, {})
            if _base(ctype) == ICG and "clk_o" in c:
                out[c["clk_o"]] = ("gate", iname)
            elif ctype in gating["buffers"]:
                pin_in, pin_out = gating["buffers"][ctype]
                if pin_in in c and pin_out in c:
                    out[c[pin_out]] = ("net", c[pin_in])
        v["drivers"] = out
    return v["drivers"]


def local_clock(modules: dict, mod: str, net: str, gating: dict) -> tuple:
    """Where a clock net of mod comes from, inside mod: ("port", input), ("gate", instance of
    mxu_icg), or ("local",) (logic: taken as the module's own clk_i)."""
    v, drivers, seen = modules[mod], _drivers(modules, mod, gating), set()
    while net not in seen:
        seen.add(net)
        if net in v["assigns"]:
            net = v["assigns"][net]
        elif net in v["inputs"]:
            return ("port", net)
        elif drivers.get(net, ("",))[0] == "gate":
            return drivers[net]
        elif net in drivers:
            net = drivers[net][1]
        else:
            break
    return ("local",)


def own_clock_groups(modules: dict, mod: str, gating: dict) -> dict[tuple, list[str]]:
    """mod's own sequential cells by where their clock comes from (local_clock)."""
    groups: dict[tuple, list[str]] = {}
    for ctype, iname in modules[mod]["insts"]:
        pin = gating["clock_pins"].get(ctype)
        net = modules[mod]["conns"].get(iname, {}).get(pin) if pin else None
        if net:
            groups.setdefault(local_clock(modules, mod, net, gating), []).append(iname)
    return groups


class ClockDomains:
    """Each instance's clock domain and its registers': "" (the free clock) or a gate's path."""

    def __init__(self, modules: dict, top: str, gating: dict):
        self.modules, self.gating = modules, gating
        self.inst = {"": ("", None, top)}  # path -> (parent path, instance name, module)
        stack = [""]
        while stack:
            path = stack.pop()
            mod = self.inst[path][2]
            for ctype, iname in modules[mod]["insts"]:
                if ctype in modules:
                    p = (path + "/" if path else "") + iname.replace(".", "/")
                    self.inst[p] = (path, iname, ctype)
                    stack.append(p)
        self.memo: dict = {}

    def resolve(self, path: str, key: tuple) -> str:
        """The domain of a local_clock key at instance path."""
        if key[0] == "port":
            return self.port(path, key[1])
        if key[0] == "gate":
            return (path + "/" if path else "") + key[1].replace(".", "/")
        return self.domain(path)

    def domain(self, path: str) -> str:
        """An instance's domain: its clk_i's; a module without one, its parent's."""
        mod = self.inst[path][2]
        if "clk_i" in self.modules[mod]["inputs"]:
            return self.port(path, "clk_i")
        return self.domain(self.inst[path][0]) if path else ""

    def port(self, path: str, port: str) -> str:
        """The domain of the clock an instance's input port receives."""
        if not path:
            return ""
        if (path, port) not in self.memo:
            parent, iname, _ = self.inst[path]
            pmod = self.inst[parent][2]
            net = self.modules[pmod]["conns"].get(iname, {}).get(port)
            self.memo[(path, port)] = (
                self.resolve(parent, local_clock(self.modules, pmod, net, self.gating))
                if net else self.domain(parent))
        return self.memo[(path, port)]

    def gates(self) -> list[str]:
        return sorted(p for p, (_, _, m) in self.inst.items() if _base(m) == ICG)
