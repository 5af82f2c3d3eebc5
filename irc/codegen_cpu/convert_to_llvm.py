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
`irc_temp_alloc` (64-byte aligned; large blocks cached between calls: `temp_cache.py`) and are
freed by `loop.dealloc`.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import llvmlite.binding as llvm
from llvmlite import ir

from ..codegen_llvm import memref_desc as M
from ..codegen_llvm.loop_emit import LoopEmitter
from ..codegen_llvm.memref_desc import I64, MemRef, i64
from ..dialects import loop as L
from ..dialects.builtin import MemRefType, ModuleOp
from ..dialects.func import FuncOp
from ..ir.core import Block, Operation, Value
from ..ir.types import ScalarType
from .entry_abi import I32, PTR, check_entry_abi, entry_arg_layout, entry_symbol, may_alias
from .gemm_tile import emit_gemm_tile
from .kernel_split import KernelSet
from .temp_cache import HEADER, TEMP_ALLOC, TEMP_FREE
from .numpy_abi import emit_numpy_wrapper
from .outline_kernel import KernelCallOutliner, serial_nest
from .outline_parallel import ParallelOutliner, outlinable
from .target import host_target_machine

OUTPUT_ALIGN = 16
TEMP_ALIGN = HEADER  # temporaries' alignment: the cache's header keeps it


def convert_to_llvm(module: ModuleOp, name: str = "irc", numpy_layout=None, op_timers=None,
                    threads: bool = True, kernels: KernelSet | None = None) -> ir.Module:
    """Every `func.func` of a loop-dialect module as an exported LLVM function (and, given a
    numpy array layout, its `.np` wrapper taking array objects: see `numpy_abi.py`).
    `op_timers` (profiling, see `op_timers.py`) times the top-level ops of the function;
    `threads` outlines top-level `loop.parallel` nests for the thread pool
    (`outline_parallel.py`), which splits them at run time when they are large enough;
    given `kernels`, each such nest goes to a module of its own there, compiled (and cached)
    apart from the function (`kernel_split.py`)."""
    llmod = ir.Module(name=name)
    for op in module.body.ops:
        if isinstance(op, FuncOp):
            FunctionConverter(llmod, op, op_timers, threads, kernels).convert()
            if numpy_layout is not None:
                emit_numpy_wrapper(llmod, op, numpy_layout)
    return llmod


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


