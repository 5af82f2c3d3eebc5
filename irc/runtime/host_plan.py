"""What the host side of a GPU function does for given input shapes, recorded once per shape
signature: the buffers to allocate and the kernel launches with every parameter computed.

After `outline-kernels`, a host function holds only index arithmetic (`loop.dim`,
`loop.constant`, `loop.add`, ...), shape checks (`loop.assert_eq`, `loop.check_index` of an
index the host knows), buffer allocations, views
(`loop.transpose`/`subview`/`broadcast`/`reshape`), `gpu.launch`es, library calls (`gpu.gemm`),
copies of host arguments that a branch reads (`gpu.upload`) and the data checks read back after them (`loop.check_flag`: `HostPlan.checks`); its control
flow (a device scan's loop over a step count the host knows, a branch on sizes) depends on
the data only through the flags it reads back between launches (`gpu.read_flag`: a scan's
`until`), which a plan assumes false until told otherwise (`run_readbacks`). Interpreting it for concrete input shapes gives a `HostPlan`: buffers are
numbered slots (the arguments first, then one per `loop.alloc`), memrefs are `View`s of a slot
(offset, shape and strides in elements), launches name their kernel and arguments. The PyCUDA
runtime and the CPU emulator both execute plans; neither reads the host IR per call."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

import numpy as np

from ..dialects import gpu as G
from ..dialects import loop as L
from ..dialects.builtin import MemRefType
from ..dialects.func import FuncOp, ReturnOp
from ..dialects.tensor_eval import evaluate_scalar
from ..ir.core import Operation, Value
from .shapes import ShapeError


@dataclass(frozen=True)
class View:
    """A memref at the host level: elements `offset + sum(i_k * strides[k])` of buffer `slot`."""

    slot: int
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]

    @property
    def dense(self) -> bool:
        return self.offset == 0 and self.strides == _dense(self.shape)


@dataclass(frozen=True)
class Alloc:
    slot: int
    shape: tuple[int, ...]
    dtype: np.dtype


@dataclass(frozen=True)
class Launch:
    kernel: str
    args: tuple[Any, ...]      # a View per memref argument, an int per index, a number per scalar
    work: int
    op: Operation              # the gpu.launch (its location names the user's line)


@dataclass(frozen=True)
class GemmCall:
    """A `gpu.gemm`: C = alpha·A·B + beta·C by the BLAS library, in launch order. `name` is
    the profiler's key (`blas_entry_name`)."""

    name: str
    a: View
    b: View
    c: View
    alpha: float
    beta: float
    op: Operation
    c_in: View | None = None  # copied into c first, unless it is c's storage when called
    tf32: bool = False        # float32 on TF32 tensor cores

    @property
    def work(self) -> int:
        """The result's elements (a call with none is dropped, as an empty launch is)."""
        n = 1
        for d in self.c.shape:
            n *= d
        return n


@dataclass(frozen=True)
class Upload:
    """A `gpu.upload`: the host argument in slot `src.slot` copied into `dst`, in launch order."""

    src: View
    dst: View
    op: Operation

    @property
    def work(self) -> int:
        n = 1
        for d in self.dst.shape:
            n *= d
        return n


def blas_entry_name(index: int) -> str:
    """The name of the host function's `index`-th library call (in program order), one
    string object per name: the profiler keys its rows by identity."""
    return sys.intern(f"cublas_gemm_{index}")


@dataclass(frozen=True)
class Check:
    """A `loop.check_flag`: after the launches, the call fails with the op's message when the
    flag (element 0 of `flag`) is not 0."""

    flag: View
    op: Operation


@dataclass(frozen=True)
class Readback:
    """A `gpu.read_flag`: once the plan's first `position` launches are done, the host reads the
    flag in `flag` (element 0); `allocs` allocations were made before it. The plan was recorded
    with it read false, unless its index was among the recording's `stops`."""

    flag: View
    position: int
    allocs: int


