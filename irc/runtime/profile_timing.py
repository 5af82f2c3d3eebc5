"""Where per-op times come from: the `TimingSource` plug-in point of the profiler.

The profiler itself only sums and prints. A backend supplies a timing source: the reference
executor times each op in Python (`ReferenceTiming`), native CPU code carries compiled-in
cycle counters (`profile_native.NativeTiming`), a GPU backend would read CUDA events. A source
names its applies once (`applies()`), then `collect()` returns what accumulated since the last
collect, so a source may count in native memory and be read only when a summary prints.
"""
from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter
from typing import Any, Protocol, runtime_checkable

from .graph_view import graph_view


@dataclass
class ApplyInfo:
    """One op of the compiled function as the profile names it (Theano's Apply node)."""

    key: Any          # identifies the apply for this source (an IR op, a slot number)
    order: int        # position in execution order (Theano's <id>)
    class_name: str   # e.g. "irc.tensor.elemwise.Elemwise"
    op_name: str      # e.g. "Elemwise{add,no_inplace}"
    apply_name: str   # e.g. "Elemwise{add,no_inplace}(CGemv.0, DimShuffle.0)"
    kind: str = "C"   # "C" native code, "Py" interpreted (Theano's <type>)
    device: str = "cpu"  # "cpu", "gpu" or "transfer"


@runtime_checkable
class TimingSource(Protocol):
    """What a backend implements to feed the profiler."""

    name: str

    def applies(self) -> list[ApplyInfo]:
        """Every op this source times, once."""

    def collect(self) -> dict[Any, tuple[float, int]]:
        """{apply key: (seconds, calls)} accumulated since the previous collect."""


def device_of(class_name: str) -> str:
    """Theano's split: GpuFromHost/HostFromGpu are transfers, classes named Gpu* run on the gpu."""
    short = class_name.rsplit(".", 1)[-1]
    if short in ("GpuFromHost", "HostFromGpu"):
        return "transfer"
    return "gpu" if short.startswith("Gpu") else "cpu"


def describe_ops(func: Any, ops: list[Any], kind: str) -> list[ApplyInfo]:
    """ApplyInfo for tensor-level `ops` of `func` (keys are the ops), named like `fgraph`."""
    nodes = {id(n.ir): n for n in graph_view(func).toposort()}
    out = []
    for i, op in enumerate(ops):
        node = nodes.get(id(op))
        view = node.op if node is not None else None
        cls = type(view).__name__ if view is not None else op.op_name
        name = str(view) if view is not None else op.op_name
        out.append(ApplyInfo(op, i, f"irc.{_family(cls)}.{cls}", name,
                             str(node) if node is not None else name, kind, device_of(cls)))
    return out


def describe_launches(func: Any, launches: list[tuple[Any, Any]]) -> list[ApplyInfo]:
    """ApplyInfo for kernel launches `(key, location)` of a device-placed tensor-level `func`,
    named after the ops lowered into them: the ops at the launch's location (a kernel holds
    the loop nest of one op; ops written on one Python line share their names)."""
    ops = [op for op in func.regions[0].blocks[0].ops
           if op.op_name not in ("func.return", "tensor.to_device", "tensor.to_host")]
    described = {id(info.key): info for info in describe_ops(func, ops, "C")}
    out = []
    for i, (key, location) in enumerate(launches):
        named = [described[id(op)] for op in ops if op.location == location]
        named = [info for info in named if info.device == "gpu"] or named
        if not named:
            out.append(ApplyInfo(key, i, "irc.basic.GpuKernel", str(key), str(key), "C", "gpu"))
            continue
        first = named[0]
        label = " + ".join(info.op_name for info in named)
        apply_name = " + ".join(info.apply_name for info in named)
        out.append(ApplyInfo(key, i, first.class_name, label, apply_name, "C", "gpu"))
    return out


def _family(cls: str) -> str:
    base = cls[3:] if cls.startswith("Gpu") else cls
    if base in ("Gemv", "CGemv", "Gemm", "CGemm", "Dot"):
        return "blas"
    if base in ("FromHost", "HostFromGpu", "GpuFromHost") or cls in ("GpuFromHost", "HostFromGpu"):
        return "transfer"
    return "elemwise" if base in ("Elemwise", "CAReduce", "DimShuffle") else "basic"


