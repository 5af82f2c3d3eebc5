"""The frontend's modules import each other in layers, never in a circle, and never from
inside a function (a hidden cycle): graph core < ops < `T.*` functions < derivative rules <
compilation. A new op is one file that imports downward only."""
from __future__ import annotations

import ast
import pathlib

import irc.frontend

FRONTEND = pathlib.Path(irc.frontend.__file__).parent


def _frontend_imports(tree: ast.AST) -> list[tuple[str, bool]]:
    """(module, at top level?) for each `irc.frontend` module a file imports."""
    found = []
    top = set(map(id, tree.body))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module] if node.module else [a.name for a in node.names]
            found += [(n.split(".")[0], id(node) in top) for n in names]
    return found


def _graph() -> dict[str, list[tuple[str, bool]]]:
    return {p.stem: _frontend_imports(ast.parse(p.read_text())) for p in FRONTEND.glob("*.py")
            if p.stem != "__init__"}


def test_no_function_local_imports_of_frontend_modules():
    local = [(mod, dep) for mod, deps in _graph().items() for dep, at_top in deps if not at_top]
    assert local == []


def test_frontend_modules_form_no_cycle():
    graph = {m: {d for d, _ in deps} for m, deps in _graph().items()}
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                raise AssertionError("import cycle: " + " -> ".join(path + [m, d]))
            if d not in state:
                visit(d, path + [m])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])


CORE = {"tensor_type", "dtypes", "graph", "operators"}
OPS = {"elemwise", "blas", "reduce", "shape_ops", "subtensor", "join", "creation_ops", "order_ops", "integer_index", "advanced_index",
       "random_op", "softmax_ops", "scan_op", "ifelse_op", "gradient_ops", "conv_ops", "pool_ops",
       "user_gpu_op"}


def test_core_and_ops_import_downward_only():
    graph = _graph()
    for mod in CORE:
        assert {d for d, _ in graph[mod]} <= CORE, mod
    for mod in OPS:
        assert {d for d, _ in graph[mod]} <= CORE, mod
