"""`convert-to-llvm`: a loop-dialect module to an `llvmlite.ir.Module`, one entry point per
`func.func`.

The native ABI of an entry point (what `irc.runtime.native` calls through ctypes):

    i32 @irc.name(ptr %in0, i64 %in0_size0.., i64 %in0_bytestride0.., ptr %in1, ..., ptr %out0, ...)

* each memref argument is its data pointer (the first element, numpy's `arr.ctypes.data`),
  then its sizes, then its strides in **bytes** (numpy's `arr.strides`; the code divides by
  the item size, an exact shift), so any numpy view is passed without a copy;
* each result is a caller-allocated contiguous buffer: the function's returned `loop.alloc`s
  become these pointers (the caller computed their sizes from the same IR, see
  `irc.runtime.shapes`);
* it returns 0, or k > 0 when the k-th check (`loop.assert_eq` or `loop.check_index`, in
  program order) failed.

Buffers are `noalias` (inputs are only read; outputs are fresh) and aligned to their element
size (outputs to 16 bytes, numpy's allocation alignment). Temporaries come from
`aligned_alloc(64, ...)` and are freed by `loop.dealloc`.
"""
from __future__ import annotations

from typing import Sequence

from llvmlite import ir

from ..dialects import loop as L
from ..dialects.builtin import MemRefType, ModuleOp
from ..dialects.func import FuncOp
from ..ir.attributes import FloatAttr, IntegerAttr, BoolAttr
from ..ir.core import Block, Operation, Value
from ..ir.diagnostics import UnsupportedError
from ..ir.types import ScalarType
from ..codegen_llvm import memref_desc as M
from ..codegen_llvm.constants import global_bytes
from ..codegen_llvm.memref_desc import I64, MemRef, i64
from ..codegen_llvm.scalar_emit import ScalarEmitter, constant, llvm_type, memory_type
from .outline_parallel import ParallelOutliner, outlinable

I32 = ir.IntType(32)
PTR = ir.PointerType()
OUTPUT_ALIGN = 16
TEMP_ALIGN = 64


def convert_to_llvm(module: ModuleOp, name: str = "irc", numpy_layout=None, op_timers=None,
                    threads: bool = True) -> ir.Module:
    """Every `func.func` of a loop-dialect module as an exported LLVM function (and, given a
    numpy array layout, its `.np` wrapper taking array objects: see `numpy_abi.py`).
    `op_timers` (profiling, see `op_timers.py`) times the top-level ops of the function;
    `threads` outlines top-level `loop.parallel` nests for the thread pool
    (`outline_parallel.py`), which splits them at run time when they are large enough."""
    llmod = ir.Module(name=name)
    for op in module.body.ops:
        if isinstance(op, FuncOp):
            FunctionConverter(llmod, op, op_timers, threads).convert()
            if numpy_layout is not None:
                from .numpy_abi import emit_numpy_wrapper
                emit_numpy_wrapper(llmod, op, numpy_layout)
    return llmod


def entry_symbol(func: FuncOp) -> str:
    """The exported name; prefixed so that a function called `free` or `exp` clashes with nothing."""
    return "irc." + func.sym_name


def entry_arg_layout(func: FuncOp) -> list[tuple[str, int, int]]:
    """(kind, arg/result number, rank) per memref in ABI order: ("in", i, r) / ("out", j, r)."""
    layout = [("in", i, a.type.rank) for i, a in enumerate(func.args)]
    layout += [("out", j, t.rank) for j, t in enumerate(func.function_type.results)]
    return layout


def may_alias(func: FuncOp) -> set[tuple[str, int]]:
    """The ("in", N) and ("out", k) pointers that the caller may make equal: result k marked
    `irc.inplace = N` (an update written over shared variable N's storage) — no `noalias`."""
    out: set[tuple[str, int]] = set()
    for k in range(len(func.function_type.results)):
        n = func.res_attrs(k).get("irc.inplace")
        if n is not None:
            out |= {("in", n.value), ("out", k)}  # type: ignore[attr-defined]
    return out


