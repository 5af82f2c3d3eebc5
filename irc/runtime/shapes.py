"""Result shapes of a loop-level function, computed in Python from the input shapes.

The caller allocates the results (so a call is one foreign call and results are plain numpy
arrays). Their sizes are the size operands of the returned `loop.alloc`s, which depend only on
`loop.dim`s of the arguments through index arithmetic at the top of the function body: this
interprets exactly that slice, and the `loop.assert_eq`s on sizes, once per distinct set of
input shapes (the runtime caches the answer). Index arithmetic on values read at run time (an
integer index, `loop.check_index`) is left to the native code, except where a result's size
is computed from the value of a 0-d integer argument (a scan's `n_steps`): such an argument is
read here too (`value_args`), through integer casts, constants, `+ - *`, maximum and minimum, and its value joins
the cache key.
"""
from __future__ import annotations

from typing import Sequence

from ..dialects import loop as L
from ..dialects import scalar as S
from ..dialects.func import FuncOp
from ..ir.core import OP_REGISTRY, Operation, Value
from ..ir.types import ScalarType


class ShapeError(ValueError):
    """Input shapes that do not fit together (the message says which op and dims); `op` is the
    failing `loop.assert_eq` when known (its location is the user's line)."""

    op: Operation | None = None
    check: int | None = None  # the failing check's place among the function's (`ShapeProgram`)
    sizes: tuple[int, int] | None = None


class ShapeProgram:
    """The top-level index computations of a function, in order, as plain data (so that a
    warm start can keep it in the compile cache without the IR): each step is a tuple over
    value slots. A size check's step carries its message and its place among the function's
    checks (`loop.CHECKS` in walk order), which the native function turns back into the op.
    (A plain class: a dataclass cost 0.3 ms of every warm start's imports.)"""

    def __init__(self, steps: tuple[tuple, ...],
                 results: tuple[tuple[tuple[int | None, ...], tuple[int, ...]], ...], num_slots: int,
                 value_args: tuple[int, ...] = ()):
        self.steps = steps
        self.results = results  # (static shape, slots of ? sizes)
        self.num_slots = num_slots
        self.value_args = value_args  # 0-d integer arguments whose values sizes depend on

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShapeProgram) and (self.steps, self.results, self.num_slots, self.value_args) == (
            other.steps, other.results, other.num_slots, other.value_args)

    __hash__ = None  # type: ignore[assignment]  (mutable, as the dataclass was)

    def __repr__(self) -> str:
        return (f"ShapeProgram(steps={self.steps!r}, results={self.results!r}, num_slots={self.num_slots!r}, "
                f"value_args={self.value_args!r})")

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
        args = {a: i for i, a in enumerate(func.args)}
        steps = []
        for op in body.ops:  # a loop.dim of a buffer computed in the body (a loop.if result) is data
            if (isinstance(op, kinds) and all(v in known or isinstance(op, L.DimOp) and v in args
                                              for v in op.operands)) or \
                    _reads_integer_argument(op, args) or (_integer_scalar_op(op) and all(v in known for v in op.operands)):
                steps.append(op)
                known.update(op.results)
        for k, alloc in enumerate(results):
            if not all(v in known for v in alloc.operands):
                raise NotImplementedError(
                    f"result #{k} of '{func.sym_name}' (at {alloc.location}) has a size that depends on values "
                    f"read at run time (a slice with symbolic bounds, or a tensor.if whose branches give different "
                    f"sizes; only input shapes and the values of 0-d integer inputs are read before the call): the "
                    f"caller cannot size it before the call")
        needed = _needed(steps, results)
        steps = [op for op in steps if op in needed]
        value_args = tuple(sorted({args[op.operand(0)] for op in steps if isinstance(op, L.LoadOp)}))
        check_index = {op: k for k, op in enumerate(op for op in func.walk() if isinstance(op, L.CHECKS))}
        return _flatten(steps, args, results, check_index, value_args)

    def run(self, shapes: Sequence[tuple[int, ...]], values: Sequence[int] = ()) -> list[tuple[int, ...]]:
        """The result shapes for the arguments' `shapes` (and the `values` of `value_args`).
        A failed size check raises `ShapeError` with `check` set to the check's place."""
        env: list[int] = [0] * self.num_slots
        given = dict(zip(self.value_args, values))
        for step in self.steps:
            kind = step[0]
            if kind == "const":
                env[step[1]] = step[2]
            elif kind == "dim":
                env[step[1]] = shapes[step[2]][step[3]]
            elif kind == "value":
                env[step[1]] = int(given[step[2]])
            elif kind == "copy":
                env[step[1]] = env[step[2]]
            elif kind == "assert":
                a, b = env[step[1]], env[step[2]]
                if a != b:
                    err = ShapeError(f"{step[3]} ({a} vs {b}; input shapes " + ", ".join(map(str, shapes)) + ")")
                    err.check, err.sizes = step[4], (a, b)
                    raise err
            else:
                env[step[1]] = _BINARY[kind](env[step[2]], env[step[3]])
        out = []
        for static, slots in self.results:
            dyn = iter([env[s] for s in slots])
            out.append(tuple(d if d is not None else next(dyn) for d in static))
        return out


