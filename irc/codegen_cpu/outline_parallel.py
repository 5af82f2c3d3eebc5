"""Outlining of `loop.parallel` nests for the thread pool (`thread_pool.py`).

A top-level parallel nest (one not inside another `loop.parallel`) becomes two functions:

    internal void @f.parK.body(<captured values>, i64 lo, i64 hi)  alwaysinline
    internal void @f.parK(ptr ctx, i64 lo, i64 hi)                 ; loads ctx, calls .body

and, where the nest was, the captured values are stored into a context and the pool is
called: `irc_rt_parallel_for(@f.parK, ctx, trip count of the outer dimension, work)`. The body
runs iterations [lo, hi) of the outermost dimension (the inner dimensions whole).

Captured values are passed one by one, so a memref's pointer keeps its `noalias` (inlining
`.body` into the wrapper turns it into alias scopes, which the vectorizer needs) and sizes,
strides and scalars stay SSA values. Constants and globals are not passed at all.

`work` is an estimate of the nest's cost in "scalar op" units (math functions weigh more),
computed at run time from the trip counts that are known outside the nest, or that index
arithmetic inside it gives at its first iteration (a kernel's chunk of rows, a block of a
product: that iteration stands for every one); the pool runs small nests on the calling
thread (see `min_work` there).
"""
from __future__ import annotations

from typing import Callable

from llvmlite import ir

from ..dialects import loop as L
from ..ir.core import Block, BlockArgument, Operation, OpResult, Value
from ..ir.transforms import values_from_above
from ..codegen_llvm.loop_emit import index_binary
from ..codegen_llvm.memref_desc import I64, MemRef, i64, mul
from .kernel_split import KernelSet, describe_inputs, kernel_symbol, liftable_constants
from .outline_kernel import mark_noalias, remap_captures
from .thread_pool import BODY_TYPE, PARALLEL_FOR, PARALLEL_FOR_TYPE, opaque

# ops that cannot run inside an outlined body (they return from the function: a failed check
# frees the function's temporaries and returns its number, which a worker cannot do)
NOT_OUTLINABLE = {"loop.assert_eq", "loop.check_index", "func.return"}
# relative cost of a scalar op (the rest count 1): what the inline mathlib expands to
EXPENSIVE = {"exp", "expm1", "log", "log1p", "log2", "log10", "tanh", "sigmoid", "softplus",
             "sin", "cos", "tan", "pow", "div", "sqrt", "erf", "erfc", "arctan", "arctan2", "arcsin",
             "arccos", "sinh", "cosh", "arctanh", "arcsinh", "arccosh", "floordiv", "mod"}
EXPENSIVE_WEIGHT = 10
# a register tile's fmas vectorize and issue two a cycle: eight of them count as one op (else
# a small product of a recurrent step, 32x128x128, looks worth a dispatch and runs slower)
FMAS_PER_OP = 8
# an inner loop whose bounds are only known inside the nest counts this many iterations
UNKNOWN_TRIP = 16


def outlinable(op: Operation) -> bool:
    """A nest with at least one dimension and nothing inside that returns, or allocates in the
    function's workspace (`allow_gc=False`: one buffer for every thread). Buffers allocated
    inside are each iteration's own (a convolution's cols per image), from `irc_temp_alloc`,
    which threads share safely; such nests ran on the calling thread alone, compiled with the
    function's glue (no vectorizer), before (LeNet's convolutions: 2–2.5× slower)."""
    return bool(op.operands) and all(
        inner.op_name not in NOT_OUTLINABLE and not (inner.op_name == "loop.alloc" and "irc.workspace" in inner.attributes)
        for inner in op.walk() if inner is not op)


def context_slot(b: ir.IRBuilder, ctx: ir.Value, k: int) -> ir.Value:
    """Captured values live in 8-byte slots of the context (pointers, i64, f64, f32, i1 take
    one, a complex128 pair two: `context_slots`), so no struct layout is needed on either side."""
    return b.gep(ctx, [i64(k)], inbounds=True, source_etype=I64)