def reduction_accumulators(func: Operation) -> set[int]:
    """ids of the ops that combine a reduction loop's accumulator with a new value: these get
    `reassoc` so LLVM may reorder (and so vectorize) the reduction."""
    out: set[int] = set()
    for op in func.walk():
        if isinstance(op, L.ForOp) and "reduction" in op.attributes:
            carried = set(op.body.args[1:])
            term = op.body.terminator
            for v in term.operands:
                owner = v.owner
                if isinstance(owner, Operation) and any(x in carried for x in owner.operands):
                    out.add(id(owner))
    return out


def check_entry_abi(func: FuncOp) -> None:
    """The function fits the entry ABI above: memref arguments, and results that are distinct
    `loop.alloc`s of the function body (the caller allocates them)."""
    ft = func.function_type
    for what, types in (("argument", ft.inputs), ("result", ft.results)):
        for k, t in enumerate(types):
            if not isinstance(t, MemRefType):
                raise UnsupportedError(f"convert-to-llvm: '{func.sym_name}' has {what} #{k} of type {t}; "
                                       f"compiled functions take and return tensors or memrefs only",
                                       func.location)
    ret = func.body.terminator
    seen: set[Value] = set()
    for k, v in enumerate(ret.operands if ret is not None else ()):
        owner = v.owner
        if not isinstance(owner, L.AllocOp) or owner.parent is not func.body or v in seen:
            raise UnsupportedError(f"convert-to-llvm: result #{k} of '{func.sym_name}' must be a "
                                   f"distinct loop.alloc of the function body (the caller allocates "
                                   f"results)", ret.location)
        seen.add(v)


