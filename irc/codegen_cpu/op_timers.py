"""Per-op timers compiled into native code (the CPU timing source of the profiler).

`lower_tagged(func)` lowers a tensor-level function to loops like `lower-to-loops` and also
returns which tensor op produced each top-level loop-level op. `OpTimers` is handed to
`convert_to_llvm(..., op_timers=)`: it reads the cycle counter (`llvm.readcyclecounter`, the
TSC on x86: ~20 cycles, no call) before the first top-level op of each tensor op and after its
last one, and adds the difference and one call to a global `i64` array
`@irc.prof.<func>` = [cycles_0, calls_0, cycles_1, calls_1, ...]. Only top-level ops are
timed (a loop nest is one step), so the code inside loops, and its vectorization, is untouched.
"""
from __future__ import annotations

from typing import Any

from llvmlite import ir

# (through the pass module: importing it registers every pattern the driver looks up)
from ..conversion.tensor_to_loop.lower_to_loops import FuncLowering

I64 = ir.IntType(64)


def counters_symbol(func_name: str) -> str:
    return f"irc.prof.{func_name}"


TSC_SYMBOL = "irc.prof.tsc"


def lower_tagged(func: Any, allow_gc: bool = True) -> tuple[Any, dict[int, int], list[Any]]:
    """(loop-level function, {id(top-level loop op): tensor op number}, tensor ops).

    Runs `lower-to-loops`' own driver; the driver sets the builder's location once before
    lowering each tensor op, in order, so a builder that notices that assignment knows which
    top-level ops each tensor op produced."""
    ctx = FuncLowering(func, allow_gc)
    ops = [op for op in func.body.ops]
    body = ctx.func.body
    tags: dict[int, int] = {}
    state = {"k": -1, "seen": set()}

    def boundary() -> None:
        for o in body.ops:
            if id(o) not in state["seen"]:
                state["seen"].add(id(o))
                if 0 <= state["k"] < len(ops) and ops[state["k"]].op_name != "func.return":
                    tags[id(o)] = state["k"]

    base = type(ctx.lb)

    class _Noticing(base):  # type: ignore[misc, valid-type]
        @base.location.setter  # type: ignore[attr-defined]
        def location(self, loc: Any) -> None:
            boundary()
            state["k"] += 1
            base.location.fset(self, loc)  # type: ignore[attr-defined]

    ctx.lb.__class__ = _Noticing
    loop_func = ctx.lower()
    ctx.lb.__class__ = base
    return loop_func, tags, [op for op in ops if op.op_name != "func.return"]


class OpTimers:
    """Emits the timer code for one function; `tags` maps id(top-level op) -> counter slot."""

    def __init__(self, tags: dict[int, int], n_slots: int):
        self.tags = tags
        self.n_slots = n_slots
        self._slot: int | None = None
        self._start: ir.Value | None = None
        self._counters: ir.GlobalVariable | None = None
        self._counted: set[int] = set()  # a tensor op split in several runs counts one call

    def _tsc(self, b: ir.IRBuilder) -> ir.Value:
        fn = b.module.globals.get("llvm.readcyclecounter")
        if fn is None:
            fn = ir.Function(b.module, ir.FunctionType(I64, []), name="llvm.readcyclecounter")
        return b.call(fn, [])

    def begin_function(self, llmod: ir.Module, func_name: str) -> None:
        arr = ir.ArrayType(I64, 2 * max(1, self.n_slots))
        g = ir.GlobalVariable(llmod, arr, name=counters_symbol(func_name))
        g.initializer = ir.Constant(arr, None)
        g.align = 64
        self._counters = g
        self._counted = set()
        if TSC_SYMBOL not in llmod.globals:  # lets the runtime calibrate cycles -> seconds
            f = ir.Function(llmod, ir.FunctionType(I64, []), name=TSC_SYMBOL)
            fb = ir.IRBuilder(f.append_basic_block("entry"))
            fb.ret(self._tsc(fb))

    def before_op(self, b: ir.IRBuilder, op: Any) -> None:
        """Called before each top-level op: switch timers when the tensor op changes."""
        slot = self.tags.get(id(op))
        if op.op_name == "func.return" or (slot is not None and slot != self._slot):
            self._stop(b)
            if slot is not None and op.op_name != "func.return":
                self._slot, self._start = slot, self._tsc(b)

    def _stop(self, b: ir.IRBuilder) -> None:
        if self._slot is None:
            return
        elapsed = b.sub(self._tsc(b), self._start)
        base = ir.Constant(ir.IntType(32), 0)
        incs = [(0, elapsed)] + ([] if self._slot in self._counted else [(1, ir.Constant(I64, 1))])
        self._counted.add(self._slot)
        for k, inc in incs:
            ptr = b.gep(self._counters, [base, ir.Constant(ir.IntType(32), 2 * self._slot + k)])
            b.store(b.add(b.load(ptr), inc), ptr)
        self._slot = self._start = None