def context_slots(flat: list[ir.Value]) -> list[int]:
    """The first slot of each captured value, then the number of slots in all."""
    starts = [0]
    for v in flat:
        wide = isinstance(v.type, ir.LiteralStructType) and isinstance(v.type.elements[0], ir.DoubleType)
        starts.append(starts[-1] + (2 if wide else 1))
    return starts


def _is_module_level(v: ir.Value) -> bool:
    return isinstance(v, (ir.Constant, ir.GlobalValue))


def trip_count(b: ir.IRBuilder, lb: ir.Value, ub: ir.Value, step: ir.Value) -> ir.Value:
    """ceil((ub - lb) / step) for step > 0, never negative; folded for constants."""
    if all(isinstance(v, ir.Constant) for v in (lb, ub, step)):
        s = step.constant
        return i64(max(0, -(-(ub.constant - lb.constant) // s)))
    span = ub if isinstance(lb, ir.Constant) and lb.constant == 0 else b.sub(ub, lb)
    if not (isinstance(step, ir.Constant) and step.constant == 1):
        span = b.sdiv(b.add(span, b.sub(step, i64(1))), step)
    return b.select(b.icmp_signed("<", span, i64(0)), i64(0), span)


def _add(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    if isinstance(x, ir.Constant) and isinstance(y, ir.Constant):
        return i64(x.constant + y.constant)
    return b.add(x, y)


def work_estimate(b: ir.IRBuilder, block: Block, known: Callable[[Value], ir.Value | None]) -> ir.Value:
    """The cost of one run of `block`: ops weighted, nested loops times their trip counts
    (`known(v)` gives a bound's LLVM value when it is available before the nest)."""
    static = 0
    fmas = 0
    total: ir.Value = i64(0)
    for op in block.ops:
        name = op.op_name
        if isinstance(op, (L.ForOp, L.ParallelOp)):
            if isinstance(op, L.ForOp):
                bounds = [tuple(op.operands[:3])]
            else:
                bounds = list(zip(*op.bounds()))
            trips: ir.Value = i64(1)
            for lb, ub, step in bounds:
                vals = [known(v) for v in (lb, ub, step)]
                trip = trip_count(b, *vals) if all(v is not None for v in vals) else i64(UNKNOWN_TRIP)
                trips = mul(b, trips, trip)
            total = _add(b, total, mul(b, trips, work_estimate(b, op.body, known)))
        elif isinstance(op, L.GemmTileOp):  # counted as its scalar loop was: per step nr + mr
            q0, q1 = op.rest()[2:4]             # loads and mr·nr fmas, then mr·nr stores
            bounds = [known(q0), known(q1)]
            trip = trip_count(b, *bounds, i64(1)) if all(v is not None for v in bounds) else i64(UNKNOWN_TRIP)
            step = op.nr + op.mr + -(-op.mr * op.nr // FMAS_PER_OP)
            total = _add(b, total, mul(b, trip, i64(step)))
            static += op.mr * op.nr + 1
        elif name == "scalar.fma":
            fmas += 1
        elif name.startswith("scalar."):
            static += EXPENSIVE_WEIGHT if name[7:] in EXPENSIVE else 1
        elif name in ("loop.load", "loop.store"):
            static += 1
    static += -(-fmas // FMAS_PER_OP)
    return _add(b, total, i64(max(static, 1)))


class FirstIteration:
    """`known` for `work_estimate`: a value defined before the nest, or one of the nest's
    index arithmetic (constants, add, sub, mul, floordiv, min, max of such values and of the
    induction variables: the parallel ones and inner loops' counters, at their lower bounds)
    evaluated at the first iteration, its code emitted before the nest; None for anything else
    (a load, an iter_arg). A gemm's k slice `kb·kc .. min(kb·kc + kc, k)` then counts kc steps,
    not UNKNOWN_TRIP, and a skinny product is seen to be worth two threads."""

    def __init__(self, conv, op: L.ParallelOp, lower_bounds: list[ir.Value]) -> None:
        self.conv, self.b = conv, conv.b
        self.first: dict[Value, ir.Value | None] = dict(zip(op.body.args, lower_bounds))

    def __call__(self, v: Value) -> ir.Value | None:
        outside = self.conv.values.get(v)
        if outside is not None:
            return outside
        if v not in self.first:
            self.first[v] = self._evaluate(v)
        return self.first[v]

    def _evaluate(self, v: Value) -> ir.Value | None:
        if isinstance(v, BlockArgument) and v.index == 0:  # an inner loop's counter: its first value
            loop = v.block.parent_op
            return self(loop.operands[0]) if isinstance(loop, L.ForOp) else None
        if not isinstance(v, OpResult):
            return None
        op = v.owner
        if op.op_name == "loop.constant":
            return i64(op.value)
        if op.op_name == "loop.align_gap":  # a split point: counted as no split
            return i64(0)
        if op.op_name not in L.INDEX_BINARY:
            return None
        a, c = (self(x) for x in op.operands)
        if a is None or c is None:
            return None
        return index_binary(self.b, op.op_name, a, c, self._estimated_floordiv)

    def _estimated_floordiv(self, a: ir.Value, c: ir.Value) -> ir.Value:
        """Truncation is close enough for an estimate; never a division by 0 (this runs before
        the nest, also where the nest has no iterations and its divisor is 0)."""
        b = self.b
        return b.sdiv(a, b.select(b.icmp_signed("==", c, i64(0)), i64(1), c))


class ParallelOutliner:
    """Outlines one top-level `loop.parallel` of the function `conv` is converting."""

    def __init__(self, conv) -> None:
        self.conv = conv

    def emit(self, op: L.ParallelOp) -> None:
        conv = self.conv
        b: ir.IRBuilder = conv.b
        captured = values_from_above(op, with_operands=True)
        flat: list[ir.Value] = []
        slot_of: dict[int, int] = {}
        kernels = conv.kernels
        lifted = liftable_constants(op) if kernels is not None else []

        def add(v: ir.Value) -> None:
            # a kernel in a module of its own cannot name the function's globals: they are passed
            inline = isinstance(v, ir.Constant) if kernels is not None else _is_module_level(v)
            if not inline and id(v) not in slot_of:
                slot_of[id(v)] = len(flat)
                flat.append(v)

        for v in captured:
            x = conv.get(v)
            for part in ([x.ptr, x.offset, *x.sizes, *x.strides] if isinstance(x, MemRef) else [x]):
                add(part)
        for const in lifted:  # passed like a captured value (see `liftable_constants`)
            value = conv.scalar_constant(const.result.type, const.attributes["value"].value)
            conv.values[const.result] = value
            slot_of[id(value)] = len(flat)
            flat.append(value)

        lbs, ubs, steps = op.bounds()
        dims = [tuple(conv.get(v) for v in d) for d in zip(lbs, ubs, steps)]
        n = trip_count(b, *dims[0])
        inner_trips: ir.Value = i64(1)
        for d in dims[1:]:
            inner_trips = mul(b, inner_trips, trip_count(b, *d))
        known = FirstIteration(conv, op, [d[0] for d in dims])
        work = mul(b, mul(b, n, inner_trips), work_estimate(b, op.body, known))

        name = f"{conv.fn.name}.par{conv.outlined}"
        conv.outlined += 1
        if kernels is None:
            body_fn = self._body(name + ".body", op, captured, flat, slot_of, dims)
            wrapper = self._wrapper(name, body_fn, flat)
        else:
            wrapper = self._kernel(kernels, op, captured, flat, slot_of, dims, lifted)

        here = b.block
        b.position_at_start(conv.fn.entry_basic_block)
        starts = context_slots(flat)
        ctx = opaque(b.alloca(ir.ArrayType(I64, max(1, starts[-1])), name=name + ".ctx"))
        b.position_at_end(here)
        for k, v in enumerate(flat):
            b.store(v, context_slot(b, ctx, starts[k]))
        pool = conv.llmod.globals.get(PARALLEL_FOR)
        if pool is None:
            pool = ir.Function(conv.llmod, PARALLEL_FOR_TYPE, name=PARALLEL_FOR)
            pool.attributes.add("nounwind")
        # the wrapper as an opaque `ptr` (llvmlite would print a function's typed pointer type)
        b.call(pool, [ir.FormattedConstant(ir.PointerType(), wrapper.get_reference()), ctx, n, work])

    def _kernel(self, kernels: KernelSet, op: L.ParallelOp, captured: list[Value], flat: list[ir.Value],
                slot_of: dict[int, int], dims: list[tuple], lifted: list[Operation]) -> ir.Function:
        """The nest as a kernel in a module of its own (`kernel_split.py`), emitted only when
        its key is new; here, a declaration of its callback."""
        conv = self.conv
        inputs = [*captured, *(c.result for c in lifted)]
        key = kernels.key(op, captured, describe_inputs([conv.get(v) for v in inputs], slot_of, conv.noalias),
                          lifted)
        name = kernel_symbol(key)
        if kernels.needs_module(key):
            module = ir.Module(name="kernel")
            saved = conv.llmod, conv.lifted
            conv.llmod = module  # globals and declarations the body needs go to its module
            conv.lifted = {id(c) for c in lifted}  # arguments now: not emitted as constants
            try:
                with kernels.emitting(key):
                    body_fn = self._body("kernel.body", op, inputs, flat, slot_of, dims)
                self._wrapper(name, body_fn, flat, exported=True)
            finally:
                conv.llmod, conv.lifted = saved
            kernels.add_module(key, module)
        declared = conv.llmod.globals.get(name)
        if declared is None:
            declared = ir.Function(conv.llmod, BODY_TYPE, name=name)
            declared.attributes.add("nounwind")
        return declared

    def _body(self, name: str, op: L.ParallelOp, captured: list[Value], flat: list[ir.Value],
              slot_of: dict[int, int], dims: list[tuple]) -> ir.Function:
        conv = self.conv
        fn = ir.Function(conv.llmod, ir.FunctionType(ir.VoidType(), [v.type for v in flat] + [I64, I64]),
                         name=name)
        fn.linkage = "internal"
        fn.attributes.add("alwaysinline")
        fn.attributes.add("nounwind")
        mark_noalias(conv, fn, flat)

        values = remap_captures(conv, captured, fn, slot_of)

        def remap(v: ir.Value) -> ir.Value:
            k = slot_of.get(id(v))
            return v if k is None else fn.args[k]

        dims = [tuple(remap(v) for v in d) for d in dims]
        lo, hi = fn.args[-2:]

        saved = conv.b, conv.scalar, conv.values
        conv.enter_builder(ir.IRBuilder(fn.append_basic_block("entry")), values)
        conv.parallel_depth += 1
        try:
            b = conv.b
            lb0, _, step0 = dims[0]

            def outer(t: ir.Value) -> None:
                iv = t if isinstance(step0, ir.Constant) and step0.constant == 1 else b.mul(t, step0)
                iv = iv if isinstance(lb0, ir.Constant) and lb0.constant == 0 else b.add(iv, lb0)
                conv._nest(op.body, dims, [iv])

            conv._loop(lo, hi, i64(1), None, [], inner=outer)
            b.ret_void()
        finally:
            conv.parallel_depth -= 1
            conv.b, conv.scalar, conv.values = saved
        return fn

    def _wrapper(self, name: str, body_fn: ir.Function, flat: list[ir.Value], exported: bool = False) -> ir.Function:
        fn = ir.Function(self.conv.llmod, BODY_TYPE, name=name)
        if not exported:
            fn.linkage = "internal"
        fn.attributes.add("nounwind")
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        ctx, lo, hi = fn.args
        starts = context_slots(flat)
        fields = [b.load(context_slot(b, ctx, starts[k]), typ=v.type) for k, v in enumerate(flat)]
        b.call(body_fn, fields + [lo, hi])
        b.ret_void()
        return fn
