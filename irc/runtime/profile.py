"""A small per-op profile (`f.profile`): call counts and time per op class and per op.

A placeholder for the full profiler (compile-time split, cpu/gpu/transfer split); it already
gives the Theano-style "where does the time go" table for the reference executor."""
from __future__ import annotations

import sys
from collections import defaultdict
from time import perf_counter
from typing import Any, Sequence, TextIO


_AT_EXIT: list["ProfileStats"] = []


def _print_at_exit() -> None:
    for stats in _AT_EXIT:
        if stats.calls:
            stats.summary(sys.stderr)


class ProfileStats:
    """Accumulates time per op (keyed by the op object) over every call. With `at_exit`
    (ProfileMode, `config.profile`), the summary prints when the program ends, as in Theano."""

    def __init__(self, name: str | None = None, at_exit: bool = False):
        if at_exit:
            if not _AT_EXIT:
                import atexit
                atexit.register(_print_at_exit)
            _AT_EXIT.append(self)
        self.name = name
        self.calls = 0
        self.call_time = 0.0
        self.op_time: dict[Any, float] = defaultdict(float)
        self.op_calls: dict[Any, int] = defaultdict(int)

    def record_op(self, op: Any, seconds: float) -> None:
        self.op_time[op] += seconds
        self.op_calls[op] += 1

    def summary(self, file: TextIO | None = None) -> None:
        from ..frontend.opview import view_op
        out = file or sys.stdout
        out.write(f"Function profiling\n==================\n  Message: {self.name or '(unnamed)'}\n")
        out.write(f"  Time in {self.calls} calls to Function.__call__: {self.call_time:.6e}s\n")
        by_class: dict[str, float] = defaultdict(float)
        for op, t in self.op_time.items():
            by_class[type(view_op(op)).__name__] += t
        total = sum(self.op_time.values()) or 1.0
        out.write("\nClass\n---\n<% time> <total time> <class>\n")
        for cls, t in sorted(by_class.items(), key=lambda kv: -kv[1]):
            out.write(f"  {100 * t / total:5.1f}%  {t:.3e}s  {cls}\n")
        out.write("\nOps\n---\n<% time> <total time> <calls> <op> <location>\n")
        for op, t in sorted(self.op_time.items(), key=lambda kv: -kv[1]):
            out.write(f"  {100 * t / total:5.1f}%  {t:.3e}s  {self.op_calls[op]:6d}  {op.op_name}  "
                      f"{op.location}\n")


class ProfilingExecutor:
    """Wraps an executor with a `hook` argument so every op's time goes to `stats`."""

    def __init__(self, inner: Any, stats: ProfileStats):
        self.inner = inner
        self.stats = stats
        self.constants = getattr(inner, "constants", {})

    def run(self, args: Sequence[Any]) -> list:
        t0 = perf_counter()
        out = self.inner.run(args, hook=self.stats.record_op)
        self.stats.calls += 1
        self.stats.call_time += perf_counter() - t0
        return out