class ReferenceTiming:
    """Times each op of the reference (Python) executor through its per-op hook."""

    name = "reference"

    def __init__(self, func: Any):
        self.func = func
        self._times: dict[int, list] = {}

    def applies(self) -> list[ApplyInfo]:
        ops = [op for op in self.func.regions[0].blocks[0].ops if op.op_name != "func.return"]
        return describe_ops(self.func, ops, "Py")

    def record_op(self, op: Any, seconds: float) -> None:
        row = self._times.get(id(op))
        if row is None:
            row = self._times[id(op)] = [op, 0.0, 0]
        row[1] += seconds
        row[2] += 1

    def collect(self) -> dict[Any, tuple[float, int]]:
        out = {row[0]: (row[1], row[2]) for row in self._times.values()}
        self._times.clear()
        return out


class CompositeTiming:
    """Several sources as one (a function run as native parts with user ops between them):
    their applies in the order given, renumbered."""

    name = "composite"

    def __init__(self, sources: list[Any]):
        self.sources = sources

    def applies(self) -> list[ApplyInfo]:
        out = []
        for src in self.sources:
            for info in src.applies():
                info.order = len(out)
                out.append(info)
        return out

    def collect(self) -> dict[Any, tuple[float, int]]:
        out: dict[Any, tuple[float, int]] = {}
        for src in self.sources:
            out.update(src.collect())
        return out


class UserOpTiming(ReferenceTiming):
    """The user ops of a function run as native parts (`segmented.py`), timed in Python."""

    name = "user ops"

    def __init__(self, func: Any, ops: list[Any]):
        super().__init__(func)
        self.ops = ops

    def applies(self) -> list[ApplyInfo]:
        return describe_ops(self.func, self.ops, "Py")

    def only(self, op: Any) -> "OneUserOp":
        """A source for `op` alone, reading what this one records (to interleave with parts)."""
        return OneUserOp(self, op)


class OneUserOp:
    """One user op's rows of a `UserOpTiming` (which the executor records into)."""

    name = "user op"

    def __init__(self, timing: UserOpTiming, op: Any):
        self.timing, self.op = timing, op

    def applies(self) -> list[ApplyInfo]:
        return describe_ops(self.timing.func, [self.op], "Py")

    def collect(self) -> dict[Any, tuple[float, int]]:
        row = self.timing._times.pop(id(self.op), None)
        return {} if row is None else {row[0]: (row[1], row[2])}


def host_clock(work: Any) -> tuple[Any, Any]:
    """`work()` timed by the host's clock, for `TimedUserOp`: (result, seconds getter)."""
    t0 = perf_counter()
    out = work()
    seconds = perf_counter() - t0
    return out, lambda: seconds


class TimedUserOp:
    """One GPU user op, timed on the device: `timed(work)` runs its thunk between two marks of
    `clock` (CUDA events on irc's stream; the host's clock in the CPU emulation), read only
    when the profile is collected. Its row has the op's own name; its kind is "Py", as Theano
    showed a thunk that `make_thunk` returned, and its device the gpu (the cpu for a CPU user op
    run between device parts, timed by `host_clock`)."""

    name = "gpu user op"

    def __init__(self, func: Any, op: Any, clock: Any, device: str = "gpu"):
        self.func, self.op, self.clock, self.device = func, op, clock, device
        self.pending: list[Any] = []

    def applies(self) -> list[ApplyInfo]:
        info = describe_ops(self.func, [self.op], "Py")[0]
        info.device = self.device
        return [info]

    def timed(self, work: Any) -> Any:
        out, seconds = self.clock(work)
        self.pending.append(seconds)
        return out

    def collect(self) -> dict[Any, tuple[float, int]]:
        if not self.pending:
            return {}
        total = sum(seconds() for seconds in self.pending)
        calls = len(self.pending)
        self.pending.clear()
        return {self.op: (total, calls)}