class FunctionConverter(LoopEmitter):
    """Emits one function: the entry ABI, allocation (heap or workspace), asserts, and the
    outlining of top-level parallel nests for the thread pool; the rest is `LoopEmitter`'s."""

    def __init__(self, llmod: ir.Module, func: FuncOp, op_timers=None, threads: bool = True,
                 kernels: KernelSet | None = None):
        super().__init__(llmod, _target_data())
        self.timers = op_timers
        self.kernels = kernels  # None: outlined nests stay in the function's module
        self.lifted: set[int] = set()  # ids of constants a kernel being emitted takes as arguments
        self.func = func
        self.asserts = 0
        self.reassoc = reduction_accumulators(func)
        self.outputs: dict[Value, ir.Value] = {}
        self.threads = threads
        self.parallel_depth = 0  # > 0 while emitting the body of a loop.parallel
        self.outlined = 0        # parallel nests outlined so far (names them)
        self.noalias: set[int] = set()  # ids of pointers that alias no other distinct pointer
        # temporaries allocated and not yet freed on the path being emitted, outside loop.parallel
        # bodies (a loop.if branch or a loop.for step forgets its own at its end): a failing
        # check frees them
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
                ptr.attributes.align = max(1, self.item_size(t.element))
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

    def _input(self, t: MemRefType, ptr, sizes, bstrides) -> MemRef:
        shift = self.item_size(t.element).bit_length() - 1
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

    def op(self, op: Operation) -> None:
        if id(op) not in self.lifted:
            super().op(op)

    def op_func_return(self, op: Operation) -> None:
        self.b.ret(ir.Constant(I32, 0))

    # -- buffers
    def op_loop_alloc(self, op: Operation) -> None:
        t: MemRefType = op.result.type
        sizes = self.static_or(t.shape, op.operands)
        out = self.outputs.get(op.result)
        if out is not None:
            ptr = out
        else:
            nbytes = M.mul(self.b, M.num_elements(self.b, sizes), i64(self.item_size(t.element)))
            # aligned_alloc wants a multiple of the alignment; never 0 bytes
            rounded = self.b.and_(self.b.add(nbytes, i64(TEMP_ALIGN)), i64(-TEMP_ALIGN))
            if "irc.workspace" in op.attributes:
                ptr = self._workspace(op.attributes["irc.workspace"].value, rounded)
            else:
                ptr = self.b.call(self._temp_alloc(), [rounded])
                if self.parallel_depth == 0:
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

    def op_loop_prefetch(self, op: Operation) -> None:
        """`llvm.prefetch` of the element's address (x86: prefetcht0..2, prefetchw)."""
        m: MemRef = self.get(op.operand(0))
        addr = m.address(self.b, [self.get(v) for v in op.operands[1:]])
        fn = self._libc("llvm.prefetch.p0", ir.VoidType(), [PTR, I32, I32, I32])
        flags = (int(op.write), op.locality, 1)  # read/write, locality, data cache
        self.b.call(fn, [addr, *(ir.Constant(I32, f) for f in flags)])

    def op_loop_dealloc(self, op: Operation) -> None:
        m: MemRef = self.get(op.operand(0))
        self.b.call(self._libc(TEMP_FREE, ir.VoidType(), [PTR]), [m.ptr])
        self.live_temps.pop(op.operand(0), None)

    def op_loop_global(self, op: Operation) -> None:
        self.global_constant(op, f"{self.func.sym_name}.const{len(self.llmod.globals)}", TEMP_ALIGN)

    # -- branches: a failing check frees what is allocated on its own path
    def op_loop_if(self, op: Operation) -> None:
        super().op_loop_if(op)
        for r in op.results:
            if isinstance(r.type, MemRefType):
                self.live_temps[r] = self.get(r).ptr

    def op_loop_for(self, op: Operation, outline: bool = True) -> None:
        if outline and self.kernels is not None and (L.KERNEL in op.attributes or self._serial_in_glue(op)):
            KernelCallOutliner(self, self.kernels).emit(op)  # a kernel: compiled apart, at O2
            return
        with self.branch_scope():  # a step's buffers do not dominate the code after the loop
            super().op_loop_for(op)

    def _serial_in_glue(self, op: Operation) -> bool:
        """A serial nest met in the function's own module, outside any kernel (`serial_nest`)."""
        return self.parallel_depth == 0 and not self.kernels.emitting_any and serial_nest(op)

    @contextmanager
    def branch_scope(self) -> Iterator[None]:
        saved = dict(self.live_temps)
        yield
        self.live_temps = saved

    # -- loops
    def op_loop_gemm_tile(self, op: Operation) -> None:
        emit_gemm_tile(self, op)

    def op_loop_parallel(self, op: Operation) -> None:
        if self.threads and self.parallel_depth == 0 and outlinable(op):
            ParallelOutliner(self).emit(op)
            return
        self.parallel_depth += 1
        super().op_loop_parallel(op)
        self.parallel_depth -= 1

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
            self.b.call(self._libc(TEMP_FREE, ir.VoidType(), [PTR]), [ptr])
        self.b.ret(ir.Constant(I32, self.asserts))
        self.b.position_at_end(ok)

    # -- scalar computation
    def fast_math(self, op: Operation, t: ScalarType) -> tuple[str, ...]:
        """Reduction accumulators may be reassociated, so that LLVM vectorizes them."""
        return ("reassoc", "nsz") if id(op) in self.reassoc and t.is_float else ()

    # ------------------------------------------------------------------ helpers
    def _temp_alloc(self) -> ir.Function:
        """`irc_temp_alloc` (`temp_cache.py`): its block is aligned to TEMP_ALIGN, aliases nothing."""
        fn = self._libc(TEMP_ALLOC, PTR, [I64])
        if "noalias" not in fn.return_value.attributes:
            fn.return_value.attributes.add("noalias")
        return fn

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
        _TD = llvm.create_target_data(str(host_target_machine().target_data))
    return _TD
