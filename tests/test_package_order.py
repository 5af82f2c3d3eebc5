"""The package's levels, as data: a module imports its own level or lower ones, never upward, and
no set of modules imports itself in a circle — counting imports at module level, inside
functions, and names of modules written as strings (`importlib.import_module("irc.x")`, a lazy
`"irc.x:fn"`), so nothing reaches upward by name either. Imports under `if TYPE_CHECKING:` never
run; they may name a module of the same level (a type in an annotation) but not of a higher one.

A new folder or top-level module must be given its level here: an unplaced module fails."""
from __future__ import annotations

import ast
import functools
import pathlib
import re
from dataclasses import dataclass

import networkx as nx

import irc

PACKAGE = pathlib.Path(irc.__file__).parent

# Lowest first. Entries of one level may import each other unless the level is `siblings`.
LEVELS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("irc.base",)),
    ("ir", ("irc.ir",)),
    ("dialects", ("irc.dialects",)),
    ("passes", ("irc.passes",)),
    ("conversion", ("irc.conversion",)),
    ("codegen_llvm", ("irc.codegen_llvm",)),
    ("codegen", ("irc.codegen_cpu", "irc.codegen_ptx")),
    ("runtime", ("irc.runtime",)),
    ("frontend", ("irc.frontend",)),
    ("inspect", ("irc.inspect",)),
    ("api", ("irc", "irc.config", "irc.configdefaults", "irc.plugins", "irc.tensor", "irc.printing", "irc.ifelse",
             "irc.scan_module", "irc.gradient", "irc.compile", "irc.sandbox",
             "irc.gof", "irc.misc")),
    ("cli", ("irc.cli",)),
]
SIBLINGS = {"codegen"}  # a cpu code generator never imports the ptx one, nor the reverse

_MODULE_STRING = re.compile(r"(irc(?:\.\w+)+)(?::\w+)?\Z")


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    annotation_only: bool


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The longest prefix of `name` that is a module of the package."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            ids |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return ids


def _docstrings(tree: ast.Module) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _edges(module: str) -> list[Edge]:
    path = MODULES[module]
    tree = ast.parse(path.read_text())
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    annotation_only = _type_checking_nodes(tree)
    docstrings = _docstrings(tree)
    edges = []

    def add(name: str, node: ast.AST) -> None:
        target = _resolve(name)
        if target is not None and target != module:
            edges.append(Edge(module, target, node.lineno, id(node) in annotation_only))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            for alias in node.names:
                add(f"{stem}.{alias.name}" if f"{stem}.{alias.name}" in MODULES else stem, node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            match = _MODULE_STRING.match(node.value)
            if match and match.group(1) in MODULES:
                add(match.group(1), node)
    return edges


def _level_of(module: str) -> tuple[int, str]:
    best = None
    for rank, (name, prefixes) in enumerate(LEVELS):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + ".") and prefix != "irc":
                if best is None or len(prefix) > len(best[2]):
                    best = (rank, name, prefix)
    if best is None:
        raise AssertionError(f"{module} belongs to no level: add it to LEVELS in {__file__}")
    return best[0], best[2]


@functools.lru_cache(maxsize=None)
def all_edges() -> tuple[Edge, ...]:
    """Every import edge of the package (parsed when a test first asks: not at collection, which
    every pytest-xdist worker repeats)."""
    return tuple(e for m in sorted(MODULES) for e in _edges(m))


def test_every_module_has_a_level():
    unplaced = []
    for module in MODULES:
        try:
            _level_of(module)
        except AssertionError:
            unplaced.append(module)
    assert unplaced == [], f"modules outside every level (add them to LEVELS): {unplaced}"


def test_no_import_runs_up_a_level():
    wrong = []
    for e in all_edges():
        (src_rank, src_root), (dst_rank, dst_root) = _level_of(e.source), _level_of(e.target)
        upward = dst_rank > src_rank
        across = (dst_rank == src_rank and src_root != dst_root and LEVELS[src_rank][0] in SIBLINGS)
        cross_annotation = e.annotation_only and src_root != dst_root
        if upward or across or cross_annotation:
            wrong.append(f"{MODULES[e.source].relative_to(PACKAGE.parent)}:{e.line}: {e.source} "
                         f"({LEVELS[src_rank][0]}) imports {e.target} ({LEVELS[dst_rank][0]})")
    assert wrong == [], "imports that run up the levels:\n" + "\n".join(wrong)


def test_no_import_cycle():
    graph = nx.DiGraph()
    graph.add_nodes_from(MODULES)
    graph.add_edges_from((e.source, e.target) for e in all_edges() if not e.annotation_only)
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert cycles == [], f"import cycles: {cycles}"


def test_the_checker_sees_each_kind_of_import():
    """The edges above come from every spelling: relative, absolute, in a function, by name."""
    kinds = {(e.source, e.target) for e in all_edges()}
    assert ("irc.frontend.function", "irc.runtime.graph_view") in kinds      # relative, top
    assert ("irc.cli.opt", "irc.cli.opt_session") in kinds                    # in a function
    assert ("irc.plugins", "irc.dialects") in kinds                           # by name, in a lambda
    assert any(e.annotation_only for e in all_edges())                          # under TYPE_CHECKING
