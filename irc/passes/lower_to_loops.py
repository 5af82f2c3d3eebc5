"""`lower-to-loops`: bufferize a tensor-level `func.func` into a loop-dialect function.

The function's ABI at the loop level (what `convert-to-llvm` and the runtime rely on):

* every tensor argument becomes a memref with dynamic strides and offset
  (`memref<?x?xf32, strided<[?, ?], offset: ?>>`): any numpy view is passed as it is;
* every result becomes a fresh contiguous buffer made by a top-level `loop.alloc` and returned
  by `func.return` (a result that would be a view, an argument or a constant is copied first),
  so the caller may allocate results itself: their sizes are the allocs' size operands, which
  depend only on `loop.dim`s of the arguments (see `irc.runtime.shapes`);
* size agreements the types cannot prove (two `?` dims that must match) are `loop.assert_eq`s.

Per op: elementwise ops and `tensor.fused` are one `loop.parallel` nest over the result
(broadcast operands read index 0 on their static-1 dims); views (dimshuffle, transpose, slice,
broadcast, reshape of a contiguous buffer) only make a view; reductions, products and copies are
in `lower_linalg.py`, `lower_reduce.py` and `lower_shapes.py`. Dead buffers are freed and reused by
`plan_buffers.py`.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator

from ..dialects import loop as L
from ..dialects import scalar as _scalar, tensor as _tensor  # noqa: F401  (the ops lowered here)
from ..dialects.builtin import DenseAttr, MemRefType, ModuleOp, TensorType
from ..dialects.elementwise import TABLE_ROWS
from ..dialects.func import FuncOp, ReturnOp
from ..ir.attributes import IntegerAttr
from ..ir.core import Operation, Value
from ..ir.pass_manager import Pass, register_pass
from .simd import SimdRegisters, host_simd, parse_simd
from .loop_builder import Index, LoopBuilder
from .lower_scalars import lower_single_element
from .lowering_registry import BY_ELEMENT, ELEMENTWISE_BODIES, LOWERINGS, BodyMaker, lowering
from .plan_buffers import plan_buffers

def contiguous_type(t: TensorType) -> MemRefType:
    return MemRefType(t.shape, t.element, device=t.device)


def argument_type(t: TensorType) -> MemRefType:
    """Host arguments are any numpy view; device arguments are dense row-major arrays at
    offset 0 (the CUDA runtime guarantees it), so kernels may read them as flat vectors."""
    if t.device is not None:
        return contiguous_type(t)
    return L.view_type(t.shape, t.element)


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
        self.sizes: dict[Value, list[Index]] = {}
        self.contiguous: set[Value] = set()  # memrefs known to be row-major and dense

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
        plan_buffers(self.func, allow_gc=self.allow_gc)
        return self.func

    def lower_op(self, op: Operation) -> None:
        """Lower one tensor op at the builder's insertion point (also used for the ops of a
        `tensor.if` branch, inside the `loop.if` region, and of a `tensor.scan` body)."""
        self.lb.location = op.location
        if lower_single_element(self, op):
            return
        fn = LOWERINGS.get(op.op_name)
        if fn is None:
            raise ValueError(f"lower-to-loops: no loop lowering for '{op.op_name}' "
                             f"(at {op.location})")
        if op.op_name not in BY_ELEMENT:
            for v in op.operands:
                self.materialize(v)
        fn(self, op)

    def _return(self, op: Operation) -> None:
        results = []
        returned: set[Value] = set()
        for v, t in zip(op.operands, self.func.function_type.results):
            m = self.materialize(v)
            owner = m.owner
            if not (isinstance(owner, L.AllocOp) and owner.parent is self.func.body) or m in returned \
                    or m.type != t:
                m = self.copy_to_new(m, t)
            returned.add(m)
            results.append(m)
        self._mark_inplace_updates(op)
        self.lb.b.create(ReturnOp, results, result_types=[])

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
                s = self.sizes[self.buf[v]][axis]
                if size is None:
                    size = s
                else:
                    lb.assert_eq(size, s, f"'{op.op_name}': operands differ in size in dim {axis} "
                                          f"(only dims of static size 1 broadcast)")
            out.append(size if size is not None else lb.const(1))
        return out

    def materialize(self, v: Value) -> Value:
        """The buffer of tensor `v`; for a value held as a scalar, a new one-element buffer
        stored here (at the top level: lowerings ask before they open loops)."""
        m = self.buf.get(v)
        if m is None and v in self.scalars:
            t: TensorType = v.type
            m = self.alloc(t, [self.lb.const(1)] * t.rank)
            self.lb.store(self.scalars[v], m, [self.lb.const(0)] * t.rank)
            self.bind(v, m, self.sizes[m], contiguous=True)
        return self.buf[v]

    def broadcast_load(self, v: Value, ivs: list[Index]) -> Value:
        """Load tensor `v`'s element at `ivs`, reading index 0 on its static-1 dims (a value
        held as a scalar is that scalar: no load)."""
        if v in self.scalars:
            return self.scalars[v]
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


# ---------------------------------------------------------------------------- elementwise
def _elementwise(ctx: FuncLowering, op: Operation, body: Callable[[list[Value]], list[Value]]) -> None:
    rank = op.results[0].type.rank
    sizes = ctx.broadcast_sizes(op, list(op.operands), rank)
    outs = [inplace_target(ctx, op, j) or ctx.alloc(r.type, sizes) for j, r in enumerate(op.results)]
    sizes = ctx.sizes[outs[0]]
    with ctx.nest(sizes, outs[0].type.device) as ivs:
        values = body([ctx.broadcast_load(v, ivs) for v in op.operands])
        for v, out in zip(values, outs):
            ctx.lb.store(v, out, ivs)
    for r, out in zip(op.results, outs):
        ctx.bind(r, out, sizes, contiguous=True)


def inplace_target(ctx: FuncLowering, op: Operation, j: int) -> Value | None:
    """The operand buffer result `j` may overwrite (the `inplace` pass's mark), when it is a
    temporary of the result's exact type made at the top level; None: allocate."""
    marks = op.attributes.get("inplace")
    i = list(marks)[j] if marks is not None else -1
    if i < 0 or op.parent is not ctx.src.body:  # (in a loop's body, a later step reads it again)
        return None
    m = ctx.buf.get(op.operand(i))
    want = contiguous_type(op.results[j].type)
    if (m is None or not isinstance(m.owner, L.AllocOp) or m.owner.parent is not ctx.func.body
            or m.type != want or m not in ctx.contiguous):
        return None
    return m


def elementwise_lowering(*names: str):
    """Register ops computed element by element: `make(ctx, op)` gives the function from the
    operands' scalars to the results' scalars; the loop nest (or, for one element, no loop:
    `lower_scalars.py`) is built around it."""
    def register(make: BodyMaker) -> BodyMaker:
        for n in names:
            ELEMENTWISE_BODIES[n] = make
            LOWERINGS[n] = lambda ctx, op, make=make: _elementwise(ctx, op, make(ctx, op))
            BY_ELEMENT.add(n)
        return make
    return register


def _table_body(ctx: FuncLowering, op: Operation) -> Callable[[list[Value]], list[Value]]:
    name = op.op_name.split(".", 1)[1]
    return lambda vals: [ctx.lb.scalar(name, vals)]


def _register_table() -> None:
    elementwise_lowering(*(row.tensor_name for row in TABLE_ROWS))(_table_body)


_register_table()


@elementwise_lowering("tensor.cast")
def _cast(ctx: FuncLowering, op: Operation) -> Callable[[list[Value]], list[Value]]:
    to = op.results[0].type.element
    return lambda vals: [ctx.lb.cast(vals[0], to)]


@elementwise_lowering("tensor.fused")
def _fused(ctx: FuncLowering, op: Operation) -> Callable[[list[Value]], list[Value]]:
    block = op.regions[0].blocks[0]

    def body(vals: list[Value]) -> list[Value]:
        mapping: dict[Value, Value] = dict(zip(block.args, vals))
        for inner in block.ops[:-1]:
            ctx.lb.b.insert(inner.clone(mapping))
        return [mapping.get(v, v) for v in block.ops[-1].operands]

    return body


@lowering("tensor.constant")
def _constant(ctx: FuncLowering, op: Operation) -> None:
    value = op.attributes["value"]
    t: TensorType = op.results[0].type
    sizes = [ctx.lb.const(d) for d in t.shape]
    if not value.is_splat or all(d == 1 for d in t.shape) or t.device is not None:
        m = ctx.lb.create(L.GlobalOp, [], {"value": value}, contiguous_type(t))
        ctx.bind(op.results[0], m, sizes, contiguous=True)
        return
    # a host splat: one element, broadcast (stride 0) — never a buffer of the full size
    one = TensorType((1,) * t.rank, t.element)
    g = ctx.lb.create(L.GlobalOp, [], {"value": DenseAttr(one, value.data)}, contiguous_type(one))
    m = ctx.lb.create(L.BroadcastOp, [g, *sizes], {"dims": L.perm_attr(range(t.rank))}, argument_type(t))
    ctx.bind(op.results[0], m, sizes)


# ---------------------------------------------------------------------------- the pass
def lower_function(func: FuncOp, allow_gc: bool = True, simd: SimdRegisters | None = None) -> FuncOp:
    """The loop-level version of a tensor-level function (the input is left untouched);
    `allow_gc=False` keeps temporaries in a workspace across calls (see `plan_buffers`); `simd`
    (default: the host's) sizes the register tiles of products."""
    return FuncLowering(func, allow_gc, simd).lower()


def is_tensor_function(op: Operation) -> bool:
    return isinstance(op, FuncOp) and any(isinstance(t, TensorType) for t in
                                          (*op.function_type.inputs, *op.function_type.results))


@register_pass
@dataclass
class LowerToLoops(Pass):
    """Bufferize every tensor-level function of the module into loops over memrefs."""

    name = "lower-to-loops"
    summary = "bufferize tensor functions into loop-dialect loops over memrefs"
    tags = ("lowering",)
    allow_gc: bool = True
    simd: str = ""  # vector registers as BYTESxCOUNT (64x32: AVX-512); "": the host's

    def run(self, module: Operation) -> None:
        assert isinstance(module, ModuleOp)
        try:
            simd = parse_simd(self.simd)
        except ValueError as e:
            raise self.error(str(e), module.location) from None
        for op in list(module.body.ops):
            if not is_tensor_function(op):
                continue
            try:
                new = lower_function(op, self.allow_gc, simd)
            except ValueError as e:
                raise self.error(str(e), op.location) from None
            module.body.insert_before(op, new)
            op.erase(check_uses=False)


from . import (lower_creation, lower_fused_matvec, lower_gather, lower_if, lower_index, lower_linalg,  # noqa: E402,F401
               lower_order, lower_random, lower_reduce, lower_scan, lower_shapes, lower_softmax)  # (they register their lowerings here)
