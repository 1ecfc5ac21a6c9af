#!/usr/bin/env python3
"""Lists device constants and rules defined by hand in more than one place (issue 70): exit 1 if
there is any, one line each, file:line and what it repeats.

Two checks over the sources (rtl/, formal/, common/, backends/, driver/, host/, sim/, train/,
python/, scripts/; the generated files and blocks excluded, and tests/, whose expectations are
references of their own):
  1. common/device.toml's constants and rules, defined again: a constant given a number under its
     name in any language's spelling (SV AccBanks, C++ kAccBanks or acc_banks, Python ACC_BANKS);
     a rule defined again with as many arguments (SV function, C++ function, Python def).
  2. Any named number defined in two languages under one name (SV parameter or localparam, C++
     constexpr, Python module constant; names compared without case, underscores or C++'s k),
     but for the few names (UNRELATED) that mean different things.
  3. A queue's size written as a bare number where the table's constant belongs: an SV instance
     sized by one (`.Depth(4)`), or the model (backends/model/) comparing a container's size with
     one of 2 or more (`wlq.size() >= 4`): how the weight-load queue's depth was once written
     twice.

Usage: scripts/check_constants.py [--root DIR]
"""

import os
import re
import sys
import tomllib
from pathlib import Path
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from one_line_parser import OneLineParser  # noqa: E402

DIRS = ["rtl", "formal", "common", "backends", "driver", "host", "sim", "train", "python",
        "scripts"]
GENERATED = {"rtl/mxu_isa_pkg.sv", "common/isa_table.h", "common/device_table.h",
             "formal/decode_expect.svh"}
SV_BLOCK = ("// ---- BEGIN GENERATED: device constants", "// ---- END GENERATED: device constants")
# Names that mean different things in different files, each with why.
UNRELATED = {
    "width": "SV modules' default Width = 1, host/gemm's progress bar kWidth = 30",
}
# Check 3: an SV instance's size parameter given a bare number; the model comparing a container's
# size with a bare number (0 and 1 are emptiness tests, not sizes).
BARE_SV_SIZE = re.compile(r"\.(Depth|Entries|Slots)\s*\(\s*(\d+)\s*\)")
BARE_MODEL_SIZE = re.compile(r"\.size\(\)\s*(?:>=|<=|==|!=|<|>)\s*(\d+)u?\b")
LANG = {".sv": "SV", ".svh": "SV", ".h": "C++", ".cc": "C++", ".py": "Python"}
NUMBER = r"(?:\d+'[bdh][0-9a-fA-F_]+|0[xX][0-9a-fA-F']+|\d[\d']*)u?"
DEFINITIONS = {  # a named number, per language: (name, value)
    "SV": re.compile(rf"\b(?:parameter|localparam)\b[^;=()]*?\b([A-Za-z_]\w*)\s*=\s*({NUMBER})\s*[;,)]"),
    "C++": re.compile(rf"\bconstexpr\b[^;=(]*?\b([A-Za-z_]\w*)\s*=\s*({NUMBER})\s*;"),
    "Python": re.compile(rf"^([A-Z][A-Z0-9_]*)\s*=\s*({NUMBER})\s*(?:#.*)?$"),
}


def camel(name):
  return "".join(p.capitalize() for p in name.split("_"))


def norm(name):
  """A name as the languages share it: AccBanks, kAccBanks, acc_banks, ACC_BANKS -> accbanks."""
  name = re.sub(r"^k(?=[A-Z])", "", name)
  return name.replace("_", "").lower()


def source_lines(root):
  """(path, line number, line, language) of every source line the checks read."""
  for d in DIRS:
    for path in sorted((root / d).rglob("*")):
      rel = path.relative_to(root).as_posix()
      if path.suffix not in LANG or rel in GENERATED or "/tests/" in f"/{rel}":
        continue
      inside = False
      for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").split("\n"), 1):
        if SV_BLOCK[0] in line:
          inside = True
        if not inside and not line.lstrip().startswith(("//", "#")):
          yield rel, n, line, LANG[path.suffix]
        if SV_BLOCK[1] in line:
          inside = False


def arity(args):
  args = args.strip()
  return 0 if not args else args.count(",") + 1


def table_checks(table):
  """(regex, what, arity or None) for each of the table's names in each spelling."""
  checks = []
  names = [c["name"] for c in table["constant"]] + ["acc_add_cycles", "pe_max_stages"]
  for name in names:
    spellings = "|".join([camel(name), f"k{camel(name)}", name, name.upper()])
    checks.append((re.compile(rf"\b({spellings})\s*=\s*{NUMBER}\s*[;,)]?\s*(?://.*|#.*)?$"),
                   f"common/device.toml's constant {name}", None))
  for r in table["rule"]:
    n = len(r["args"])
    checks.append((re.compile(rf"\bfunction\b.*\b{r['name']}\s*\(([^)]*)\)"), r["name"], n))
    checks.append((re.compile(rf"^\s*(?:constexpr|inline|static)?\s*[\w:<>]+\s+"
                              rf"{camel(r['name'])}\s*\(([^)]*)\)\s*(?:const\s*)?\{{"),
                   r["name"], n))
    checks.append((re.compile(rf"^\s*def\s+{r['name']}\s*\(([^)]*)\)"), r["name"], n))
  return checks


def main():
  parser = OneLineParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                      help="repository root")
  args = parser.parse_args()
  with open(args.root / "common/device.toml", "rb") as f:
    table = tomllib.load(f)
  checks = table_checks(table)
  found = []
  named = {}  # normalized name -> {language: (where, name, value)}
  for rel, n, line, lang in source_lines(args.root):
    for regex, what, want in checks:
      m = regex.search(line)
      if m and (want is None or arity(m.group(1)) == want):
        found.append(f"{rel}:{n}: defines {what} again: {line.strip()}")
    bare = []
    if lang == "SV":
      bare = [m.group(0) for m in BARE_SV_SIZE.finditer(line)]
    elif lang == "C++" and rel.startswith("backends/model/"):
      bare = [m.group(0) for m in BARE_MODEL_SIZE.finditer(line) if int(m.group(1)) >= 2]
    for text in bare:
      found.append(f"{rel}:{n}: a size as a bare number ({text}): name it in common/device.toml "
                   f"or after what it is: {line.strip()}")
    for m in DEFINITIONS[lang].finditer(line):
      named.setdefault(norm(m.group(1)), {}).setdefault(lang, (f"{rel}:{n}", m.group(1),
                                                               m.group(2)))
  for key, langs in sorted(named.items()):
    if len(langs) > 1 and key not in UNRELATED:
      where = "; ".join(f"{lang} {name} = {value} ({at})"
                        for lang, (at, name, value) in sorted(langs.items()))
      found.append(f"{key}: one name, a number in {len(langs)} languages: {where}")
  for line in found:
    print(f"check_constants.py: {line}")
  if not found:
    print(f"check_constants.py: no device constant or rule is defined twice "
          f"({len(table['constant'])} constants, {len(table['rule'])} rules in the table)")
  return 1 if found else 0


if __name__ == "__main__":
  sys.exit(main())
