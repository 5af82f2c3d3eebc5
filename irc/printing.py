"""`irc.printing`: `debugprint` (Theano's indented tree with ids), `pp` (infix), `pydotprint`.

Both work on anything shaped like a graph: a frontend variable, a compiled function (through
its `maker.fgraph` view) or a list of them, so one printer serves before and after compiling."""
from __future__ import annotations

import sys
from typing import Any, TextIO

_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "mod": "%", "pow": "**",
          "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "and": "&", "or": "|",
          "xor": "^"}
_PREFIX = {"neg": "-", "logical_not": "~"}
_PRECEDENCE = {"**": 6, "*": 5, "/": 5, "//": 5, "%": 5, "+": 4, "-": 4, "&": 3, "^": 2, "|": 1,
               "==": 0, "!=": 0, "<": 0, "<=": 0, ">": 0, ">=": 0}


def _ids() -> Any:
    """Theano's ids: A, B, ..., Z, BA, BB, ..."""
    n = 0
    while True:
        k, text = n, ""
        while True:
            text = chr(ord("A") + k % 26) + text
            k //= 26
            if k == 0:
                break
        yield text
        n += 1


def _roots(obj: Any) -> tuple[list[Any], dict[int, int]]:
    """The variables to print and, for a function, each node's position in execution order."""
    if isinstance(obj, (list, tuple)):
        roots: list[Any] = []
        order: dict[int, int] = {}
        for o in obj:
            r, od = _roots(o)
            roots += r
            order.update(od)
        return roots, order
    maker = getattr(obj, "maker", None)
    if maker is not None:
        fg = maker.fgraph
        return list(fg.outputs), {id(n): i for i, n in enumerate(fg.toposort())}
    return [obj], {}


def _label(var: Any) -> str:
    owner = getattr(var, "owner", None)
    if owner is None:
        return str(var)
    return str(owner.op) + (f".{var.index}" if len(owner.outputs) > 1 else "")


def debugprint(obj: Any, file: TextIO | str | None = None, depth: int = -1) -> str | None:
    """Print the graph of `obj` as an indented tree, one line per variable with an id; a node
    seen before is printed once and then referred to by its id. `file="str"` returns the text."""
    lines: list[str] = []
    roots, order = _roots(obj)
    ids = _ids()
    seen: dict[int, str] = {}

    def walk(var: Any, prefix: str, child_prefix: str, level: int) -> None:
        owner = getattr(var, "owner", None)
        key = id(owner) if owner is not None else id(var)
        known = key in seen
        if not known:
            seen[key] = next(ids)
        name = getattr(var, "name", None)
        text = f"{prefix}{_label(var)} [id {seen[key]}]"
        if owner is not None:
            text += f" '{name or ''}'"
            if id(owner) in order:
                text += f"   {order[id(owner)]}"
        lines.append(text)
        if owner is None or known or level == depth:
            return
        for inp in owner.inputs:
            walk(inp, child_prefix + " |", child_prefix + " |", level + 1)

    for root in roots:
        walk(root, "", "", 0)
    text = "\n".join(lines) + "\n"
    if file == "str":
        return text
    (file or sys.stdout).write(text)
    return None


def _scalar_name(op: Any) -> str:
    name = getattr(op, "scalar_op", None)
    if isinstance(name, str):
        return name
    ir_name = getattr(op, "ir_name", "") or ""
    return ir_name.split(".", 1)[-1] if ir_name else str(op)


def pp(var: Any) -> str:
    """An infix rendering of a variable's expression: `(exp(x) + (y * 2.0))`-style."""
    memo: dict[int, tuple[str, int]] = {}

    def show(v: Any) -> tuple[str, int]:
        if id(v) in memo:
            return memo[id(v)]
        owner = getattr(v, "owner", None)
        if owner is None:
            name = getattr(v, "name", None)
            result = (name if name else str(v), 10)
        else:
            op = owner.op
            sname = _scalar_name(op)
            args = [show(i) for i in owner.inputs]
            if sname in _INFIX and len(args) == 2:
                sym = _INFIX[sname]
                prec = _PRECEDENCE[sym]
                left = args[0][0] if args[0][1] >= prec else f"({args[0][0]})"
                right = args[1][0] if args[1][1] > prec else f"({args[1][0]})"
                result = (f"{left} {sym} {right}", prec)
            elif sname in _PREFIX and len(args) == 1:
                inner = args[0][0] if args[0][1] >= 7 else f"({args[0][0]})"
                result = (f"{_PREFIX[sname]}{inner}", 7)
            else:
                result = (f"{sname}({', '.join(a[0] for a in args)})", 10)
        memo[id(v)] = result
        return result

    if getattr(var, "maker", None) is not None:
        return "\n".join(pp(o) for o in var.maker.fgraph.outputs)
    return show(var)[0]


def pydotprint(obj: Any, outfile: str | None = None, format: str | None = None,
               print_output_file: bool = True) -> str:
    """Draw the graph of a compiled function, a module or variables (see `printing_dot.py`);
    imported on use, so `import irc` does not pay for networkx."""
    from .printing_dot import pydotprint as draw
    return draw(obj, outfile, format, print_output_file)