class FunctionConverter:
    """Emits one function: walks its ops in order, mapping IR values to LLVM values/memrefs."""

    def __init__(self, llmod: ir.Module, func: FuncOp, op_timers=None, threads: bool = True):
        self.llmod = llmod
        self.timers = op_timers
        self.func = func
        self.values: dict[Value, object] = {}
        self.asserts = 0
        self.reassoc = reduction_accumulators(func)
        self.outputs: dict[Value, ir.Value] = {}
        self.threads = threads
        self.parallel_depth = 0  # > 0 while emitting the body of a loop.parallel
        self.outlined = 0        # parallel nests outlined so far (names them)
        self.noalias: set[int] = set()  # ids of pointers that alias no other distinct pointer
        # top-level temporaries allocated and not yet freed: a failing check frees them
        self.live_temps: dict[Value, ir.Value] = {}

    # ------------------------------------------------------------------ signature
    def convert(self) -> ir.Function:
        func = self.func
        check_entry_abi(func)
        params: list[ir.Type] = []
        for kind, _, rank in entry_arg_layout(func):
            params += [PTR] + ([I64] * (2 * rank) if kind == "in" else [])
        fn = ir.Function(self.llmod, ir.FunctionType(I32, params), name=entry_symbol(func))
        fn.attributes.add("nounwind")
        self.fn = fn
        self.enter_builder(ir.IRBuilder(fn.append_basic_block("entry")), self.values)
        args = iter(fn.args)
        shared_out = may_alias(func)
        for kind, k, rank in entry_arg_layout(func):
            ptr = next(args)
            if (kind, k) not in shared_out:
                ptr.add_attribute("noalias")
                self.noalias.add(id(ptr))
            if kind == "in":
                t: MemRefType = func.args[k].type
                ptr.attributes.align = max(1, memory_type(t.element).get_abi_size(_target_data()))
                sizes = [next(args) for _ in range(rank)]
                bstrides = [next(args) for _ in range(rank)]
                self.values[func.args[k]] = self._input(t, ptr, sizes, bstrides)
            else:
                ptr.attributes.align = OUTPUT_ALIGN
                ret = func.body.terminator
                self.outputs[ret.operands[k]] = ptr
        if self.timers is not None:  # profiling hook: see op_timers.py
            self.timers.begin_function(self.llmod, func.sym_name)
        self.block(func.body)
        return fn

    def enter_builder(self, builder: ir.IRBuilder, values: dict) -> None:
        """Emit into `builder` with `values` as the IR-to-LLVM mapping (outlined bodies get their own)."""
        self.b = builder
        self.scalar = ScalarEmitter(builder)
        self.values = values

    def _input(self, t: MemRefType, ptr, sizes, bstrides) -> MemRef:
        item = memory_type(t.element).get_abi_size(_target_data())
        shift = item.bit_length() - 1
        strides = []
        for bs in bstrides:
            strides.append(self.b.ashr(bs, i64(shift), flags=("exact",)) if shift else bs)
        return MemRef(t, ptr, i64(0), list(sizes), strides)

    # ------------------------------------------------------------------ ops
    def block(self, block: Block) -> None:
        for op in block.ops:
            if self.timers is not None:
                self.timers.before_op(self.b, op)
            self.op(op)

    def get(self, v: Value):
        return self.values[v]

    def op(self, op: Operation) -> None:
        name = op.op_name
        method = getattr(self, "op_" + name.replace(".", "_"), None)
        if method is not None:
            method(op)
        elif name.startswith("scalar."):
            self.scalar_op(op)
        else:
            raise UnsupportedError(f"convert-to-llvm: no lowering for '{name}'", op.location)

    def op_func_return(self, op: Operation) -> None:
        self.b.ret(ir.Constant(I32, 0))

    # -- buffers
    def op_loop_alloc(self, op: Operation) -> None:
        t: MemRefType = op.result.type
        dyn = iter(self.get(v) for v in op.operands)
        sizes = [i64(d) if d is not None else next(dyn) for d in t.shape]
        out = self.outputs.get(op.result)
        if out is not None:
            ptr = out
        else:
            item = memory_type(t.element).get_abi_size(_target_data())
            nbytes = M.mul(self.b, M.num_elements(self.b, sizes), i64(item))
            # aligned_alloc wants a multiple of the alignment; never 0 bytes
            rounded = self.b.and_(self.b.add(nbytes, i64(TEMP_ALIGN)), i64(-TEMP_ALIGN))
            if "irc.workspace" in op.attributes:
                ptr = self._workspace(op.attributes["irc.workspace"].value, rounded)
            else:
                ptr = self.b.call(self._libc("aligned_alloc", PTR, [I64, I64]), [i64(TEMP_ALIGN), rounded])
                if op.parent is self.func.body:
                    self.live_temps[op.result] = ptr
            self.noalias.add(id(ptr))
        self.values[op.result] = M.contiguous(self.b, t, ptr, sizes)

    def _workspace(self, slot: int, nbytes) -> ir.Value:
        """`allow_gc=False`: buffer `slot` lives in module globals across calls and only grows
        (one workspace per compiled function; calls must not run concurrently)."""
        names = [f"{self.func.sym_name}.ws{slot}", f"{self.func.sym_name}.ws{slot}.cap"]
        gp, gc = (ir.GlobalVariable(self.llmod, t, name=n) for t, n in zip((PTR, I64), names))
        for g, init in ((gp, ir.Constant(PTR, None)), (gc, i64(0))):
            g.linkage, g.initializer = "internal", init
        grow = self.b.icmp_unsigned("<", self.b.load(gc, typ=I64), nbytes)
        with self.b.if_then(grow, likely=False):
            self.b.call(self._libc("free", ir.VoidType(), [PTR]), [self.b.load(gp, typ=PTR)])
            fresh = self.b.call(self._libc("aligned_alloc", PTR, [I64, I64]), [i64(TEMP_ALIGN), nbytes])
            self.b.store(fresh, gp)
            self.b.store(nbytes, gc)
        return self.b.load(gp, typ=PTR)

    def op_loop_dealloc(self, op: Operation) -> None:
        m: MemRef = self.get(op.operand(0))
        self.b.call(self._libc("free", ir.VoidType(), [PTR]), [m.ptr])
        self.live_temps.pop(op.operand(0), None)

    def op_loop_global(self, op: Operation) -> None:
        t: MemRefType = op.result.type
        data = global_bytes(op)
        g = ir.GlobalVariable(self.llmod, ir.ArrayType(ir.IntType(8), len(data)),
                              name=f"{self.func.sym_name}.const{len(self.llmod.globals)}")
        g.global_constant = True
        g.linkage = "internal"
        g.align = TEMP_ALIGN
        g.initializer = ir.Constant(ir.ArrayType(ir.IntType(8), len(data)), data)
        self.values[op.result] = M.contiguous(self.b, t, g, [i64(d) for d in t.shape])

    def op_loop_dim(self, op: Operation) -> None:
        self.values[op.result] = self.get(op.operand(0)).sizes[op.attributes["axis"].value]

    # -- views
    def op_loop_transpose(self, op: Operation) -> None:
        self.values[op.result] = M.transpose(self.get(op.operand(0)), op.result.type, op.perm)

    def op_loop_subview(self, op: Operation) -> None:
        src: MemRef = self.get(op.operand(0))
        r = src.type.rank
        vals = [self.get(v) for v in op.operands[1:]]
        self.values[op.result] = M.subview(self.b, src, op.result.type, vals[:r], vals[r:2 * r], vals[2 * r:])

    def op_loop_broadcast(self, op: Operation) -> None:
        sizes = [self.get(v) for v in op.operands[1:]]
        self.values[op.result] = M.broadcast(self.get(op.operand(0)), op.result.type, op.dims, sizes)

    def op_loop_reshape(self, op: Operation) -> None:
        src: MemRef = self.get(op.operand(0))
        t: MemRefType = op.result.type
        dyn = iter(self.get(v) for v in op.operands[1:])
        sizes = [i64(d) if d is not None else next(dyn) for d in t.shape]
        self.values[op.result] = M.contiguous(self.b, t, src.ptr, sizes)

    # -- element access
    def op_loop_load(self, op: Operation) -> None:
        m: MemRef = self.get(op.operand(0))
        addr = m.address(self.b, [self.get(v) for v in op.operands[1:]])
        v = self.b.load(addr, typ=m.elem, align=m.elem.get_abi_size(_target_data()))
        if m.type.element.is_bool:
            v = self.b.trunc(v, ir.IntType(1))
        self.values[op.result] = v

    def op_loop_store(self, op: Operation) -> None:
        m: MemRef = self.get(op.operand(1))
        v = self.get(op.operand(0))
        if m.type.element.is_bool:
            v = self.b.zext(v, ir.IntType(8))
        addr = m.address(self.b, [self.get(x) for x in op.operands[2:]])
        self.b.store(v, addr, align=m.elem.get_abi_size(_target_data()))

    # -- loops
    def op_loop_for(self, op: Operation) -> None:
        lb, ub, step = (self.get(v) for v in op.operands[:3])
        inits = [self.get(v) for v in op.operands[3:]]
        results = self._loop(lb, ub, step, op.body, inits)
        for r, v in zip(op.results, results):
            self.values[r] = v

    def op_loop_parallel(self, op: Operation) -> None:
        if self.threads and self.parallel_depth == 0 and outlinable(op):
            ParallelOutliner(self).emit(op)
            return
        lbs, ubs, steps = op.bounds()
        self.parallel_depth += 1
        self._nest(op.body, [(self.get(a), self.get(b), self.get(c)) for a, b, c in zip(lbs, ubs, steps)], [])
        self.parallel_depth -= 1

    def _nest(self, body: Block, dims, ivs: list) -> None:
        """The parallel dimensions as nested loops, the last one innermost."""
        if len(ivs) == len(dims):
            for arg, iv in zip(body.args, ivs):
                self.values[arg] = iv
            for op in body.ops[:-1]:  # the empty loop.yield is dropped
                self.op(op)
            return
        lb, ub, step = dims[len(ivs)]
        self._loop(lb, ub, step, None, [], inner=lambda iv: self._nest(body, dims, ivs + [iv]))

    def _loop(self, lb, ub, step, body: Block | None, inits: Sequence[ir.Value], inner=None) -> list:
        """A canonical loop `for (iv = lb; iv < ub; iv += step)` with carried values."""
        b = self.b
        pre = b.block
        header = b.append_basic_block("loop.header")
        body_bb = b.append_basic_block("loop.body")
        exit_bb = b.append_basic_block("loop.exit")
        b.branch(header)
        b.position_at_end(header)
        iv = b.phi(I64, "iv")
        iv.add_incoming(lb, pre)
        phis = []
        for v in inits:
            p = b.phi(v.type)
            p.add_incoming(v, pre)
            phis.append(p)
        b.cbranch(b.icmp_signed("<", iv, ub), body_bb, exit_bb)
        b.position_at_end(body_bb)
        if body is not None:
            self.values[body.args[0]] = iv
            for arg, p in zip(body.args[1:], phis):
                self.values[arg] = p
            for op in body.ops[:-1]:
                self.op(op)
            yielded = [self.get(v) for v in body.terminator.operands]
        else:
            inner(iv)
            yielded = []
        nxt = b.add(iv, step, flags=("nsw",))
        latch = b.block
        iv.add_incoming(nxt, latch)
        for p, v in zip(phis, yielded):
            p.add_incoming(v, latch)
        b.branch(header)
        b.position_at_end(exit_bb)
        return phis

    # -- index arithmetic
    def op_loop_constant(self, op: Operation) -> None:
        self.values[op.result] = i64(op.value)

    def _binary(self, op: Operation, fn) -> None:
        a, c = (self.get(v) for v in op.operands)
        if isinstance(a, ir.Constant) and isinstance(c, ir.Constant):
            self.values[op.result] = i64(L.INDEX_BINARY[op.op_name](a.constant, c.constant))
        else:
            self.values[op.result] = fn(a, c)

    def op_loop_add(self, op):
        self._binary(op, lambda a, c: self.b.add(a, c, flags=("nsw",)))

    def op_loop_sub(self, op):
        self._binary(op, lambda a, c: self.b.sub(a, c, flags=("nsw",)))

    def op_loop_mul(self, op):
        self._binary(op, lambda a, c: self.b.mul(a, c, flags=("nsw",)))

    def op_loop_floordiv(self, op):
        from ..ir.types import index
        self._binary(op, lambda a, c: self.scalar.op_floordiv([a, c], index, ()))

    def op_loop_min(self, op):
        self._binary(op, lambda a, c: self.b.select(self.b.icmp_signed("<", a, c), a, c))

    def op_loop_max(self, op):
        self._binary(op, lambda a, c: self.b.select(self.b.icmp_signed(">", a, c), a, c))

    def op_loop_assert_eq(self, op: Operation) -> None:
        a, c = (self.get(v) for v in op.operands)
        self._fail_if(self.b.icmp_signed("!=", a, c))

    def op_loop_check_index(self, op: Operation) -> None:
        i, n = (self.get(v) for v in op.operands)
        j = self.b.select(self.b.icmp_signed("<", i, i64(0)), self.b.add(i, n), i)
        # 0 <= j < n in one unsigned comparison (a negative j is a huge unsigned number)
        self._fail_if(self.b.icmp_unsigned(">=", j, n))
        self.values[op.result] = j

    def _fail_if(self, failed: ir.Value) -> None:
        """Return the number of this check (counted in program order) when `failed` holds,
        freeing the temporaries allocated so far (a check may follow them: `check_index`)."""
        self.asserts += 1
        fail = self.b.append_basic_block("assert.fail")
        ok = self.b.append_basic_block("assert.ok")
        self.b.cbranch(failed, fail, ok)
        self.b.position_at_end(fail)
        for ptr in self.live_temps.values():
            self.b.call(self._libc("free", ir.VoidType(), [PTR]), [ptr])
        self.b.ret(ir.Constant(I32, self.asserts))
        self.b.position_at_end(ok)

    # -- scalar computation
    def scalar_op(self, op: Operation) -> None:
        name = op.op_name
        if name == "scalar.constant":
            attr = op.attributes["value"]
            value = attr.value if isinstance(attr, (FloatAttr, IntegerAttr, BoolAttr)) else attr
            self.values[op.result] = constant(op.result.type, value)
            return
        args = [self.get(v) for v in op.operands]
        if name == "scalar.cast":
            self.values[op.result] = self.scalar.cast(args[0], op.operand(0).type, op.result.type)
            return
        t: ScalarType = op.operand(1 if name == "scalar.select" else 0).type
        fm = ("reassoc", "nsz") if id(op) in self.reassoc and t.is_float else ()
        self.values[op.result] = self.scalar.emit(name, args, t, fm)

    # ------------------------------------------------------------------ helpers
    def _libc(self, name: str, ret: ir.Type, params: list[ir.Type]) -> ir.Function:
        fn = self.llmod.globals.get(name)
        if fn is None:
            fn = ir.Function(self.llmod, ir.FunctionType(ret, params), name=name)
            fn.attributes.add("nounwind")
        return fn


_TD = None


def _target_data():
    """The host's data layout (element sizes for alignment and byte strides)."""
    global _TD
    if _TD is None:
        from .target import host_target_machine
        import llvmlite.binding as llvm
        _TD = llvm.create_target_data(str(host_target_machine().target_data))
    return _TD
