"""Result shapes of a loop-level function, computed in Python from the input shapes.

The caller allocates the results (so a call is one foreign call and results are plain numpy
arrays). Their sizes are the size operands of the returned `loop.alloc`s, which depend only on
`loop.dim`s of the arguments through index arithmetic at the top of the function body: this
interprets exactly that slice, and the `loop.assert_eq`s on sizes, once per distinct set of
input shapes (the runtime caches the answer). Index arithmetic on values read at run time (an
integer index, `loop.check_index`) is left to the native code.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..dialects import loop as L
from ..dialects.func import FuncOp
from ..ir.core import OP_REGISTRY, Operation, Value


class ShapeError(ValueError):
    """Input shapes that do not fit together (the message says which op and dims); `op` is the
    failing `loop.assert_eq` when known (its location is the user's line)."""

    op: Operation | None = None
    sizes: tuple[int, int] | None = None


@dataclass
class ShapeProgram:
    """The top-level index computations of a function, in order, ready to interpret."""

    steps: list[Operation]
    args: dict[Value, int]
    results: list[Operation]  # the returned allocs

    @staticmethod
    def of(func: FuncOp) -> "ShapeProgram":
        body = func.body
        ret = body.terminator
        results = []
        for v in ret.operands:
            owner = v.owner
            if not isinstance(owner, L.AllocOp):
                raise ValueError(f"'{func.sym_name}': result is not a returned loop.alloc")
            results.append(owner)
        kinds = (L.DimOp, L.ConstantOp, L.AssertEqOp, *[OP_REGISTRY[n] for n in L.INDEX_BINARY])
        known: set[Value] = set()  # values computed from sizes alone (not from loaded data)
        steps = []
        args = set(func.args)
        for op in body.ops:  # a loop.dim of a buffer computed in the body (a loop.if result) is data
            if isinstance(op, kinds) and all(v in known or isinstance(op, L.DimOp) and v in args
                                             for v in op.operands):
                steps.append(op)
                known.update(op.results)
        for k, alloc in enumerate(results):
            if not all(v in known for v in alloc.operands):
                raise NotImplementedError(
                    f"result #{k} of '{func.sym_name}' (at {alloc.location}) has a size that depends on values "
                    f"read at run time (a slice with symbolic bounds, or a tensor.if whose branches give different "
                    f"sizes): the caller cannot size it before the call")
        return ShapeProgram(steps, {a: i for i, a in enumerate(func.args)}, results)

    def run(self, shapes: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
        env: dict[Value, int] = {}
        for op in self.steps:
            if isinstance(op, L.ConstantOp):
                env[op.result] = op.value
            elif isinstance(op, L.DimOp):
                src = op.operand(0)
                if src not in self.args:
                    raise ValueError("loop.dim of a non-argument at the top level")
                env[op.result] = shapes[self.args[src]][op.axis]
            elif isinstance(op, L.AssertEqOp):
                a, b = (env[v] for v in op.operands)
                if a != b:
                    err = ShapeError(f"{op.message} ({a} vs {b}; input shapes "
                                     + ", ".join(map(str, shapes)) + ")")
                    err.op, err.sizes = op, (a, b)
                    raise err
            else:
                a, b = (env[v] for v in op.operands)
                env[op.result] = L.INDEX_BINARY[op.op_name](a, b)
        out = []
        for alloc in self.results:
            dyn = iter(env[v] for v in alloc.operands)
            out.append(tuple(d if d is not None else next(dyn) for d in alloc.result.type.shape))
        return out
