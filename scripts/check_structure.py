#!/usr/bin/env python3
"""The tree's shape, checked (docs/layout.md, "Shape"): no source folder over 40 files, no
function over 120 lines outside generated code, no SystemVerilog `always` block over 80 lines, no
Python import cycle, no `python3 -c` in scripts. Prints every problem, one a line, and exits 1; otherwise one line saying what it read."""
import ast
import os
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from one_line_parser import OneLineParser  # noqa: E402

MAX_FOLDER_FILES = 40
MAX_FUNCTION_LINES = 120
MAX_SV_BLOCK_LINES = 80
SOURCE_SUFFIXES = {".cc", ".h", ".sv", ".py"}
# Written by a generator, not by hand: their length is the table's.
GENERATED = re.compile(r"^(common/isa_table\.h|rtl/mxu_isa_pkg\.sv|common/csr_map\.h)$")


def tracked_files(root):
    out = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True)
    return [pathlib.PurePosixPath(line) for line in out.stdout.splitlines()]


def folder_problems(files):
    counts = {}
    for path in files:
        if path.suffix in SOURCE_SUFFIXES:
            counts[str(path.parent)] = counts.get(str(path.parent), 0) + 1
    return [f"{folder}/: {n} source files (at most {MAX_FOLDER_FILES}: split it into rooms)"
            for folder, n in sorted(counts.items()) if n > MAX_FOLDER_FILES]


def cxx_functions(lines):
    """(name, first line, length) of each function defined at namespace scope. In clang-formatted
    code its body closes with "}" alone at column 0, and its signature is the last line at
    column 0 before that (the body and a wrapped signature's continuation are indented)."""
    start = None
    for number, line in enumerate(lines, 1):
        if line == "}" and start is not None:
            head = " ".join(lines[start - 1:number]).split("{")[0]
            while re.search(r"<[^<>]*>", head):  # template arguments hold parentheses too
                head = re.sub(r"<[^<>]*>", "", head)
            name = re.search(r"([\w:~]+)\s*\(", head)
            if name:
                yield name.group(1), start, number - start + 1
            start = None
        elif line[:1].strip() and not line.startswith(("#", "//", "}")):
            start = number


def sv_always_blocks(lines):
    """(kind, first line, length) of each always block: from its keyword to the `end` (or
    `endcase`) that closes its first `begin` (or `case`); a block without one ends at its `;`."""
    opens, closes = {"begin", "case", "casez", "casex", "fork"}, {"end", "endcase", "join"}
    number = 0
    while number < len(lines):
        head = re.match(r"\s*(always_comb|always_ff|always_latch|always)\b", lines[number])
        if not head:
            number += 1
            continue
        depth, last = 0, number
        for last in range(number, len(lines)):
            code = lines[last].split("//")[0]
            for word in re.findall(r"\b\w+\b", code):
                depth += (word in opens) - (word in closes)
            if depth == 0 and (re.search(r"\b(end|endcase|join)\b", code) or
                               (code.rstrip().endswith(";") and "begin" not in code)):
                break
        yield head.group(1), number + 1, last - number + 1
        number = last + 1


def python_functions(text):
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node.lineno, node.end_lineno - node.lineno + 1


def function_problems(root, files):
    problems = []
    for path in files:
        if GENERATED.match(str(path)) or path.suffix not in {".cc", ".h", ".py"}:
            continue
        text = (root / path).read_text(errors="replace")
        found = (python_functions(text) if path.suffix == ".py"
                 else cxx_functions(text.splitlines()))
        problems += [f"{path}:{first}: {name} is {length} lines (at most {MAX_FUNCTION_LINES})"
                     for name, first, length in found if length > MAX_FUNCTION_LINES]
    return problems


def sv_block_problems(root, files):
    return [f"{path}:{first}: {kind} is {length} lines (at most {MAX_SV_BLOCK_LINES})"
            for path in files if path.suffix == ".sv" and not GENERATED.match(str(path))
            for kind, first, length in sv_always_blocks(
                (root / path).read_text(errors="replace").splitlines())
            if length > MAX_SV_BLOCK_LINES]


def python_imports(root, files, package):
    """module -> the modules of package it imports (anywhere in it, functions included)."""
    modules = {}
    for path in files:
        if path.suffix != ".py" or path.parts[:len(package.parts)] != package.parts:
            continue
        dotted = ".".join(path.relative_to(package.parent).with_suffix("").parts)
        dotted = dotted.removesuffix(".__init__")
        modules[dotted] = path
    graph = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        targets = set()
        for node in ast.walk(ast.parse((root / path).read_text())):
            if isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = name if is_package else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                stem = (f"{base}.{node.module}" if node.module else base) if node.level \
                    else node.module
                targets.add(stem)
                targets |= {f"{stem}.{alias.name}" for alias in node.names}
        graph[name] = {t for t in targets if t in modules and t != name
                       and not name.startswith(t + ".")}  # a package's own __init__ runs first
    return graph


def cycle_problems(graph):
    problems, state = [], {}

    def visit(node, trail):
        state[node] = "open"
        for target in sorted(graph[node]):
            if state.get(target) == "open":
                cycle = trail[trail.index(target):] + [target]
                problems.append("import cycle: " + " -> ".join(cycle))
            elif target not in state:
                visit(target, trail + [target])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return problems


def inline_python_problems(root, files):
    return [f"{path}:{number}: python3 -c (put the Python in a module of scripts/)"
            for path in files if path.parts[0] == "scripts" and path.suffix == ".sh"
            for number, line in enumerate((root / path).read_text().splitlines(), 1)
            if re.search(r"python3?\s+-c\b", line) and not line.lstrip().startswith("#")]


def main():
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent,
                        type=pathlib.Path, help="the checkout (default: this script's)")
    root = parser.parse_args().root
    files = [f for f in tracked_files(root) if (root / f).is_file()]
    graph = python_imports(root, files, pathlib.PurePosixPath("python/mxu"))
    problems = (folder_problems(files) + function_problems(root, files)
                + sv_block_problems(root, files) + cycle_problems(graph)
                + inline_python_problems(root, files))
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"structure clean: {len(files)} files, {len(graph)} Python modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