@dataclass(frozen=True)
class Branch:
    """A `loop.if` on a flag a kernel computed, kept whole (`record_plan(branches=True)`): the
    launches of `then` or of `otherwise` run as the flag says, decided on the device (a CUDA
    graph's conditional nodes) or by reading it back. Both write their results into the same
    buffers, so the launches after it are one list whichever ran."""

    flag: View
    then: tuple
    otherwise: tuple
    op: Operation
    work: int = 1  # (never dropped as an empty launch)


class NotBranchable(Exception):
    """Why a plan cannot keep its branches whole: it reads its flags back instead."""


@dataclass(frozen=True)
class _Flag:
    """A flag read back, while recording with branches kept whole: only a `loop.if` may read it."""

    view: View


@dataclass
class HostPlan:
    n_args: int
    allocs: list[Alloc]
    launches: list[Launch | GemmCall | Upload]  # in program order
    results: list[View]
    checks: list[Check] = field(default_factory=list)
    readbacks: list[Readback] = field(default_factory=list)

    @property
    def n_slots(self) -> int:
        return self.n_args + len(self.allocs)


class UnsupportedHostOp(NotImplementedError):
    """An op the host side of a GPU function cannot run (it would touch device memory)."""


def _dense(shape: Sequence[int]) -> tuple[int, ...]:
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))


def _sizes(t: MemRefType, dynamic: list[int]) -> tuple[int, ...]:
    it = iter(dynamic)
    return tuple(d if d is not None else next(it) for d in t.shape)


def host_value_args(func: FuncOp) -> list[int]:
    """The arguments whose values a plan depends on (read by `loop.host_value`), in order."""
    found = {func.args.index(op.operand(0)) for op in func.body.ops if isinstance(op, L.HostValueOp)}
    return sorted(found)


def record_plan(func: FuncOp, shapes: Sequence[tuple[int, ...]], dtypes: Sequence[Any],
                values: dict[int, int] | None = None, stops: tuple[int, ...] = (),
                branches: bool = False) -> HostPlan:
    """The plan of `func` (a host function after outline-kernels) for arguments of `shapes`
    (and, for the arguments `host_value_args` names, of `values`: argument -> its integer),
    with the flags it reads back (`gpu.read_flag`, by index in reading order) false except
    those in `stops`; a `ShapeError` when the shapes do not fit (the failing `loop.assert_eq`
    names the op). With `branches`, each `loop.if` on a flag is kept whole (`Branch`) and no
    flag is read back; `NotBranchable` says why that cannot be (a flag a loop's exit reads,
    branches whose results differ in size, a data check or an upload in a branch)."""
    return _Recorder(func, shapes, values, stops, branches).record()


def record_plan_branches_first(func: FuncOp, shapes: Sequence[tuple[int, ...]], dtypes: Sequence[Any],
                               values: dict[int, int] | None = None) -> HostPlan:
    """The plan with its branches kept whole where it can be, else the one that reads flags back."""
    if not reads_flags(func):
        return record_plan(func, shapes, dtypes, values)
    try:
        return record_plan(func, shapes, dtypes, values, branches=True)
    except NotBranchable:
        return record_plan(func, shapes, dtypes, values)


def reads_flags(func: FuncOp) -> bool:
    """Whether `func` reads flags back between its launches (its plans follow the data)."""
    return any(isinstance(op, G.ReadFlagOp) for op in func.walk())


