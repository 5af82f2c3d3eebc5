"""The CPU timing source: native code compiled with per-op cycle counters (`op_timers.py`).

`compile_cpu_profiled(module)` is `compile_cpu` with timers: lowered with op tags, converted
with `OpTimers`, never cached on disk (a profiled object must not serve a plain run).
`NativeTiming` reads the counters array straight from the JIT's memory when a summary asks,
so a profiled call costs no Python work beyond the plain native call.
"""
from __future__ import annotations

import ctypes
import functools
import time
from typing import Any

import numpy as np

from ..base.compile_stages import LLVM_IR, LOWER, listening, timed
from ..codegen_cpu.convert_to_llvm import convert_to_llvm
from ..codegen_cpu.op_timers import OpTimers, TSC_SYMBOL, counters_symbol, lower_tagged
from ..codegen_cpu.target import emit_object, parse_and_optimize
from ..dialects.builtin import ModuleOp
from ..ir.printer import print_op
from ..ir.verifier import verify
from . import native as N
from .native_executor import NativeExecutor, make_cpu_executor
from .profile_timing import ApplyInfo, CompositeTiming, UserOpTiming, describe_ops
from .segmented import compile_parts
from .segments import NativePart, split, splittable


@functools.lru_cache(maxsize=None)
def seconds_per_cycle(tsc_addr: int) -> float:
    """Calibrate the cycle counter against `perf_counter` over ~20 ms (once per process)."""
    tsc = ctypes.CFUNCTYPE(ctypes.c_int64)(tsc_addr)
    c0, t0 = tsc(), time.perf_counter()
    time.sleep(0.02)
    c1, t1 = tsc(), time.perf_counter()
    return (t1 - t0) / max(1, c1 - c0)


class NativeTiming:
    """Per-op (seconds, calls) from the `irc.prof.<func>` counters of one native function."""

    name = "cpu-native"

    def __init__(self, engine: Any, func: Any, ops: list[Any], coded: set[int] | None = None):
        self.func, self.ops = func, ops
        # ops that lowered to no code (a view of a value held as a scalar) run in no time, once
        # per call like every op: they take the call count of the others
        self.codeless = [i for i in range(len(ops)) if coded is not None and i not in coded]
        addr = engine.get_global_value_address(counters_symbol(func.sym_name))
        self.counters = (ctypes.c_int64 * (2 * max(1, len(ops)))).from_address(addr)
        self.engine = engine  # keeps the memory alive
        self.scale = seconds_per_cycle(engine.get_function_address(TSC_SYMBOL))

    def applies(self) -> list[ApplyInfo]:
        return describe_ops(self.func, self.ops, "C")

    def raw(self) -> np.ndarray:
        arr = np.ctypeslib.as_array(self.counters).reshape(-1, 2)
        if self.codeless:
            arr[self.codeless, 1] = arr[:, 1].max()
        return arr

    def collect(self) -> dict[Any, tuple[float, int]]:
        arr = self.raw()
        out = {op: (float(arr[i, 0]) * self.scale, int(arr[i, 1])) for i, op in enumerate(self.ops)}
        arr[:] = 0
        return out


def compile_cpu_profiled(module: Any, name: str | None = None) -> tuple[Any, NativeTiming]:
    """(NativeFunction with timers, its timing source). Mirrors `native.compile_cpu`."""
    stats = N.CompileStats()
    with listening(stats.add_stage):
        return _compile_profiled(module, name, stats)


def _compile_profiled(module: Any, name: str | None, stats: Any) -> tuple[Any, NativeTiming]:
    t0 = time.perf_counter()
    func = N._select_function(module, name)
    with timed(LOWER):
        loop_func, tags, ops = lower_tagged(func)
    loop_module = ModuleOp.create([loop_func])
    verify(loop_module)
    text = print_op(loop_module)
    stats.lower_s = time.perf_counter() - t0
    layout = N.probe_numpy_layout()
    t1 = time.perf_counter()
    with timed(LLVM_IR):
        llmod = convert_to_llvm(loop_module, numpy_layout=layout, op_timers=OpTimers(tags, len(ops)))
    obj = emit_object(parse_and_optimize(llmod))
    stats.llvm_s = time.perf_counter() - t1
    fn = N.bind_native(func, loop_func, text, obj, layout, stats)
    return fn, NativeTiming(fn._engine, func, ops, set(tags.values()))


def make_profiled_cpu_executor(module: Any, func: Any, allow_gc: bool) -> tuple[Any, Any]:
    """(executor, NativeFunction carrying `.timing`) for a profiled `irc.function`; falls back
    like `make_cpu_executor` (reference executor, warning) when an op cannot be compiled."""
    if splittable(func):
        try:
            return profiled_parts(func)
        except (NotImplementedError, ValueError):
            return make_cpu_executor(module, func, allow_gc)
    try:
        native, timing = compile_cpu_profiled(module, func.sym_name)
    except (NotImplementedError, ValueError):
        return make_cpu_executor(module, func, allow_gc)  # warns, or raises the real error
    native.timing = timing
    return NativeExecutor(native), native


class ProfiledParts:
    """What `irc.function` keeps of a profiled function run as native parts and user ops: the
    parts' loop IR, their summed compile times and one timing source for all of them."""

    def __init__(self, natives: list[Any], timing: Any):
        self.loop_ir = "\n".join(n.loop_ir for n in natives)
        self.stats = N.CompileStats(sum(n.stats.lower_s for n in natives), sum(n.stats.llvm_s for n in natives),
                                    sum(n.stats.load_s for n in natives))
        self.timing = timing


def profiled_parts(func: Any) -> tuple[Any, ProfiledParts]:
    """(executor, ProfiledParts): each native part with its cycle counters, user ops timed."""
    plan = split(func)
    sources: list[Any] = []  # in the order the steps run, so the profile's ids follow the program
    natives: list[Any] = []
    user_timing = UserOpTiming(func, [step.op for step in plan.steps if not isinstance(step, NativePart)])

    def compile_part(module: Any, name: str) -> NativeExecutor:
        fn, timing = compile_cpu_profiled(module, name)
        natives.append(fn)
        sources.append(timing)
        return NativeExecutor(fn)

    executor = compile_parts(plan, compile_part)
    executor.user_timing = user_timing
    ordered, parts = [], iter(sources)
    for step in plan.steps:
        ordered.append(next(parts) if isinstance(step, NativePart) else user_timing.only(step.op))
    return executor, ProfiledParts(natives, CompositeTiming(ordered))
