#!/usr/bin/env python3
"""scripts/hw_cost.sh --depths --json on one small module (the weight FIFO of a 4x4 device: its
pointers and the SRAM macro's stand-in, seconds of Yosys): one JSON object with the issue's keys,
a positive longest stage; a bad device spec or an unknown module is refused on one line with exit
status 2."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "hw_cost.sh"


def run(*args):
    return subprocess.run(["bash", str(SCRIPT), "--depths", *args], capture_output=True, text=True)


def refused(args, word):
    result = run(*args)
    assert result.returncode == 2, (args, result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert result.stdout == "" and len(lines) == 1, (args, result.stdout, result.stderr)
    assert word in lines[0], (args, lines[0])


def main():
    result = run("--device", "4x4", "--module", "mxu_weight_fifo", "--json")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    # --module: the module's line only, no device line (one module does not set the device's).
    assert len(lines) == 1, f"one JSON object expected, got {result.stdout!r}"
    obj = json.loads(lines[0])
    print(f"mxu_weight_fifo at 4x4: {obj}")
    assert obj["module"] == "mxu_weight_fifo", obj
    for key in ("cells", "flip_flops", "max_stage_depth"):
        assert isinstance(obj.get(key), int) and not isinstance(obj[key], bool), (key, obj)
    assert obj["max_stage_depth"] > 0, obj
    # The FIFO's pointers and count are flip-flops; its rows are the macro's (not counted).
    assert obj["cells"] > obj["flip_flops"] > 0, obj
    assert obj["flip_flops"] < 4 * 16, obj

    refused(["--device", "4x4:pe=9", "--json"], "pe=9")
    refused(["--device", "banana", "--json"], "banana")
    refused(["--device", "4x4", "--module", "mxu_no_such_module", "--json"], "mxu_no_such_module")
    refused(["--frobnicate"], "--frobnicate")
    print("hw_cost_depths_test: ok")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as error:
        print(f"hw_cost_depths_test: {error}", file=sys.stderr)
        sys.exit(1)
