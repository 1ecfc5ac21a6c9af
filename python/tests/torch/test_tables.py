"""The mode's structure (issue 56): its op tables are keyed by PyTorch's own op objects (a
misspelled op fails at import instead of running on the host unseen), and the modules of mxu.torch
import one way (no cycle, none put off into a function)."""
import ast
import pathlib

import pytest

torch = pytest.importorskip("torch")
import mxu.torch  # noqa: E402,F401
from mxu.torch import _ops, _quantized  # noqa: E402

PACKAGE = pathlib.Path(mxu.torch.__file__).parent


@pytest.mark.parametrize("table", ["HANDLERS", "HIDDEN_PRODUCTS"])
def test_aten_tables_are_keyed_by_aten_ops(table):
    keys = list(getattr(_ops, table))
    assert keys
    for op in keys:
        assert isinstance(op, torch._ops.OpOverloadPacket), op
        assert getattr(torch.ops.aten, op.__name__) is op


@pytest.mark.parametrize("table", ["HANDLERS", "HIDDEN_PRODUCTS"])
def test_quantized_tables_are_keyed_by_quantized_ops(table):
    for op in getattr(_quantized, table):
        assert isinstance(op, torch._ops.OpOverloadPacket), op
        assert getattr(torch.ops.quantized, op.__name__) is op


def test_the_dispatch_finds_a_handler_by_the_overload_it_sees():
    for overload in (torch.ops.aten.mm.default, torch.ops.aten.mm.out,
                     torch.ops.aten.addmm_.default):
        assert overload.overloadpacket in _ops.HANDLERS
    assert torch.ops.aten._trilinear.default.overloadpacket in _ops.HIDDEN_PRODUCTS


def _imports(path):
    """The mxu.torch modules `path` imports, wherever in the file (a function's too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("mxu.torch."):
                found.add(node.module.rsplit(".", 1)[1])
            elif node.module == "mxu.torch":
                found.update(alias.name for alias in node.names)
    return found


def test_the_modules_import_one_way():
    graph = {p.stem: _imports(p) for p in PACKAGE.glob("*.py")}
    done, path = set(), []

    def visit(module):
        assert module not in path, f"import cycle: {' -> '.join(path + [module])}"
        if module in done:
            return
        path.append(module)
        for imported in sorted(graph.get(module, ())):
            visit(imported)
        path.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)
