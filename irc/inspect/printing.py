"""`debugprint` (Theano's indented tree with ids), `pp` (infix), `pydotprint` (`irc.printing`).

Both work on anything shaped like a graph: a frontend variable, a compiled function (through
its `maker.fgraph` view) or a list of them, so one printer serves before and after compiling."""
from __future__ import annotations

import sys
from typing import Any, TextIO

import numpy as np

# Theano's pprint: arithmetic infix (every operation in parentheses), the rest as functions
_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "mod": "%", "pow": "**",
          "and": "&", "or": "|", "xor": "^", "dot": "\\dot"}
_PREFIX = {"neg": "-", "logical_not": "~"}


def constant_label(data: Any, name: str | None = None) -> str:
    """Theano's `TensorConstant{...}`: the value, `(shape) of v` when every element is v, long
    texts shortened in the middle."""
    if name is not None:
        return name
    data = np.asarray(data)
    if data.size > 1 and (data == data.reshape(-1)[0]).all():
        text = f"{data.shape} of {data.reshape(-1)[0]}"
    else:
        text = str(data)
    if len(text) > 20:
        text = text[:10] + ".." + text[-10:]
    return f"TensorConstant{{{text}}}"


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
    if all(hasattr(obj, a) for a in ("op", "inputs", "outputs")):   # a node: its outputs, as Theano's
        return list(obj.outputs), {}
    maker = getattr(obj, "maker", None)
    if maker is not None:
        fg = maker.fgraph
        return list(fg.outputs), {id(n): i for i, n in enumerate(fg.toposort())}
    return [obj], {}


def _label(var: Any) -> str:
    owner = getattr(var, "owner", None)
    if owner is None:
        data = getattr(var, "data", None)
        if not isinstance(data, np.ndarray):
            return str(var)
        literal = getattr(getattr(var, "tag", None), "literal", None)
        return constant_label(literal if literal is not None else data, var.name)
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
        signature = getattr(var, "signature", None)  # equal constants are one (Theano merges them)
        key = id(owner) if owner is not None else (signature() if callable(signature) else id(var))
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
        last = len(owner.inputs) - 1
        for k, inp in enumerate(owner.inputs):  # the last child's subtree has no rail beside it
            walk(inp, child_prefix + " |", child_prefix + (" |" if k < last else "  "), level + 1)

    for root in roots:
        walk(root, "", "", 0)
    text = "\n".join(lines) + "\n"
    if file == "str":
        return text
    (file or sys.stdout).write(text)
    return None


def _pp_name(op: Any) -> str:
    """The table row an op stands for (`div`, `exp`, ...), else its printed name."""
    name = getattr(op, "scalar_op", None)
    if isinstance(name, str):
        return name
    ir_name = getattr(op, "ir_name", "") or ""
    if ir_name == "tensor.dot":
        return "dot"
    return ir_name.split(".", 1)[-1] if ir_name.startswith("tensor.") and hasattr(op, "ir") else str(op)


def _leading_new_axes(op: Any) -> int | None:
    """For a DimShuffle that only puts broadcastable dims in front (broadcasting): how many."""
    order = getattr(op, "new_order", None)
    if order is None:
        return None
    k = 0
    while k < len(order) and order[k] == "x":
        k += 1
    return k if list(order[k:]) == list(range(len(order) - k)) else None


def pp(var: Any) -> str:
    """Theano's pprint: `gt((TensorConstant{1} / (TensorConstant{1} + exp((-(x \\dot w))))), ...)`:
    arithmetic infix with every operation in parentheses, other ops as functions, broadcasting
    dimshuffles left out, a transpose as `.T`."""
    memo: dict[int, str] = {}

    def show(v: Any) -> str:
        if id(v) in memo:
            return memo[id(v)]
        owner = getattr(v, "owner", None)
        if owner is None:
            text = _label(v)
        elif getattr(v, "name", None) and owner is not None and False:
            text = v.name
        else:
            op = owner.op
            args = [show(i) for i in owner.inputs]
            sname = _pp_name(op)
            new_axes = _leading_new_axes(op)
            order = getattr(op, "new_order", None)
            if new_axes is not None:
                text = args[0]
            elif order is not None and list(order) == list(reversed(range(len(order)))):
                text = f"{args[0]}.T"
            elif sname in _INFIX and len(args) == 2:
                text = f"({args[0]} {_INFIX[sname]} {args[1]})"
            elif sname in _PREFIX and len(args) == 1:
                text = f"({_PREFIX[sname]}{args[0]})"
            else:
                text = f"{_FUNCTION_NAMES.get(sname, sname)}({', '.join(args)})"
        memo[id(v)] = text
        return text

    if getattr(var, "maker", None) is not None:
        return "\n".join(pp(o) for o in var.maker.fgraph.outputs)
    return show(var)


_FUNCTION_NAMES = {"ne": "neq", "select": "switch", "sign": "sgn", "square": "sqr", "reciprocal": "inv",
                   "abs": "abs_", "round": "round_half_to_even", "Alloc": "fill"}


pprint = pp  # Theano's `theano.printing.pprint`


def pydotprint(obj: Any, outfile: str | None = None, format: str | None = None,
               print_output_file: bool = True) -> str:
    """Draw the graph of a compiled function, a module or variables (see `dot.py`); imported on
    use, so `debugprint` and `pp` do not pay for networkx."""
    from .dot import pydotprint as draw
    return draw(obj, outfile, format, print_output_file)
