"""The device's fixed constants, read from their one source, common/device.toml (the RTL and the
C++ take theirs from the files scripts/gen_device.py generates from it)."""
import os
import tomllib

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common",
                     "device.toml")


def constant(name: str) -> int:
    """The value of the table's constant NAME (lower_snake, as the table spells it)."""
    with open(TABLE, "rb") as f:
        for c in tomllib.load(f)["constant"]:
            if c["name"] == name:
                return c["value"]
    raise KeyError(f"common/device.toml has no constant {name}")
