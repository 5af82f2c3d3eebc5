"""Which of Theano's tests touch only its user API: the rule, the same for every backend.

A test is *in* unless the text of the code it runs names a Theano internal. That text is the
test's own source, its class's set-up methods, and — followed transitively — the functions and
methods of Theano's test files it names (`helper(...)`, `self.helper(...)`), the module- or
class-level assignments of the other names it uses (`mode = get_default_mode().including(...)`,
`TestAdd = makeBroadcastTester(op=inplace.add_inplace, ...)` for a generated class), and the
`from theano.X import name` line of each imported name it uses — code, not its comments and
docstrings (a helper's docstring may name `make_node` while it calls the user's function). The internals (`INTERNALS`) are:
the compiled graph (`f.maker.fgraph.toposort()`, `.owner.op`), optimizer selection
(`.including(...)`, `Mode(...)`, `optimizer=`),
linkers, C code and OpenMP, DebugMode/profiling, the in-place ops, Op implementation (`make_node`,
`infer_shape`, `destroy_map`), stack-trace checks, and the modules `theano.gof`, `theano.scalar`,
`theano.sparse`, `theano.gpuarray`, `theano.tensor.{opt,blas,inplace,raw_random,elemwise,
subtensor}`, `theano.scan_module.scan_op/scan_utils`, `theano.compile.{function_module,
debugmode,profiling}`. Only the source text decides, never the backend's objects, so irc and
PyTensor are judged on the same tests.
"""
from __future__ import annotations

import ast
import inspect
import re
import sys
import textwrap
from functools import lru_cache

INTERNALS: dict[str, re.Pattern] = {name: re.compile(pattern) for name, pattern in {
    "compiled graph": r"\.maker\b|\bfgraph\b|\.toposort\(|assertFunctionContains|\.owner\.op\b",
    "optimizer selection": (r"\.including\(|\.excluding\(|\.requiring\(|\boptimizer\s*=|\boptdb\b"
                            r"|\bregister_(canonicalize|specialize|stabilize)\b|\bget_mode\(|\bMode\("
                            r"|\bon_opt_error\b|\boptimizer_(verbose|including|excluding)\b"),
    "linker or C code": (r"\blinker\b|\bc_code\b|CLinker\b|PerformLinker|VM_Linker|\bconfig\.cxx\b"
                         r"|\bcthunk|\bc_support_code|\.c_[a-z_]+\(|\bopenmp"),
    "debug or profile mode": r"DebugMode|DEBUG_MODE|ProfileMode|PROFILE_MODE|NanGuardMode|\bdebugmode\b|ProfileStats",
    "in-place op": r"\binplace\.\w|\b(?!accept_inplace\b)\w+_inplace\b",
    "Op implementation": (r"\bmake_node\b|\binfer_shape\b|_compile_and_check|InferShapeTester"
                          r"|\bdestroy_map\b|\bview_map\b|check_stack_trace"),
    "internal module": (r"\btheano\.(gof|scalar|sparse|gpuarray|misc|tensor\.(opt|blas|inplace|raw_random"
                        r"|elemwise|subtensor)|scan_module\.(scan_op|scan_utils)"
                        r"|compile\.(function_module|debugmode|profiling))\b|\bgof\.|\bscal\."),
}.items()}


def _lines(lines: list[str], node: ast.stmt) -> str:
    return "\n".join(lines[node.lineno - 1:node.end_lineno])


@lru_cache(maxsize=None)
def _module_names(filename: str) -> tuple[dict[str, str], dict[str, str]]:
    """A test file's module-level assignments and import lines, by the name they bind."""
    source = open(filename).read()
    tree = ast.parse(source)
    lines = source.splitlines()
    assigned: dict[str, str] = {}
    imported: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        assigned[name.id] = _lines(lines, node)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                imported[alias.asname or alias.name] = f"from {node.module} import {alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:   # `import theano.x.y` binds `theano`: the uses name x.y
                if alias.asname:
                    imported[alias.asname] = f"import {alias.name}"
    return assigned, imported


def _without_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return tree


