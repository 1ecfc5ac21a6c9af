#!/usr/bin/env python3
"""Runs the examples the docs show and compares what they print (a cram/doctest in one).

Checked blocks in README.md and docs/*.md (also indented, inside a list item):
  ```console   lines "$ COMMAND" run with bash from the repository root (stderr merged into
               stdout; a leading "build/" names --build); the lines after one, up to the next
               "$ " or the block's end, are its expected output. A line "..." matches any lines
               (none included), "[...]" inside a line any text, a last line "[exit N]" the exit
               status (otherwise it must be 0).
  ```pycon     Python sessions ("$ PYTHONPATH=build/python python3", then ">>> " lines) run by
               doctest with ELLIPSIS, with the built module on the path.
  ```cpp       whole C++ programs on the driver: compiled (not linked) with
               g++ -std=c++17 -Wall -Wextra -Werror against the source tree and SystemC's headers,
               so a missing include or a call that warns fails.
Other blocks (```sh, plain ```) are not run: outputs that depend on the machine (wall times) or
take minutes live there, marked with the date they were measured.

Usage: scripts/check_docs.py [--build DIR] [--python PYTHON] [--no-python] [FILE.md ...]
Exit status 0 when every example matches; else 1, with each mismatch shown.
"""
import argparse
import doctest
import os
import re
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from one_line_parser import OneLineParser  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def blocks(path):
    """(kind, first line number, lines) of every console, pycon and cpp block of a Markdown
    file."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^( *)```(console|pycon|cpp)\s*$", lines[i])
        if not m:
            i += 1
            continue
        indent = m.group(1)  # a block inside a list item: its lines carry the item's indent
        start = i + 1
        j = start
        while j < len(lines) and lines[j] != indent + "```":
            j += 1
        body = [l[len(indent):] if l.startswith(indent) else l for l in lines[start:j]]
        yield m.group(2), start + 1, body
        i = j + 1


def line_matches(pattern, text):
    parts = pattern.split("[...]")
    regex = ".*".join(re.escape(p) for p in parts)
    return re.fullmatch(regex, text) is not None


def output_matches(expected, actual):
    """Whether actual (lines) matches expected (lines with "..." and "[...]")."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(output_matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and line_matches(expected[0], actual[0]) and output_matches(
        expected[1:], actual[1:])


def run_console(path, first, lines, build):
    failures = []
    commands = []  # (line number, command, expected lines)
    for n, line in enumerate(lines):
        if line.startswith("$ "):
            commands.append((first + n, line[2:], []))
        elif commands:
            commands[-1][2].append(line)
    for number, command, expected in commands:
        exit_code = 0
        if expected and re.fullmatch(r"\[exit \d+\]", expected[-1]):
            exit_code = int(expected[-1][6:-1])
            expected = expected[:-1]
        shell = re.sub(r"(^|\s)build/", r"\g<1>" + build + "/", command)
        result = subprocess.run(["bash", "-c", shell], cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, timeout=600)
        # What names the build directory reads as the docs write it.
        printed = result.stdout.replace(build.rstrip("/") + "/", "build/")
        actual = printed.rstrip("\n").split("\n") if printed.strip() else []
        if result.returncode != exit_code or not output_matches(expected, actual):
            failures.append(f"{path}:{number}: $ {command}\n  exit {result.returncode} "
                            f"(expected {exit_code})\n  expected:\n    " +
                            "\n    ".join(expected) + "\n  got:\n    " + "\n    ".join(actual))
    return failures


def run_pycon(path, first, lines, build, python):
    text = "\n".join(l for l in lines if not l.startswith("$ "))
    script = (
        "import doctest, sys\n"
        f"sys.path.insert(0, {os.path.join(build, 'python')!r})\n"
        "text = sys.stdin.read()\n"
        "test = doctest.DocTestParser().get_doctest(text, {}, 'docs', 'docs', 0)\n"
        "runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)\n"
        "runner.run(test)\n"
        "sys.exit(1 if runner.failures else 0)\n")
    result = subprocess.run([python, "-c", script], cwd=ROOT, input=text, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=600)
    if result.returncode != 0:
        return [f"{path}:{first}: the Python session differs:\n{result.stdout}"]
    return []


def run_cpp(path, first, lines):
    cflags = subprocess.run(["pkg-config", "--cflags", "systemc"], stdout=subprocess.PIPE,
                            text=True, check=True).stdout.split()
    result = subprocess.run(["g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                             "-I", ROOT] + cflags + ["-x", "c++", "-"], cwd=ROOT,
                            input="\n".join(lines) + "\n", stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=600)
    if result.returncode != 0:
        return [f"{path}:{first}: the C++ block does not compile cleanly:\n{result.stdout}"]
    return []



def main():
    parser = OneLineParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--no-python", action="store_true",
                        help="skip the pycon blocks (a build without the Python module)")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = args.files or [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(ROOT, "docs", f) for f in os.listdir(os.path.join(ROOT, "docs"))
        if f.endswith(".md"))
    failures, checked = [], 0
    for path in files:
        rel = os.path.relpath(path, ROOT)
        for kind, first, lines in blocks(path):
            checked += 1
            if kind == "console":
                failures += run_console(rel, first, lines, args.build)
            elif kind == "cpp":
                failures += run_cpp(rel, first, lines)
            elif not args.no_python:
                failures += run_pycon(rel, first, lines, args.build, args.python)
    for failure in failures:
        print(failure)
    print(f"docs: {checked} example blocks, {len(failures)} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
