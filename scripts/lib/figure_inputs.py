"""What a figure source's numbers are computed from, and one hash of it (scripts/gen_figures.py).

A source in docs/figures/sources.json names its inputs: globs relative to the repository root,
or names of the file's "input_sets" (each a list of globs). Their content hash, taken when the
source is recorded (--record), is kept beside it as "inputs_sha256"; a later --check that finds
another hash knows that the code under the figures changed after they were measured, even for a
source whose commands are too slow to re-run in the check.

The hash reads each file with its whole-line comments and blank lines left out, so that a
comment or a blank line changes no figure's standing; any other edit does. Standard library only.
"""

import hashlib
from pathlib import Path

# Whole-line comments by file type; a file of another type is hashed as it is.
COMMENT_PREFIX = {".sv": "//", ".svh": "//", ".vlt": "//", ".vc": "//", ".cc": "//", ".h": "//",
                  ".py": "#", ".sh": "#", ".toml": "#", ".cmake": "#", ".txt": "#", ".csv": "#"}
# Never inputs: build trees, the venv, caches.
SKIPPED_PARTS = {".git", ".venv", "__pycache__", "Testing"}


class InputError(Exception):
  pass


def _skipped(relative: Path) -> bool:
  return any(part in SKIPPED_PARTS or part.startswith("build") for part in relative.parts)


def expand(root: Path, names: list, sets: dict) -> list:
  """The files (sorted, relative to root) that names select: set names or globs. A name that
  selects no file is an error: a typo would otherwise hash nothing, and stay equal forever."""
  files = set()
  for name in names:
    patterns = sets[name] if name in sets else [name]
    found = set()
    for pattern in patterns:
      found |= {p.relative_to(root) for p in root.glob(pattern) if p.is_file()}
    found = {p for p in found if not _skipped(p)}
    if not found:
      raise InputError(f"input {name!r} selects no file")
    files |= found
  return sorted(files)


def normalized(path: Path) -> bytes:
  """path's content less its whole-line comments and blank lines, each line right-stripped."""
  data = path.read_bytes()
  prefix = COMMENT_PREFIX.get(path.suffix)
  if prefix is None and path.name == "CMakeLists.txt":
    prefix = "#"
  if prefix is None:
    return data
  try:
    text = data.decode("utf-8")
  except UnicodeDecodeError:
    return data
  kept = [line.rstrip() for line in text.split("\n")]
  kept = [line for line in kept if line.strip() and not line.lstrip().startswith(prefix)]
  return "\n".join(kept).encode("utf-8")


def digest(root: Path, names: list, sets: dict) -> str:
  """The sha256 of the selected files' paths and normalized contents, in path order."""
  h = hashlib.sha256()
  for relative in expand(root, names, sets):
    content = normalized(root / relative)
    h.update(str(relative).encode("utf-8") + b"\0" + str(len(content)).encode() + b"\0")
    h.update(content)
  return h.hexdigest()