@lru_cache(maxsize=None)
def _code_text(obj) -> str:
    """`obj`'s source as code only (comments and docstrings dropped), "" when it has none."""
    try:
        source = textwrap.dedent(inspect.getsource(obj))
        return ast.unparse(_without_docstrings(ast.parse(source)))
    except (OSError, TypeError, SyntaxError):
        return ""


def _source(obj) -> str:
    return _code_text(obj)


@lru_cache(maxsize=None)
def _classes_by_qualname(filename: str) -> dict[str, tuple[ast.ClassDef, list[str]]]:
    """Every class statement of a file, by its `__qualname__` (`makeTester.<locals>.Checker`)."""
    source = open(filename).read()
    lines = source.splitlines()
    found: dict[str, tuple[ast.ClassDef, list[str]]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                found[prefix + child.name] = (child, lines)
                visit(child, prefix + child.name + ".")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, prefix + child.name + ".<locals>.")
            else:
                visit(child, prefix)
    visit(ast.parse(source), "")
    return found


@lru_cache(maxsize=None)
def _class_assignments(cls: type) -> dict[str, str]:
    """The class-level assignments of `cls` and of its bases, by the name they bind."""
    found: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        filename = getattr(sys.modules.get(klass.__module__), "__file__", None)
        if not filename or not filename.endswith(".py"):
            continue
        entry = _classes_by_qualname(filename).get(klass.__qualname__)
        if entry is None:
            continue
        node, lines = entry
        for statement in node.body:
            if isinstance(statement, ast.Assign):
                for target in statement.targets:
                    if isinstance(target, ast.Name):
                        found[target.id] = _lines(lines, statement)
    return found


def _is_theanos_test_code(obj, roots: tuple[str, ...]) -> bool:
    filename = getattr(getattr(obj, "__code__", None), "co_filename", "")
    return filename.startswith(roots)


@lru_cache(maxsize=None)
def _references(function) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The global names `function` reads and the attributes of `self`/`cls` it uses."""
    try:
        tree = ast.parse(_source(function))
    except SyntaxError:
        return (), ()
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    attributes = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                  and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")}
    return tuple(sorted(names)), tuple(sorted(attributes))


def reachable_text(function, cls: type | None, roots: tuple[str, ...]) -> str:
    """The source text a test runs, as the module docstring defines it."""
    texts: list[str] = []
    # parameterized.expand's cases wrap the test's function and name it `place_as`
    function = inspect.unwrap(getattr(function, "place_as", function))
    todo = [function]
    if cls is not None:
        todo += [getattr(cls, name) for name in ("setUp", "setup_method", "setUpClass", "setup_class")
                 if hasattr(cls, name)]
        module = sys.modules.get(cls.__module__)
        filename = getattr(module, "__file__", None)
        if filename and filename.startswith(roots):   # a generated class: the line that made it
            assigned = _module_names(filename)[0]
            texts += [assigned.get(name, "") for name, value in vars(module).items() if value is cls]
    class_assigned = _class_assignments(cls) if cls is not None else {}
    seen: set[int] = set()
    while todo:
        current = todo.pop()
        current = getattr(current, "__func__", current)
        if id(current) in seen or not _is_theanos_test_code(current, roots):
            continue
        seen.add(id(current))
        texts.append(_source(current))
        names, attributes = _references(current)
        assigned, imported = _module_names(current.__code__.co_filename)
        for name in names:
            value = current.__globals__.get(name)
            if inspect.isfunction(value):
                todo.append(value)
            texts.append(assigned.get(name, ""))
            texts.append(imported.get(name, ""))
        if cls is not None:
            for attribute in attributes:
                value = inspect.getattr_static(cls, attribute, None)
                value = getattr(value, "__func__", value)
                if inspect.isfunction(value):
                    todo.append(value)
                texts.append(class_assigned.get(attribute, ""))
    return "\n".join(texts)


def classify(function, cls: type | None, roots: tuple[str, ...]) -> str | None:
    """None when the test touches only the user API, else the kind of internal it names."""
    text = reachable_text(function, cls, roots)
    for kind, pattern in INTERNALS.items():
        if pattern.search(text):
            return kind
    return None
