"""The profiler's data (`f.profile`): calls, time in `__call__` and in the compiled code, the
compile time split per pass and stage, and per-op times from the backend's `TimingSource`.

`summary()` prints it in Theano's layout (see `profile_report.py`); with `at_exit`
(`config.profile`, ProfileMode) every profile prints when the program ends, followed by their
sum when there are several, as Theano does."""
from __future__ import annotations

import atexit
import functools
import sys
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, Sequence, TextIO

from .function import Function
from .profile_report import format_profile, memory_lines, number_value
from .profile_timing import ApplyInfo, ReferenceTiming, TimingSource

_AT_EXIT: list["ProfileStats"] = []


def _print_at_exit() -> None:
    printed = [s for s in _AT_EXIT if s.calls]
    for stats in printed:
        stats.summary(sys.stderr)
    if len(printed) > 1:
        merge(printed).summary(sys.stderr)


@dataclass
class ApplyStat:
    info: ApplyInfo
    seconds: float = 0.0
    calls: int = 0


@dataclass(eq=False)  # compared by identity (the at-exit list)
class ProfileStats:
    """Accumulates over every call; per-op times are pulled from `sources` when read."""

    name: str | None = None
    at_exit: bool = False
    calls: int = 0
    call_time: float = 0.0       # in Function.__call__ (argument checks, copies, updates)
    fn_time: float = 0.0         # in the executor (the native call)
    compile_times: dict[str, float] = field(default_factory=dict)  # stage -> seconds, in order
    n_apply: int = 0
    executor_kind: str = "native code"
    float64_notes: list[str] = field(default_factory=list)
    memory_lines: list[str] = field(default_factory=list)
    input_shapes: list[tuple] | None = None
    input_values: list[Any] | None = None  # the first call's number inputs (sizes may depend on them)
    module: Any = None
    sources: list[TimingSource] = field(default_factory=list)
    applies: dict[int, ApplyStat] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.at_exit:
            if not _AT_EXIT:
                atexit.register(_print_at_exit)
            _AT_EXIT.append(self)

    # -- feeding
    def add_source(self, source: TimingSource) -> None:
        self.sources.append(source)
        for info in source.applies():
            self.applies.setdefault(id(info.key), ApplyStat(info))

    def record_op(self, op: Any, seconds: float) -> None:
        """The reference executor's per-op hook (a `ReferenceTiming` source is made on demand)."""
        src = next((s for s in self.sources if isinstance(s, ReferenceTiming)), None)
        if src is None:  # a ProfileStats fed by hand, without attach_profile
            src = ReferenceTiming(None)
            self.sources.append(src)
        src.record_op(op, seconds)

    def collect(self) -> None:
        """Pull what the timing sources accumulated since the last pull."""
        for src in self.sources:
            for key, (seconds, calls) in src.collect().items():
                st = self.applies.get(id(key))
                if st is None:
                    name = getattr(key, "op_name", str(key))
                    info = ApplyInfo(key, len(self.applies), name, name, name, "Py")
                    st = self.applies[id(key)] = ApplyStat(info)
                st.seconds += seconds
                st.calls += calls

    # -- reading
    @property
    def op_time(self) -> dict[Any, float]:
        """Seconds per IR op (the apply's key), for code that wants the raw numbers."""
        self.collect()
        return {st.info.key: st.seconds for st in self.applies.values() if st.calls}

    def summary(self, file: TextIO | None = None, n_ops_to_print: int = 20,
                n_apply_to_print: int = 20) -> None:
        self.collect()
        if not self.memory_lines and self.module is not None:
            self.memory_lines = memory_lines(None, self.module, self.input_shapes, self.input_values)
        device_notes = [line for src in self.sources for line in getattr(src, "memory_notes", list)()]
        if device_notes:
            self.memory_lines = [m for m in self.memory_lines if not m.startswith("GPU")] + device_notes
        (file or sys.stdout).write(format_profile(self, n_ops_to_print, n_apply_to_print))


def merge(profiles: list["ProfileStats"]) -> "ProfileStats":
    """One profile summing several (applies kept apart, grouped by class and op in the tables)."""
    total = ProfileStats(f"Sum of all({len(profiles)}) printed profiles at exit")
    for p in profiles:
        p.collect()
        total.calls += p.calls
        total.call_time += p.call_time
        total.fn_time += p.fn_time
        total.n_apply += p.n_apply
        for stage, s in p.compile_times.items():
            total.compile_times[stage] = total.compile_times.get(stage, 0.0) + s
        for key, st in p.applies.items():
            total.applies[len(total.applies)] = ApplyStat(st.info, st.seconds, st.calls)
        total.float64_notes += [f"{p.name}: {n}" for n in p.float64_notes]
        total.memory_lines += [f"{p.name}: {m}" for m in p.memory_lines]
        if p.executor_kind != "native code":
            total.executor_kind = p.executor_kind
    return total


class ProfilingExecutor:
    """Wraps an executor: times each run (and, for the reference executor, each op)."""

    def __init__(self, inner: Any, stats: ProfileStats, per_op_hook: bool = False):
        self.inner = inner
        self.stats = stats
        self.per_op_hook = per_op_hook
        self.constants = getattr(inner, "constants", {})
        # forwarded so that Function keeps its no-copy fast path for native results
        self.fresh_results = getattr(inner, "fresh_results", False)
        self.native = getattr(inner, "native", None)

    def run(self, args: Sequence[Any], outs: list | None = None) -> list:
        stats = self.stats
        if stats.input_shapes is None:
            stats.input_shapes = [getattr(a, "shape", ()) for a in args]
            stats.input_values = [number_value(a) for a in args]
        t0 = perf_counter()
        if self.per_op_hook:
            out = self.inner.run(args, hook=stats.record_op)
        elif outs is not None:
            out = self.inner.run(args, outs=outs)
        else:
            out = self.inner.run(args)
        stats.fn_time += perf_counter() - t0
        return out


@functools.lru_cache(maxsize=None)
def profiled_function_class() -> type:
    """A `Function` whose calls are timed whole (Theano's "Time in Function.__call__")."""

    class ProfiledFunction(Function):
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            t0 = perf_counter()
            try:
                return super().__call__(*args, **kwargs)
            finally:
                self.profile.calls += 1
                self.profile.call_time += perf_counter() - t0

    return ProfiledFunction
