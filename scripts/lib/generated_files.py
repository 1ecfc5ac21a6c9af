"""What the table-driven generators (scripts/gen_isa.py, scripts/gen_device.py) share: writing
their outputs, or with --check only naming the ones that are out of date."""
import sys
from pathlib import Path


def write_or_check(root: Path, outputs: dict, script: str, table: str, check: bool) -> int:
    """Each of OUTPUTS (path relative to ROOT -> text) written where it differs; with CHECK,
    nothing written and each that differs named. The exit status: 1 for a stale file under
    CHECK, else 0."""
    stale = []
    for rel, text in outputs.items():
        path = root / rel
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old == text:
            continue
        stale.append(rel)
        if not check:
            path.write_text(text, encoding="utf-8")
    for rel in stale:
        if check:
            print(f"{script}: {rel} is out of date with {table}; run python3 scripts/{script}",
                  file=sys.stderr)
        else:
            print(f"{script}: wrote {rel}")
    return 1 if check and stale else 0
