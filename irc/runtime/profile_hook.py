"""Where the profiler meets `irc.function`: two small calls in `frontend/function._compile`.

    clock = CompileClock()            # before lowering; marks stages, times every pass
    ...optimize(..., instrumentations=[clock.passes])...
    executor, stats = attach_profile(executor, profile, mode, name, func, clock, native)

`attach_profile` picks the timing source: the native function's compiled-in counters when the
executor is native code (`profile_native`), else the reference executor's per-op hook."""
from __future__ import annotations

from time import perf_counter
from typing import Any

from ..base.compile_stages import LOAD, LOAD_LIBRARY
from ..base.config import config
from ..ir.instrumentation import PassTiming
from .profile import ProfileStats, ProfilingExecutor
from .profile_timing import ReferenceTiming


class CompileClock:
    """Compile time per stage (`mark`) and per pass (`passes`, a pass instrumentation)."""

    def __init__(self) -> None:
        self.passes = PassTiming()
        self.stages: dict[str, float] = {}
        self._t = perf_counter()

    def mark(self, stage: str) -> None:
        now = perf_counter()
        self.stages[stage] = self.stages.get(stage, 0.0) + now - self._t
        self._t = now

    def restart(self) -> None:
        self._t = perf_counter()

    def split(self, native: Any = None) -> dict[str, float]:
        """Frontend, each pass (`pass <name>`), then the native stages (lowering, LLVM IR, LLVM's
        optimizer, machine code, loading: the rows `irc-opt --timing` shows)."""
        out = dict(self.stages)
        for label, seconds in self.passes.rows.values():
            key = f"pass {label}"
            out[key] = out.get(key, 0.0) + seconds
        st = getattr(native, "stats", None)
        if st is not None:  # the stages below the passes (`base/compile_stages.py`), as they ran
            for stage, seconds in st.stages.items():
                if stage in (LOAD, LOAD_LIBRARY) and st.cache_hit:
                    out["LLVM [cache hit: object code from the disk cache]"] = 0.0
                out[stage] = seconds
        return out


def float64_notes(func: Any) -> list[str]:
    """Theano's float64 warnings: float64 inputs, and ops making float64 from narrower inputs."""
    def f64(t: Any) -> bool:
        return getattr(getattr(t, "element", None), "name", "") == "f64"

    notes = [f"input '{a.name_hint or i}' is float64" for i, a in enumerate(func.regions[0].blocks[0].args)
             if f64(a.type)]
    for op in func.regions[0].blocks[0].ops:
        if any(f64(r.type) for r in op.results) and op.operands and not any(f64(v.type) for v in op.operands):
            notes.append(f"'{op.op_name}' at {op.location} makes float64 from narrower inputs")
    return notes


def attach_profile(executor: Any, profile: Any, mode: str, name: str | None, func: Any,
                   clock: CompileClock | None = None, native: Any = None, module: Any = None) -> tuple:
    """(profiling executor, ProfileStats): wrap `executor` and choose the timing source."""
    at_exit = mode == "ProfileMode" or bool(config.profile)
    stats = profile if isinstance(profile, ProfileStats) else ProfileStats(name, at_exit)
    timing = getattr(native, "timing", None)
    per_op_hook = timing is None
    if timing is None:
        timing = ReferenceTiming(func)
        stats.executor_kind = "reference executor"
    stats.add_source(timing)
    stats.n_apply = len([op for op in func.regions[0].blocks[0].ops if op.op_name != "func.return"])
    stats.compile_times = clock.split(native) if clock is not None else {}
    stats.float64_notes = float64_notes(func)
    stats.module = module
    return ProfilingExecutor(executor, stats, per_op_hook), stats