def _flatten(steps: list[Operation], args: dict[Value, int], results: list[Operation],
             check_index: dict[Operation, int], value_args: tuple[int, ...]) -> ShapeProgram:
    """The ops of a shape program as tuples over slots (one slot per value computed)."""
    slots: dict[Value, int] = {}

    def slot(v: Value) -> int:
        return slots.setdefault(v, len(slots))

    flat: list[tuple] = []
    for op in steps:
        if isinstance(op, L.ConstantOp):
            flat.append(("const", slot(op.result), op.value))
        elif isinstance(op, L.LoadOp):
            flat.append(("value", slot(op.result), args[op.operand(0)]))
        elif isinstance(op, S.ConstantOp):
            flat.append(("const", slot(op.results[0]), int(op.attributes["value"].value)))
        elif isinstance(op, S.CastOp):
            flat.append(("copy", slot(op.results[0]), slots[op.operand(0)]))
        elif isinstance(op, L.DimOp):
            src = op.operand(0)
            if src not in args:
                raise ValueError("loop.dim of a non-argument at the top level")
            flat.append(("dim", slot(op.result), args[src], op.axis))
        elif isinstance(op, L.AssertEqOp):
            a, b = (slots[v] for v in op.operands)
            flat.append(("assert", a, b, op.message, check_index.get(op)))
        else:
            a, b = (slots[v] for v in op.operands)
            flat.append((op.op_name, slot(op.results[0]), a, b))
    shaped = tuple((tuple(alloc.result.type.shape), tuple(slots[v] for v in alloc.operands)) for alloc in results)
    return ShapeProgram(tuple(flat), shaped, len(slots), value_args)


# the integer scalar ops a shape program replays, by their index twins in the loop dialect
_SCALAR_INT = {"scalar.add": "loop.add", "scalar.sub": "loop.sub", "scalar.mul": "loop.mul",
               "scalar.maximum": "loop.max", "scalar.minimum": "loop.min"}
_BINARY = {**L.INDEX_BINARY, **{s: L.INDEX_BINARY[i] for s, i in _SCALAR_INT.items()}}


def _integer_scalar_op(op: Operation) -> bool:
    """Integer arithmetic the shape program can replay (casts between integer types included)."""
    if not (isinstance(op, (S.ConstantOp, S.CastOp)) or op.op_name in _SCALAR_INT):
        return False
    types = [v.type for v in (*op.operands, *op.results)]
    return all(isinstance(t, ScalarType) and t.is_integer and t.bitwidth != 1 for t in types)


def _reads_integer_argument(op: Operation, args: dict[Value, int]) -> bool:
    """A load of a 0-d integer argument (its value may size a result)."""
    if not isinstance(op, L.LoadOp) or op.operand(0) not in args:
        return False
    t = op.operand(0).type
    return t.rank == 0 and t.element.is_integer


def _needed(steps: list[Operation], results: list[Operation]) -> set[Operation]:
    """The steps the results' sizes and the size checks depend on."""
    defining = {r: op for op in steps for r in op.results}
    needed: set[Operation] = set()
    stack = [v for a in results for v in a.operands] + [v for op in steps if isinstance(op, L.AssertEqOp)
                                                       for v in op.operands]
    needed.update(op for op in steps if isinstance(op, L.AssertEqOp))
    while stack:
        op = defining.get(stack.pop())
        if op is not None and op not in needed:
            needed.add(op)
            stack.extend(op.operands)
    return needed
