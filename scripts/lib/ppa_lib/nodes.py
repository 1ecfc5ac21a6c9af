"""The measured 180 nm figures scaled to other nodes (Stillmaker and Baas, 2017), labelled so."""
import math

from .config import NODE_NM
from .workdirs import die


# Scaling from the measured 180 nm to other nodes: Stillmaker and Baas, "Scaling equations for
# the accurate prediction of CMOS device performance from 180 nm to 7 nm", Integration 58 (2017)
# 74-81. Their fits to measured and predictive (PTM) device models, transcribed from the paper:
# Table 4's area factors relative to 180 nm, and per node the polynomials in the supply voltage V
# of a FO4-loaded gate's delay (cubic, a3 V^3 + a2 V^2 + a1 V + a0) and switching energy
# (quadratic, b2 V^2 + b1 V + b0), each in the paper's own arbitrary unit: only ratios between
# nodes mean anything. 45 nm and below are the high-performance (HP) models, the kind a
# datacenter accelerator is built in. Each node at its nominal supply (the paper's, from PTM).
# 28 nm is not among the paper's nodes: its factors are interpolated between 32 nm and 20 nm,
# linearly in log(factor) against log(node).
STILLMAKER_BAAS = {  # node: (nominal V, area vs 180 nm, delay a3..a0, energy b2..b0)
    180: (1.8, 1.0, (0.0, 97.09, -356.7, 406.5), (0.0, 24.64, -17.98)),
    130: (1.3, 0.34, (-76.65, 334.9, -493.4, 275.8), (7.171, -6.709, 2.904)),
    90: (1.2, 0.15, (-60.34, 262.5, -384.2, 210.9), (4.762, -4.781, 2.092)),
    65: (1.1, 0.08, (-53.3, 230.4, -333.9, 178.6), (3.755, -4.398, 1.975)),
    45: (1.0, 0.053, (-501.6, 1567.0, -1619.0, 566.1), (1.018, -0.3107, 0.1539)),
    32: (0.9, 0.025, (-1047.0, 2982.0, -2797.0, 873.5), (0.8367, -0.4341, 0.1701)),
    20: (0.9, 0.011, (0.0, 34.63, -66.37, 41.15), (0.373, -0.1582, 0.04104)),
    16: (0.85, 0.01, (0.0, 24.8, -47.52, 28.87), (0.2958, -0.1241, 0.03024)),
    14: (0.8, 0.0093, (-40.66, 109.2, -100.6, 35.92), (0.2363, -0.09675, 0.02239)),
    10: (0.75, 0.0055, (-34.95, 93.65, -85.99, 30.4), (0.2068, -0.09311, 0.02375)),
    7: (0.7, 0.0032, (-28.58, 76.6, -70.26, 24.69), (0.1776, -0.09097, 0.02447)),
}
SCALED_NODES = [28, 7]
SCALING_METHOD = ("Stillmaker and Baas, Integration 58 (2017): area (Table 4), FO4 delay and "
                  "energy fits at the nominal supply; 28 nm interpolated between 32 and 20 nm")


def _node_factors(node: int) -> dict:
    """Area, delay and energy of `node` relative to 180 nm at 1.8 V (Stillmaker and Baas)."""
    if node not in STILLMAKER_BAAS:
        lo, hi = max(n for n in STILLMAKER_BAAS if n < node), min(n for n in STILLMAKER_BAAS
                                                                  if n > node)
        f_lo, f_hi = _node_factors(lo), _node_factors(hi)
        t = math.log(node / hi) / math.log(lo / hi)
        return {k: math.exp(math.log(f_hi[k]) + t * (math.log(f_lo[k]) - math.log(f_hi[k])))
                for k in f_lo}
    v, area, d, e = STILLMAKER_BAAS[node]
    return {"area": area, "vdd": v,
            "delay": d[0] * v ** 3 + d[1] * v ** 2 + d[2] * v + d[3],
            "energy": e[0] * v ** 2 + e[1] * v + e[2]}


def scale(node: int) -> dict:
    """Factors on area, gate delay and switching energy from the measured 180 nm to `node`."""
    if not 7 <= node <= NODE_NM:
        die(f"node {node} nm: the scaling covers 180 nm down to 7 nm")
    base, f = _node_factors(NODE_NM), _node_factors(node)
    return {"area": f["area"], "delay": f["delay"] / base["delay"],
            "energy": f["energy"] / base["energy"], "vdd": round(f["vdd"], 3)}


def scaled(result: dict, fmax: float | None) -> dict:
    """The result at the scaled nodes (labelled so)."""
    out = {}
    for node in SCALED_NODES:
        f = scale(node)
        s = {"node_nm": node, "measured": False, "method": SCALING_METHOD,
             "vdd": f["vdd"],
             "fmax_mhz": round(fmax / f["delay"], 1) if fmax else None,
             "area_um2": {k: round(v * f["area"], 1) for k, v in result["area_um2"].items()},
             "energy_pj_per_mac": {k: (round(v * f["energy"], 5) if v is not None else None)
                                   for k, v in result["energy_pj_per_mac"].items()}}
        if isinstance(result["power_mw"], dict):
            s["power_mw"] = {k: round(v * f["energy"] / f["delay"], 3)
                             for k, v in result["power_mw"].items()}
        out[str(node)] = s
    return out