def run_readbacks(plan: HostPlan, replan: Callable[[tuple[int, ...]], HostPlan],
                  run: Callable[[HostPlan, int, int], None], read: Callable[[View], bool],
                  switch: Callable[[HostPlan, int], None]) -> HostPlan:
    """Runs `plan` (recorded with every flag false) up to each readback, reads the flag, and
    when one is set goes on with the plan of that path: `replan(stops)` records it (the
    readbacks read true so far, by index). Both plans agree on every launch and allocation
    before that readback (recording is deterministic), so the launches run so far and their
    buffers stand; `switch(new, allocs)` gives the call the new plan's buffers from
    allocation `allocs` on. `run(plan, lo, hi)` runs launches lo..hi-1. The plan of the path
    taken is returned: its results and checks are the call's."""
    stops: tuple[int, ...] = ()
    done = 0
    k = 0
    while k < len(plan.readbacks):
        rb = plan.readbacks[k]
        run(plan, done, rb.position)
        done = rb.position
        if read(rb.flag):
            stops += (k,)
            plan = replan(stops)
            switch(plan, rb.allocs)
        k += 1
    run(plan, done, len(plan.launches))
    return plan


class _Recorder:
    """Interprets a host function for concrete shapes. Its loops (a device scan's steps) run
    here, once, so the plan lists every step's launches in order: a loop of n steps is n copies
    of its launches, each with its own row views. A buffer freed in a step is reused by the next
    allocation of its shape and dtype in a step (the launches run in order on one stream), so a
    loop's temporaries take one slot, not one per step."""

    def __init__(self, func: FuncOp, shapes: Sequence[tuple[int, ...]], values: dict[int, int] | None,
                 stops: tuple[int, ...] = (), branches: bool = False):
        self.func, self.shapes, self.values, self.stops = func, shapes, values, stops
        self.branches = branches
        self.readbacks: list[Readback] = []
        self.env: dict[Value, Any] = {}
        self.allocs: list[Alloc] = []
        self.launches: list[Launch | GemmCall | Upload] = []
        self.results: list[View] = []
        self.checks: list[Check] = []
        self.free: dict[tuple, list[int]] = {}  # (shape, dtype) -> slots a dealloc gave back
        self.flags: set[int] = set()  # slots of data checks: read after all launches, never reused
        self.depth = 0  # loops being run: slots are reused inside loops only (a buffer made at
        # the top level may be a result, whose storage the caller may choose: an argument's)
        self.gemms = 0
        self.given: list[int] = []  # the slot of each allocation run, in order

    def dtype(self, slot: int) -> np.dtype:
        return self.allocs[slot - len(self.func.args)].dtype

    def record(self) -> HostPlan:
        func = self.func
        for i, (arg, shape) in enumerate(zip(func.args, self.shapes)):
            if not isinstance(arg.type, MemRefType):
                raise UnsupportedHostOp(f"argument {i} of '{func.sym_name}' is not a buffer")
            self.env[arg] = View(i, 0, tuple(shape), _dense(shape))
        self.run_block(func.body)
        return HostPlan(len(func.args), self.allocs, self.launches, self.results, self.checks,
                        self.readbacks)

    def run_block(self, block) -> list[Any]:
        """Runs `block`'s ops; the values its terminator yields (a loop body's, a branch's)."""
        env = self.env
        for op in block.ops:
            ins = [env.get(v) for v in op.operands]
            if isinstance(op, L.YieldOp):
                return ins
            if self.branches and not isinstance(op, L.IfOp) and any(isinstance(x, _Flag) for x in ins):
                raise NotBranchable(f"'{op.op_name}' reads a flag the device computed")
            self.run_op(op, ins)
        return []

    def run_op(self, op: Operation, ins: list[Any]) -> None:
        env = self.env
        if isinstance(op, L.ConstantOp):
            env[op.result] = op.value
        elif isinstance(op, L.DimOp):
            env[op.result] = ins[0].shape[op.axis]
        elif op.op_name in L.INDEX_BINARY:
            env[op.result] = L.INDEX_BINARY[op.op_name](ins[0], ins[1])
        elif op.op_name.startswith("scalar."):  # a number computed from sizes (`1 / n`)
            env[op.result] = evaluate_scalar(op, ins)[()]
        elif isinstance(op, L.AssertEqOp):
            if ins[0] != ins[1]:
                err = ShapeError(f"{op.message} ({ins[0]} vs {ins[1]}; input shapes "
                                 + ", ".join(map(str, self.shapes)) + ")")
                err.op, err.sizes = op, (ins[0], ins[1])
                raise err
        elif isinstance(op, L.CheckIndexOp):  # an index known without the device's data
            i, n = ins
            if not -n <= i < n:
                err = ShapeError(f"{op.message} (index {i}, size {n})")
                err.op, err.sizes = op, None
                raise err
            env[op.result] = i + n if i < 0 else i
        elif isinstance(op, L.AllocOp):
            t = op.result.type
            shape, dtype = _sizes(t, ins), np.dtype(t.element.numpy_name)
            reused = self.free.get((shape, dtype)) if self.depth else None
            if reused:
                slot = reused.pop()
            else:
                slot = len(self.func.args) + len(self.allocs)
                self.allocs.append(Alloc(slot, shape, dtype))
            self.given.append(slot)
            env[op.result] = View(slot, 0, shape, _dense(shape))
        elif isinstance(op, L.DeallocOp):  # the buffer is free for a later allocation
            v, dtype = ins[0], np.dtype(op.operand(0).type.element.numpy_name)
            if self.depth and v.slot >= len(self.func.args) and v.slot not in self.flags:
                self.free.setdefault((v.shape, dtype), []).append(v.slot)
        elif isinstance(op, L.GlobalOp):
            pass  # kernels rebuild constants
        elif isinstance(op, (L.TransposeOp, L.SubviewOp, L.BroadcastOp, L.ReshapeOp)):
            # (a view of constant data: kernels rebuild it, the host has nothing to record)
            env[op.result] = None if ins[0] is None else _view(op, ins)
        elif isinstance(op, L.HostValueOp):
            k = self.func.args.index(op.operand(0))
            if self.values is None or k not in self.values:
                raise UnsupportedHostOp(f"'{op.op_name}' at {op.location}: no value given for argument {k}")
            env[op.result] = int(self.values[k])
        elif isinstance(op, L.CheckFlagOp):
            self.checks.append(Check(ins[0], op))
            self.flags.add(ins[0].slot)
        elif isinstance(op, G.ReadFlagOp) and self.branches:
            env[op.result] = _Flag(ins[0])
        elif isinstance(op, L.IfOp) and isinstance(ins[0], _Flag):
            self.run_branch(op, ins[0].view)
        elif isinstance(op, G.ReadFlagOp):
            env[op.result] = len(self.readbacks) in self.stops
            self.readbacks.append(Readback(ins[0], len(self.launches), len(self.allocs)))
        elif isinstance(op, G.UploadOp):
            self.launches.append(Upload(ins[0], ins[1], op))
        elif isinstance(op, G.LaunchOp):
            self.launches.append(Launch(op.kernel, tuple(ins[1:]), int(ins[0]), op))
        elif isinstance(op, G.GemmOp):
            name = blas_entry_name(self.gemms)
            self.gemms += 1
            self.launches.append(GemmCall(name, ins[0], ins[1], ins[2], op.alpha, op.beta, op,
                                          ins[3] if len(ins) == 4 else None, op.tf32))
        elif isinstance(op, L.ForOp):
            self.run_loop(op, ins)
        elif isinstance(op, L.IfOp):  # a branch on a number the host knows
            out = self.run_block(op.branch(bool(ins[0])))
            env.update(zip(op.results, out))
        elif isinstance(op, ReturnOp):
            self.results = list(ins)
        else:
            raise UnsupportedHostOp(f"'{op.op_name}' at {op.location} cannot run on the host "
                                    f"side of a GPU function")

    def run_branch(self, op: L.IfOp, flag: View) -> None:
        """Both branches of a `loop.if` on a device flag, recorded into one `Branch`; what the
        else-branch yields goes into the then-branch's buffers (same sizes asked), so the plan
        after it reads one set of results."""
        start, given, checks = len(self.launches), len(self.given), len(self.checks)
        outs, bodies = [], []
        for taken in (True, False):
            try:
                outs.append(self.run_block(op.branch(taken)))
            except ShapeError as e:  # (a size check fails in a branch: it must not run untaken)
                raise NotBranchable(f"a branch's size check fails for these shapes: {e}") from None
            bodies.append(tuple(self.launches[start:]))
            del self.launches[start:]
        if len(self.checks) != checks or any(isinstance(x, (Upload, Branch)) for b in bodies for x in b):
            raise NotBranchable("a branch reads data checks back, uploads an argument or holds a branch")
        own = set(self.given[given:])  # the slots allocations in the branches took
        rename: dict[int, int] = {}
        for t, e in zip(*outs):
            if not isinstance(t, View):
                if t != e:
                    raise NotBranchable("the branches give different host values")
                continue
            same = isinstance(e, View) and e.shape == t.shape and t.dense and e.dense and \
                {t.slot, e.slot} <= own and self.dtype(t.slot) == self.dtype(e.slot)
            if not same:
                raise NotBranchable("the branches' results differ in size or are not buffers of their own")
            rename[e.slot] = t.slot
            if self.depth and e.slot != t.slot:  # (the else-branch's own buffer is not used)
                self.free.setdefault((e.shape, self.dtype(e.slot)), []).append(e.slot)
        otherwise = tuple(_renamed(x, rename) for x in bodies[1])
        self.launches.append(Branch(flag, bodies[0], otherwise, op))
        self.env.update(zip(op.results, outs[0]))

    def run_loop(self, op: L.ForOp, ins: list[Any]) -> None:
        lo, hi, step, carried = ins[0], ins[1], ins[2], ins[3:]
        body = op.regions[0].blocks[0]
        self.depth += 1
        for i in range(lo, hi, step):
            self.env.update(zip(body.args, [i, *carried]))
            carried = self.run_block(body)
        self.depth -= 1
        self.env.update(zip(op.results, carried))


