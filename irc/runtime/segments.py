"""A tensor-level function cut around its user ops (`tensor.custom`): native parts and Python steps.

A user op's `perform` is Python, and its outputs' sizes are known only once it has run. So
the optimized function is cut, in program order, at each top-level `tensor.custom`: the ops
between two user ops become one function of their own (`@f.part0`, ...), compiled like any
other (lower-to-loops, LLVM, one foreign call), taking the values it reads from before it and
returning the values read after it. The runtime then runs part, user op, part, ... over one
list of value slots (`segmented.py`). Constants are evaluated once for the user ops and copied
into each part that reads them, so no part passes them around.

Why cut rather than call back from native code: a callback would need the native code to
allocate results whose sizes only the Python code knows, to hold the GIL inside the thread
pool's parallel loops, and to unwind from a Python exception; between parts all of that is
ordinary Python and each part stays what `lower-to-loops` already compiles (design.md,
"User ops")."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..dialects.builtin import ModuleOp
from ..dialects.func import FuncOp, ReturnOp
from ..dialects.tensor_eval import evaluate
from ..ir.attributes import DenseArrayAttr
from ..ir.core import Operation, Value
from ..ir.transforms import values_from_above

USER_OP = "tensor.custom"


@dataclass
class NativePart:
    """Ops run as one compiled function: `module` holds it; it reads `inputs`, writes `outputs` (slots)."""

    module: Any
    name: str
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]


@dataclass
class UserStep:
    """One user op, run in Python on the arrays of `inputs`, its results to `outputs`;
    `donated`: its operands whose arrays nothing reads afterwards (made by a native part of this
    call, read by no later step, not returned), which an op declaring `destroy_map` may
    overwrite uncopied."""

    op: Operation
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    donated: frozenset = frozenset()


@dataclass
class SegmentPlan:
    num_args: int
    num_slots: int
    steps: list = field(default_factory=list)  # NativePart | UserStep, in program order
    constants: dict = field(default_factory=dict)  # slot -> numpy array (read-only)
    results: tuple[int, ...] = ()


def user_ops(func: Operation) -> list[Operation]:
    """Every `tensor.custom` op of `func`, nested ones included."""
    return [op for op in func.walk() if op.op_name == USER_OP]


def splittable(func: Operation) -> bool:
    """Whether `func` has user ops and all of them are directly in its body (not in a scan or
    an ifelse branch, whose regions are compiled as a whole)."""
    body = func.regions[0].blocks[0]
    found = user_ops(func)
    return bool(found) and all(op.parent is body for op in found)


def _top_level(op: Operation, body: Any) -> Operation:
    while op.parent is not body:
        op = op.parent_op
    return op


def split(func: Operation) -> SegmentPlan:
    """The plan of `func` (a tensor-level `func.func` for which `splittable` holds)."""
    body = func.regions[0].blocks[0]
    slots: dict[Value, int] = {a: i for i, a in enumerate(body.args)}
    plan = SegmentPlan(num_args=len(body.args), num_slots=0)
    constant_ops: dict[Value, Operation] = {}
    pending: list[Operation] = []

    def slot(v: Value) -> int:
        if v not in slots:
            slots[v] = len(slots)
        return slots[v]

    def flush() -> None:
        if pending:
            parts = sum(isinstance(st, NativePart) for st in plan.steps)
            plan.steps.append(_native_part(func, list(pending), parts, slot, constant_ops, body))
            pending.clear()

    for op in body.ops[:-1]:
        if op.op_name == "tensor.constant":
            constant_ops[op.results[0]] = op
            plan.constants[slot(op.results[0])] = evaluate(op, [])[0]
            continue
        if op.op_name != USER_OP:
            pending.append(op)
            continue
        flush()
        plan.steps.append(UserStep(op, tuple(slot(v) for v in op.operands), tuple(slot(r) for r in op.results)))
    flush()
    plan.results = tuple(slot(v) for v in body.ops[-1].operands)
    plan.num_slots = len(slots)
    _mark_donations(plan)
    return plan


def _mark_donations(plan: SegmentPlan) -> None:
    """Fill each user step's `donated`: slots a native part made (fresh arrays: a user op's
    output may alias its input), last read by that step."""
    native_made = {s for step in plan.steps if isinstance(step, NativePart) for s in step.outputs}
    last_read: dict[int, int] = {s: len(plan.steps) for s in plan.results}
    for k, step in enumerate(plan.steps):
        for s in step.inputs:
            last_read[s] = max(last_read.get(s, -1), k)
    for k, step in enumerate(plan.steps):
        if isinstance(step, UserStep):
            step.donated = frozenset(
                i for i, s in enumerate(step.inputs)
                if s in native_made and last_read.get(s) == k
                and step.inputs.count(s) == 1)


def _native_part(func: Operation, ops: list[Operation], index: int, slot: Any,
                 constant_ops: dict, body: Any) -> NativePart:
    """One compiled function holding `ops` (in order), reading from and writing to slots."""
    inside = {id(r) for op in ops for r in op.results}
    reads: list[Value] = []
    for op in ops:
        for v in (*op.operands, *values_from_above(op)):
            if id(v) not in inside and v not in constant_ops and v not in reads:
                reads.append(v)
    owned = set(map(id, ops))
    writes = [r for op in ops for r in op.results
              if any(id(_top_level(u.owner, body)) not in owned for u in r.uses)]
    name = f"{func.sym_name}.part{index}"
    part = FuncOp.create(name, [v.type for v in reads], [], None, None, func.location)
    value_map: dict[Value, Value] = dict(zip(reads, part.body.args))
    for v, op in constant_ops.items():  # only the constants the part reads are kept
        if any(_reads(o, v) for o in ops):
            part.body.append(op.clone(value_map))
    for op in ops:
        copy = op.clone(value_map)
        part.body.append(copy)
        _keep_arguments(copy, part.body.args)
    part.body.append(ReturnOp([value_map[r] for r in writes], [], {}, (), (), func.location))
    part.update_function_type()
    return NativePart(ModuleOp.create([part]), name, tuple(slot(v) for v in reads), tuple(slot(r) for r in writes))


def _reads(op: Operation, v: Value) -> bool:
    return v in op.operands or v in values_from_above(op)


def _keep_arguments(op: Operation, args: list) -> None:
    """Undo an `inplace` mark over a part's argument: that array belongs to the caller (a value
    read later by a user op, a shared variable), not to the part."""
    marks = op.attributes.get("inplace")
    if not isinstance(marks, DenseArrayAttr):
        return
    arg_ids = set(map(id, args))
    kept = [-1 if i >= 0 and id(op.operands[i]) in arg_ids else i for i in marks.value]
    if kept != list(marks.value):
        if all(k == -1 for k in kept):
            del op.attributes["inplace"]
        else:
            op.attributes["inplace"] = DenseArrayAttr(tuple(kept))


def part_modules(module: Any) -> list[Any] | None:
    """The modules of the native parts of `module`'s function, when it has user ops to cut
    around (what `f.ir("llvm")` renders, part by part); None otherwise."""
    func = module.regions[0].blocks[0].ops[0]
    if not splittable(func):
        return None
    return [step.module for step in split(func).steps if isinstance(step, NativePart)]
