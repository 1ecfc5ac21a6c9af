"""scripts/hw_cost.sh --depths --json on one small module (the weight FIFO of a 4x4 device: its
pointers and the SRAM macro's stand-in, seconds of Yosys): one JSON object with the issue's keys,
a positive longest stage; a bad device spec or an unknown module is refused on one line with exit
status 2."""

import json

import pytest

from script_runs import SCRIPTS, assert_refused, run_script

SCRIPT = SCRIPTS / "hw_cost.sh"


def test_weight_fifo():
    result = run_script(SCRIPT, "--depths", "--device", "4x4", "--module", "mxu_weight_fifo",
                        "--json")
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


@pytest.mark.parametrize("args,word", [
    (["--device", "4x4:pe=9", "--json"], "pe=9"),
    (["--device", "banana", "--json"], "banana"),
    (["--device", "4x4", "--module", "mxu_no_such_module", "--json"], "mxu_no_such_module"),
    (["--frobnicate"], "--frobnicate"),
])
def test_refusals(args, word):
    assert_refused(SCRIPT, ["--depths", *args], word)