def _renamed(launch: Launch | GemmCall, slots: dict[int, int]) -> Launch | GemmCall:
    """`launch` with its views of buffer `a` made views of `slots[a]`."""
    def moved(v: Any) -> Any:
        return replace(v, slot=slots[v.slot]) if isinstance(v, View) and v.slot in slots else v
    if isinstance(launch, GemmCall):
        return replace(launch, a=moved(launch.a), b=moved(launch.b), c=moved(launch.c), c_in=moved(launch.c_in))
    return replace(launch, args=tuple(moved(a) for a in launch.args))


def _view(op: Operation, ins: list[Any]) -> View:
    src: View = ins[0]
    if isinstance(op, L.TransposeOp):
        return View(src.slot, src.offset, tuple(src.shape[p] for p in op.perm),
                    tuple(src.strides[p] for p in op.perm))
    if isinstance(op, L.SubviewOp):
        rank = len(src.shape)
        offs, sizes, steps = ins[1:1 + rank], ins[1 + rank:1 + 2 * rank], ins[1 + 2 * rank:]
        offset = src.offset + sum(o * s for o, s in zip(offs, src.strides))
        return View(src.slot, offset, tuple(sizes), tuple(st * s for st, s in zip(steps, src.strides)))
    if isinstance(op, L.BroadcastOp):
        strides = tuple(0 if d < 0 or src.shape[d] == 1 else src.strides[d] for d in op.dims)
        return View(src.slot, src.offset, tuple(ins[1:]), strides)
    shape = _sizes(op.result.type, ins[1:])  # loop.reshape of a contiguous buffer
    return View(src.slot, src.offset, shape, _dense(shape))


def failed_check(check: Check) -> ShapeError:
    """The error of a data check whose flag was set (reported like a failed `check_index`)."""
    err = ShapeError(check.op.message)
    err.op, err.sizes = check.op, None
    return err
