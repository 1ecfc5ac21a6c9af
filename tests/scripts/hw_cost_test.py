"""scripts/hw_cost.sh --pe-stages N --json on the PE at depths 1 and 2 (Yosys, seconds each):
one JSON object per depth with the issue's keys, the registers that a second stage adds, a
shorter longest stage; a depth out of range is refused on one line with exit status 2."""

import json

import pytest

from script_runs import SCRIPTS, assert_refused, run_script

SCRIPT = SCRIPTS / "hw_cost.sh"


def cost(stages, *extra):
    result = run_script(SCRIPT, "--pe-stages", str(stages), "--json", *extra)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, f"one JSON object expected, got {result.stdout!r}"
    obj = json.loads(lines[0])
    for key in ("pe_stages", "cells", "flip_flops", "max_stage_depth"):
        assert isinstance(obj.get(key), int), f"{key} missing or not an integer in {obj}"
    assert obj["pe_stages"] == stages, obj
    return obj


def test_pe_stages():
    one, two = cost(1), cost(2)
    plain = cost(2, "--no-int8")
    print(f"1 stage: {one}\n2 stages: {two}\n2 stages without int8: {plain}")
    assert two["int8"] is True and plain["int8"] is False, (two, plain)
    # The int8 path: its own 8 x 8 multiplier and 32-bit adder, and at two stages its product's
    # register (delayed to the float multiplier's latency).
    assert two["cells"] > plain["cells"] and two["flip_flops"] > plain["flip_flops"], (two, plain)
    # One stage: the two bf16 significands and the fp32 partial sum and weights in registers.
    assert one["flip_flops"] > 32 + 16, one
    # The second stage registers the fp32 product (32 bits; its valid bit is the activation's).
    assert two["flip_flops"] - one["flip_flops"] >= 32, (one, two)
    assert two["max_stage_depth"] < one["max_stage_depth"], (one, two)
    assert one["cells"] > one["flip_flops"] > 0


@pytest.mark.parametrize("bad", ["0", "99", "x"])
def test_depth_out_of_range(bad):
    assert_refused(SCRIPT, ["--pe-stages", bad, "--json"], "--pe-stages")
