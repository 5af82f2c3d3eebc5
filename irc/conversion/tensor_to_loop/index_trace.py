"""Sizes a tensor program computes from other sizes, recovered as index arithmetic.

`reshape(x, (y.shape[0], -1))`, `alloc(0., x.shape[0] + 1)` and `arange(x.shape[1])` give an
op run-time sizes as *tensors*: single-element integer values built from `tensor.dim`,
constants and integer arithmetic (and, for a shape vector, a `tensor.concat` of such values).
Read back through those ops, they are index values computed from the arguments' sizes alone —
what `loop.alloc` needs, and what the runtime's shape program (`irc/runtime/shapes.py`) can
work out before a call. A size that depends on the data (`arange(n)` for an input `n`) is not:
`index_of` returns None and the lowering reports it — except, on a GPU target, a 0-d integer
user input, whose value the runtime has on the host (`loop.host_value`: the minibatch index
of a `givens` slice)."""
from __future__ import annotations

from ...dialects import loop as L
from ...dialects.builtin import TensorType
from ...ir.core import Value
from ...ir.types import index
from ..loop_builder import Index
from .context import FuncLowering

_ARITHMETIC = {"add": "add", "sub": "sub", "mul": "mul", "floordiv": "floordiv", "maximum": "max",
               "minimum": "min"}
_VIEWS = ("tensor.dimshuffle", "tensor.reshape", "tensor.broadcast", "tensor.cast", "tensor.to_device",
          "tensor.to_host")


def _one_integer(v: Value) -> bool:
    t = v.type
    return isinstance(t, TensorType) and all(d == 1 for d in t.shape) and t.element.is_integer


def _integer_result(op) -> bool:
    t = op.results[0].type
    return getattr(t, "element", t).is_integer


def index_of(ctx: FuncLowering, v: Value) -> Index | None:
    """`v` (a single-element integer tensor) as an index computed from sizes, or None."""
    if not _one_integer(v):
        return None
    op, lb = v.owner, ctx.lb
    name = getattr(op, "op_name", None)
    if name == "tensor.dim":
        axis = op.attributes["axis"].value
        src = op.operand(0)
        static = src.type.shape[axis]
        return lb.const(static) if static is not None else ctx.sizes_of(ctx.buf[src])[axis]
    if name == "tensor.constant":
        return lb.const(int(op.attributes["value"].array.reshape(-1)[0]))
    if name in _VIEWS:
        return index_of(ctx, op.operand(0))
    if name == "tensor.fused":  # size arithmetic that fusion grouped: replay its scalar body
        block = op.regions[0].blocks[0]
        env: dict[Value, Index | None] = {a: index_of(ctx, w) for a, w in zip(block.args, op.operands)}
        for inner in block.ops[:-1]:
            env[inner.results[0]] = _apply(ctx, inner.op_name.split(".", 1)[1],
                                           [env.get(w) for w in inner.operands], inner)
        return env.get(block.ops[-1].operands[v.index])
    if name is None:  # an argument: its value is data, not a size (but see `_host_value`)
        return _host_value(ctx, v)
    return _apply(ctx, name.split(".", 1)[1], [index_of(ctx, w) for w in op.operands], op)


def _host_value(ctx: FuncLowering, v: Value) -> Index | None:
    """A 0-d integer argument of a GPU function that the caller passes from the host (a user
    input, `irc.transfer = "upload"`; not a shared variable, whose value lives on the device):
    its value, which the runtime knows without reading the device (`loop.host_value`; a host
    plan per value). Else None."""
    t = v.type
    if v.owner is not ctx.src.body or t.device is None or t.rank != 0:
        return None
    if "irc.shared" in ctx.src.arg_attrs(v.index):
        return None
    return ctx.lb.create(L.HostValueOp, [ctx.buf[v]], {}, index)


def _apply(ctx: FuncLowering, name: str, args: list[Index | None], op) -> Index | None:
    """Integer arithmetic `name` (an elementwise table row, or `constant`/`cast`) on indices."""
    lb = ctx.lb
    if name == "constant" and op.op_name == "scalar.constant":
        value = op.attributes["value"].value
        return lb.const(int(value)) if isinstance(value, int) and not isinstance(value, bool) else None
    if any(a is None for a in args) or not args:
        return None
    if name == "cast":  # integer to integer (a traced operand is an integer)
        return args[0] if _integer_result(op) else None
    if name == "neg":
        return lb.sub(lb.const(0), args[0])
    if name in _ARITHMETIC and len(args) == 2:
        return getattr(lb, _ARITHMETIC[name])(*args)
    return None


def indices_of_vector(ctx: FuncLowering, v: Value) -> list[Index] | None:
    """The entries of a 1-d integer tensor of sizes, each as an index, or None."""
    t = v.type
    if not (isinstance(t, TensorType) and t.rank == 1 and t.element.is_integer):
        return None
    op = v.owner
    name = getattr(op, "op_name", None)
    if name == "tensor.constant":
        return [ctx.lb.const(int(n)) for n in op.attributes["value"].array.reshape(-1)]
    if name == "tensor.from_elements":
        entries = [index_of(ctx, w) for w in op.operands]
        return None if any(e is None for e in entries) else entries
    if t.shape == (1,):
        entry = index_of(ctx, v)
        return None if entry is None else [entry]
    if name == "tensor.concat":
        out: list[Index] = []
        for part in op.operands:
            if part.type.shape == (1,):
                entry = index_of(ctx, part)
                if entry is None:
                    return None
                out.append(entry)
            else:
                entries = indices_of_vector(ctx, part)
                if entries is None:
                    return None
                out += entries
        return out
    return None
