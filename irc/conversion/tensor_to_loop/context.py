"""The lowering context every tensor-to-loop pattern writes through, and the tables they fill.

`FuncLowering` holds what is known while one function is lowered (the buffer and sizes of each
tensor value, the single elements held as SSA scalars) and the helpers the patterns share. The
pattern modules register themselves here (`lowering`, `single`; the elementwise bodies) and the
pass module (`lower_to_loops.py`) imports them all, so this module sits below every pattern and
imports none: `lower_op` finds a pattern by op name in `LOWERINGS`.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator

from ...dialects import loop as L
from ...dialects.builtin import MemRefType, TensorType
from ...dialects.func import FuncOp, ReturnOp
from ...ir.attributes import IntegerAttr
from ...ir.core import Operation, Value
from ...ir.types import i64
from ...passes.plan_buffers import plan_buffers
from ..loop_builder import Index, LoopBuilder
from .dead_nests import drop_dead_nests
from .simd import SimdRegisters, host_simd

# ---------------------------------------------------------------------------- the tables
Lowering = Callable[["FuncLowering", Operation], None]
LOWERINGS: dict[str, Lowering] = {}
# ops whose lowering reads operands only through `FuncLowering.broadcast_load` (so an operand
# held as a scalar needs no buffer: see `scalars.py`)
BY_ELEMENT: set[str] = {"tensor.fused_reduce"}
# ... and whose sizes come from `FuncLowering.broadcast_sizes` (so a splat operand needs none)
READS_SPLATS: set[str] = {"tensor.fused_reduce"}
# op name -> body(ctx, op): the scalar results from the operands' scalars (one element)
BodyMaker = Callable[["FuncLowering", Operation], Callable[[list[Value]], list[Value]]]
ELEMENTWISE_BODIES: dict[str, BodyMaker] = {}
# op name -> lowering to SSA scalars when every result is a single element (False: not this op)
SingleLowering = Callable[["FuncLowering", Operation], bool]
SINGLE_LOWERINGS: dict[str, SingleLowering] = {}
# checks emitted before any op is lowered (each decides whether the op concerns it): what the
# op's own nest cannot do because it must make the function fail (`integer_power.py`)
PRE_CHECKS: list[Lowering] = []
# lowerings tried before any other, each answering whether it took the op (`splats.py`)
SHORTCUTS: list[SingleLowering] = []


def lowering(*names: str):
    """Register the lowering of tensor ops by name."""
    def register(fn: Lowering) -> Lowering:
        for n in names:
            LOWERINGS[n] = fn
        return fn
    return register


def single(*names: str):
    """Register a lowering to scalars (it returns False to leave an op to its usual one)."""
    def register(fn: SingleLowering) -> SingleLowering:
        for n in names:
            SINGLE_LOWERINGS[n] = fn
        return fn
    return register


# ---------------------------------------------------------------------------- buffer types
def contiguous_type(t: TensorType) -> MemRefType:
    return MemRefType(t.shape, t.element, device=t.device)


def argument_type(t: TensorType) -> MemRefType:
    """Host arguments are any numpy view; device arguments are dense row-major arrays at
    offset 0 (the CUDA runtime guarantees it), so kernels may read them as flat vectors."""
    if t.device is not None:
        return contiguous_type(t)
    return L.view_type(t.shape, t.element)


@dataclass(frozen=True)
class RowsRun:
    """A view of the first `count` rows (from row `first`) of `buf`, which has room for `steps`:
    the result of a scan with `until`, whose size is known only after it ran."""

    buf: Value
    first: Value
    steps: Value
    count: Value


ROWS = "irc.rows"  # on a function result: only as many rows as result #N (a 0-d i64) says are valid


# ---------------------------------------------------------------------------- the context
class FuncLowering:
    """Lowers one function; `buf` maps tensor values to memrefs, `sizes` memrefs to their
    sizes as index values (so no `loop.dim` is needed except on arguments)."""

    def __init__(self, func: FuncOp, allow_gc: bool = True, simd: SimdRegisters | None = None):
        self.src = func
        self.allow_gc = allow_gc
        self.simd = simd or host_simd()  # what the product kernels size their tiles by
        ft = func.function_type
        for t in (*ft.inputs, *ft.results):
            if not isinstance(t, TensorType):
                raise ValueError(f"lower-to-loops: '{func.sym_name}' has a non-tensor type {t}")
        self.func = FuncOp.create(func.sym_name, [argument_type(t) for t in ft.inputs],
                                  [contiguous_type(t) for t in ft.results], location=func.location)
        for key in ("arg_attrs", "res_attrs"):
            if key in func.attributes:
                self.func.attributes[key] = func.attributes[key]
        self.lb = LoopBuilder(self.func.body, func.location)
        self.buf: dict[Value, Value] = {}
        self.scalars: dict[Value, Value] = {}  # single-element tensors held as SSA scalars
        self.splats: dict[Value, tuple[Value, list[Index]]] = {}  # device splats: number, sizes (splats.py)
        self.sizes: dict[Value, list[Index]] = {}
        self.contiguous: set[Value] = set()  # memrefs known to be row-major and dense
        self.absorbed: set[Operation] = set()  # ops another lowering computed (device_epilogue.py)
        self.rows_run: dict[Value, RowsRun] = {}  # views whose sizes are known after a loop ran

    # ------------------------------------------------------------------ driver
    def lower(self) -> FuncOp:
        lb = self.lb
        for old, new in zip(self.src.args, self.func.args):
            new.name_hint = old.name_hint
            self.buf[old] = new
            self.sizes[new] = [lb.dim(new, a) for a in range(new.type.rank)]
            if new.type.device is not None:
                self.contiguous.add(new)
        for op in self.src.body.ops:
            if isinstance(op, ReturnOp):
                lb.location = op.location
                self._return(op)
                continue
            self.lower_op(op)
        drop_dead_nests(self.func)
        plan_buffers(self.func, allow_gc=self.allow_gc)
        return self.func

    def lower_op(self, op: Operation) -> None:
        """Lower one tensor op at the builder's insertion point (also used for the ops of a
        `tensor.if` branch, inside the `loop.if` region, and of a `tensor.scan` body)."""
        if op in self.absorbed:
            return
        self.lb.location = op.location
        for check in PRE_CHECKS:
            check(self, op)
        if lower_single_element(self, op) or any(shortcut(self, op) for shortcut in SHORTCUTS):
            return
        fn = LOWERINGS.get(op.op_name)
        if fn is None:
            raise ValueError(f"lower-to-loops: no loop lowering for '{op.op_name}' "
                             f"(at {op.location})")
        by_element, splats_read = op.op_name in BY_ELEMENT, op.op_name in READS_SPLATS
        for v in op.operands:
            if not by_element or v in self.splats and not splats_read:
                self.materialize(v)
        fn(self, op)

    def _return(self, op: Operation) -> None:
        results = []
        counts: dict[int, Value] = {}
        returned: set[Value] = set()
        for k, (v, t) in enumerate(zip(op.operands, self.func.function_type.results)):
            m = self.materialize(v)
            rows = None if self._on_device() else self.rows_run.get(m)
            if rows is not None:
                m, counts[k] = self._rows_run_result(m, rows, t, returned), rows.count
            owner = m.owner
            # (on a device, a `loop.if` result is a buffer its branch made: the plan knows which)
            owned = isinstance(owner, L.AllocOp) or isinstance(owner, L.IfOp) and self._on_device()
            if not (owned and owner.parent is self.func.body) or m in returned or m.type != t:
                m = self.copy_to_new(m, t)
            returned.add(m)
            results.append(m)
        self._mark_inplace_updates(op)
        if counts:
            self._return_row_counts(results, counts)
        self.lb.b.create(ReturnOp, results, result_types=[])
        if counts:
            self.func.update_function_type()

    def _rows_run_result(self, view: Value, rows: RowsRun, t: MemRefType, returned: set[Value]) -> Value:
        """A returned view of the rows a loop ran: its whole buffer when that holds them from
        row 0, else a buffer with room for every step holding a copy of them (the caller sizes
        results before the call; the count comes back beside them: `_return_row_counts`)."""
        owner = rows.buf.owner
        if self.lb.static_value(rows.first) == 0 and isinstance(owner, L.AllocOp) and \
                owner.parent is self.func.body and rows.buf.type == t and rows.buf not in returned:
            return rows.buf
        sizes = [rows.steps, *self.sizes[view][1:]]
        out = self.lb.alloc(t, [s for d, s in zip(t.shape, sizes)])
        self.sizes[out] = sizes
        self.copy(view, out, self.sizes[view])
        return out

    def _on_device(self) -> bool:
        """Whether the function's arguments or results live on a device: there, a loop's
        step count is a host value (its `until` condition read back each step), so a view of
        the rows run is returned as a buffer of its own, sized when the plan is made."""
        ft = self.func.function_type
        return any(getattr(t, "device", None) is not None for t in (*ft.inputs, *ft.results))

    def _return_row_counts(self, results: list[Value], counts: dict[int, Value]) -> None:
        """After the user's results, one 0-d i64 per result holding rows run (its count), and
        `irc.rows = N` on that result naming it: the runtime hands back that many rows."""
        dicts = [dict(self.func.res_attrs(k)) for k in range(len(results))]
        for k, count in counts.items():
            held = self.lb.alloc(MemRefType((), i64), [])
            self.lb.store(self.lb.cast(count, i64), held, [])
            dicts[k][ROWS] = IntegerAttr(len(results))
            results.append(held)
            dicts.append({})
        self.func.set_res_attrs(dicts)

    def _mark_inplace_updates(self, ret: Operation) -> None:
        """`irc.inplace = N` on result k: computed elementwise from argument N, which nothing
        reads afterwards, so the caller may pass argument N's storage as this result's buffer
        (the `inplace` pass checked it; see the runtime contract in `passes/inplace.py`)."""
        dicts = [dict(self.func.res_attrs(k)) for k in range(len(ret.operands))]
        changed = False
        for k, v in enumerate(ret.operands):
            owner = v.owner
            marks = owner.attributes.get("inplace") if isinstance(owner, Operation) else None
            if marks is None:
                continue
            i = list(marks)[v.index]
            arg = owner.operand(i) if i >= 0 else None
            if arg is not None and arg.owner is self.src.body and "irc.update" in dicts[k]:
                dicts[k]["irc.inplace"] = IntegerAttr(arg.index)
                changed = True
        if changed:
            self.func.set_res_attrs(dicts)

    # ------------------------------------------------------------------ helpers for lowerings
    def operand(self, op: Operation, i: int) -> Value:
        return self.buf[op.operand(i)]

    def sizes_of(self, m: Value) -> list[Index]:
        return self.sizes[m]

    def bind(self, result: Value, m: Value, sizes: list[Index], contiguous: bool = False) -> None:
        """Record that tensor `result` is held by memref `m` of `sizes`."""
        m.name_hint = m.name_hint or result.name_hint
        self.buf[result] = m
        self.sizes[m] = list(sizes)
        if contiguous:
            self.contiguous.add(m)

    def result_sizes(self, t: TensorType, sizes: list[Index]) -> list[Index]:
        """Sizes where static dims of the result type win (the type may know more)."""
        return [self.lb.const(d) if d is not None else s for d, s in zip(t.shape, sizes)]

    def alloc(self, t: TensorType, sizes: list[Index]) -> Value:
        sizes = self.result_sizes(t, sizes)
        m = self.lb.alloc(contiguous_type(t), sizes)
        self.sizes[m] = sizes
        self.contiguous.add(m)
        return m

    def broadcast_sizes(self, op: Operation, operands: list[Value], rank: int) -> list[Index]:
        """Theano broadcasting at run time: per dim, the size of the operands not typed as a
        static 1, which must agree (asserted)."""
        lb = self.lb
        out: list[Index] = []
        for axis in range(rank):
            size: Index | None = None
            for v in operands:
                if v.type.shape[axis] == 1:
                    continue
                s = self.value_sizes(v)[axis]
                if size is None:
                    size = s
                else:
                    lb.assert_eq(size, s, f"'{op.op_name}': operands differ in size in dim {axis} "
                                          f"(only dims of static size 1 broadcast)")
            out.append(size if size is not None else lb.const(1))
        return out

    def holds_number(self, v: Value) -> bool:
        """Whether tensor `v` is one number held as a scalar: a single element, or a splat
        with no buffer made for it (`splats.py`)."""
        return v in self.scalars or v in self.splats and v not in self.buf

    def value_sizes(self, v: Value) -> list[Index]:
        """The sizes of tensor `v`: its buffer's, or a splat's (`splats.py`)."""
        splat = self.splats.get(v)
        return splat[1] if splat is not None else self.sizes[self.buf[v]]

    def materialize(self, v: Value) -> Value:
        """The buffer of tensor `v`; for a value held as a scalar, a new one-element buffer
        stored here, and for a splat one filled with its number (at the top level: lowerings
        ask before they open loops)."""
        m = self.buf.get(v)
        if m is None and (v in self.scalars or v in self.splats):
            t: TensorType = v.type
            value, sizes = self.splats.get(v) or (self.scalars[v], None)
            m = self.alloc(t, sizes or [self.lb.const(1)] * t.rank)
            with self.nest(sizes or [], t.device) as ivs:  # device memory: stored by a kernel
                self.lb.store(value, m, ivs if sizes else [self.lb.const(0)] * t.rank)
            self.bind(v, m, self.sizes[m], contiguous=True)
        return self.buf[v]

    def broadcast_load(self, v: Value, ivs: list[Index]) -> Value:
        """Load tensor `v`'s element at `ivs`, reading index 0 on its static-1 dims (a value
        held as a scalar is that scalar: no load)."""
        if self.holds_number(v):
            return self.scalars[v] if v in self.scalars else self.splats[v][0]
        zero = self.lb.const(0)
        idx = [zero if d == 1 else iv for d, iv in zip(v.type.shape, ivs)]
        return self.lb.load(self.buf[v], idx)

    @contextmanager
    def nest(self, sizes: list[Index], device: str | None) -> Iterator[list[Index]]:
        """`LoopBuilder.parallel` over `sizes`, except that a rank-0 nest writing `device`
        memory is a one-element loop (the host cannot touch device memory: every access to it
        must sit in a nest that becomes a kernel). Yields the indices of rank `len(sizes)`."""
        if sizes or device is None:
            with self.lb.parallel(sizes) as ivs:
                yield ivs
            return
        with self.lb.parallel([self.lb.const(1)]):
            yield []

    def copy(self, src: Value, dst: Value, sizes: list[Index]) -> None:
        with self.nest(sizes, dst.type.device) as ivs:
            self.lb.store(self.lb.load(src, ivs), dst, ivs)

    def copy_to_new(self, m: Value, t: MemRefType) -> Value:
        sizes = self.sizes[m]
        out = self.lb.alloc(t, [s for d, s in zip(t.shape, sizes)])
        self.sizes[out] = sizes
        self.contiguous.add(out)
        self.copy(m, out, sizes)
        return out

    def make_contiguous(self, m: Value) -> Value:
        if m in self.contiguous:
            return m
        t = m.type
        return self.copy_to_new(m, MemRefType(t.shape, t.element, device=t.device))


# ---------------------------------------------------------------------------- single elements
def single_element(t) -> bool:
    """A host tensor type with every dim a static 1 (rank 0 included)."""
    return isinstance(t, TensorType) and t.device is None and all(d == 1 for d in t.shape)


def one_number(t) -> bool:
    """A tensor type with every dim a static 1 (rank 0 included), on any placement."""
    return isinstance(t, TensorType) and all(d == 1 for d in t.shape)


# device ops that may still be host scalars: they read no device memory
HOST_SCALAR_ON_DEVICE = ("tensor.dim", "tensor.constant")


def lower_single_element(ctx: FuncLowering, op: Operation) -> bool:
    """Lower `op` to scalars when all its results are single elements and it is a kind that
    can (then True); else leave it to its ordinary lowering (see `scalars.py`). A device op
    qualifies when it reads no device memory — a size, a constant, or arithmetic on numbers
    already held as scalars (`1 / n` of a batch): the number is then computed on the host
    once per shape signature and reaches kernels as an argument, not through a kernel of
    its own."""
    if not op.results or not all(one_number(r.type) for r in op.results):
        return False
    if not all(single_element(r.type) for r in op.results) and not (
            op.op_name in HOST_SCALAR_ON_DEVICE or all(v in ctx.scalars for v in op.operands)):
        return False
    if op.op_name in SINGLE_LOWERINGS:
        return SINGLE_LOWERINGS[op.op_name](ctx, op)
    body = ELEMENTWISE_BODIES.get(op.op_name)
    if body is None or not all(single_element(v.type) or v in ctx.scalars for v in op.operands):
        return False
    zeros = [ctx.lb.const(0)] * op.results[0].type.rank
    values = body(ctx, op)([ctx.broadcast_load(v, zeros) for v in op.operands])
    for r, v in zip(op.results, values):
        ctx.scalars[r] = v
    return True


# ---------------------------------------------------------------------------- in-place results
def inplace_target(ctx: FuncLowering, op: Operation, j: int) -> Value | None:
    """The operand buffer result `j` may overwrite (the `inplace` pass's mark), when it is a
    temporary of the result's exact type made in the block being emitted (the function's, or
    a scan step's or a branch's: one made before a loop is read again by the next step); None:
    allocate."""
    marks = op.attributes.get("inplace")
    i = list(marks)[j] if marks is not None else -1
    if i < 0:
        return None
    m = ctx.buf.get(op.operand(i))
    want = contiguous_type(op.results[j].type)
    if (m is None or not isinstance(m.owner, L.AllocOp) or m.owner.parent is not ctx.lb.b.insertion_point.block
            or m.type != want or m not in ctx.contiguous):
        return None
    return m
