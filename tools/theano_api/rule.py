"""Which of Theano's tests touch only its user API: the rule, the same for every backend.

A test is *in* unless the text of the code it runs names a Theano internal. That text is the
test's own source, its class's set-up methods, and — followed transitively — the functions and
methods of Theano's test files it names (`helper(...)`, `self.helper(...)`), the module- or
class-level assignments of the other names it uses (`mode = get_default_mode().including(...)`,
`TestAdd = makeBroadcastTester(op=inplace.add_inplace, ...)` for a generated class), and the
`from theano.X import name` line of each imported name it uses. The internals (`INTERNALS`) are:
the compiled graph (`f.maker.fgraph.toposort()`, `.owner.op`), optimizer selection
(`.including(...)`, `Mode(...)`, `mode='...'` other than FAST_RUN/FAST_COMPILE, `optimizer=`),
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
import textwrap
from functools import lru_cache

INTERNALS: dict[str, re.Pattern] = {name: re.compile(pattern) for name, pattern in {
    "compiled graph": r"\.maker\b|\bfgraph\b|\.toposort\(|assertFunctionContains|\.owner\.op\b",
    "optimizer selection": (r"\.including\(|\.excluding\(|\.requiring\(|\boptimizer\s*=|\boptdb\b"
                            r"|\bregister_(canonicalize|specialize|stabilize)\b|\bget_mode\(|\bMode\("
                            r"|\bmode\s*=\s*['\"](?!FAST_RUN['\"]|FAST_COMPILE['\"])"),
    "linker or C code": (r"\blinker\b|\bc_code\b|CLinker\b|PerformLinker|VM_Linker|\bconfig\.cxx\b"
                         r"|\bcthunk|\bc_support_code|\.c_[a-z_]+\(|\bopenmp"),
    "debug or profile mode": r"DebugMode|DEBUG_MODE|ProfileMode|\bdebugmode\b|ProfileStats",
    "in-place op": r"\binplace\.\w|\w_inplace\b",
    "Op implementation": (r"\bmake_node\b|\binfer_shape\b|_compile_and_check|InferShapeTester"
                          r"|\bdestroy_map\b|\bview_map\b|check_stack_trace"),
    "internal module": (r"\btheano\.(gof|scalar|sparse|gpuarray|misc|tensor\.(opt|blas|inplace|raw_random"
                        r"|elemwise|subtensor)|scan_module\.(scan_op|scan_utils)"
                        r"|compile\.(function_module|debugmode|profiling))\b|\bgof\.|\bscal\."),
}.items()}


@lru_cache(maxsize=None)
def _module_names(filename: str) -> tuple[dict[str, str], dict[str, str]]:
    """A test file's module-level assignments and import lines, by the name they bind."""
    source = open(filename).read()
    tree = ast.parse(source)
    assigned: dict[str, str] = {}
    imported: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        assigned[name.id] = ast.get_source_segment(source, node) or ""
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                imported[alias.asname or alias.name] = f"from {node.module} import {alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                imported[alias.asname or alias.name.split(".")[0]] = f"import {alias.name}"
    return assigned, imported


def _source(obj) -> str:
    try:
        return textwrap.dedent(inspect.getsource(obj))
    except (OSError, TypeError):
        return ""


def _class_assignments(cls: type) -> dict[str, str]:
    found: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        source = _source(klass)
        if not source:
            continue
        try:
            body = ast.parse(source).body
        except SyntaxError:
            continue
        if body and isinstance(body[0], ast.ClassDef):
            for node in body[0].body:
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            found[target.id] = ast.get_source_segment(source, node) or ""
    return found


def _is_theanos_test_code(obj, roots: tuple[str, ...]) -> bool:
    filename = getattr(getattr(obj, "__code__", None), "co_filename", "")
    return filename.startswith(roots)


def reachable_text(function, cls: type | None, roots: tuple[str, ...]) -> str:
    """The source text a test runs, as the module docstring defines it."""
    texts: list[str] = []
    todo = [function]
    if cls is not None:
        todo += [getattr(cls, name) for name in ("setUp", "setup_method", "setUpClass", "setup_class")
                 if hasattr(cls, name)]
        filename = inspect.getsourcefile(function) if _is_theanos_test_code(function, roots) else None
        if filename:
            texts.append(_module_names(filename)[0].get(cls.__name__, ""))
    class_assigned = _class_assignments(cls) if cls is not None else {}
    seen: set[int] = set()
    while todo:
        current = todo.pop()
        current = getattr(current, "__func__", current)
        if id(current) in seen or not _is_theanos_test_code(current, roots):
            continue
        seen.add(id(current))
        source = _source(current)
        texts.append(source)
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        assigned, imported = _module_names(current.__code__.co_filename)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                value = current.__globals__.get(node.id)
                if inspect.isfunction(value):
                    todo.append(value)
                texts.append(assigned.get(node.id, ""))
                texts.append(imported.get(node.id, ""))
            elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                  and node.value.id in ("self", "cls") and cls is not None):
                value = inspect.getattr_static(cls, node.attr, None)
                value = getattr(value, "__func__", value)
                if inspect.isfunction(value):
                    todo.append(value)
                texts.append(class_assigned.get(node.attr, ""))
    return "\n".join(texts)


def classify(function, cls: type | None, roots: tuple[str, ...]) -> str | None:
    """None when the test touches only the user API, else the kind of internal it names."""
    text = reachable_text(function, cls, roots)
    for kind, pattern in INTERNALS.items():
        if pattern.search(text):
            return kind
    return None
