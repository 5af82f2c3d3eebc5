"""The profiler's GPU timing source: CUDA events around every kernel launch and transfer.

With `profile=True` a GPU function runs its launches one by one (no graph replay, which would
time only the whole) with an event recorded before and after each on the stream; the events
are read when a summary asks (`collect`), so the profiled call itself only queues them. Each
kernel is one apply of the profile, named after the tensor ops lowered into it; uploads and
downloads are Theano's `GpuFromHost`/`HostFromGpu` rows."""
from __future__ import annotations

from time import perf_counter
from typing import Any, Callable

import pycuda.driver as drv

from ...dialects.gpu import GemmOp, LaunchOp
from ..host_plan import blas_entry_name
from ..profile_timing import ApplyInfo, describe_launches


class CudaTiming:
    """Per-kernel and per-transfer (seconds, calls) measured with CUDA events."""

    name = "cuda-events"

    def __init__(self, placed_func: Any, host_func: Any, uploads: list[int], downloads: list[int],
                 stream: Any):
        self.func = placed_func
        self.stream = stream
        launches = [op for op in host_func.walk() if isinstance(op, LaunchOp)]
        self.kernels: dict[str, Any] = {}  # name (the row's key) -> location
        for op in launches:
            self.kernels.setdefault(op.kernel, op.location)
        calls = [op for op in host_func.walk() if isinstance(op, GemmOp)]
        for i, op in enumerate(calls):  # named as `record_plan` names them
            self.kernels[blas_entry_name(i)] = op.location
        self.uploads = {k: f"GpuFromHost(input {k})" for k in uploads}
        self.downloads = {k: f"HostFromGpu(output {k})" for k in downloads}
        self.pending: list[tuple[str, Any, Any]] = []
        self.memory_calls = self.first_fresh = self.later_fresh = 0
        self.peak_bytes = self.first_managed = self.last_managed = 0

    def applies(self) -> list[ApplyInfo]:
        infos = describe_launches(self.func, list(self.kernels.items()))
        n = len(infos)
        for table, cls in ((self.uploads, "GpuFromHost"), (self.downloads, "HostFromGpu")):
            for key in table.values():
                infos.append(ApplyInfo(key, n, f"irc.transfer.{cls}", cls, key, "C", "transfer"))
                n += 1
        return infos

    def timed(self, key: str, work: Callable[[], Any]) -> Any:
        """Run `work` (which queues on the stream) between two events."""
        start, end = drv.Event(), drv.Event()
        start.record(self.stream)
        out = work()
        end.record(self.stream)
        self.pending.append((key, start, end))
        return out

    def timed_on_host(self, key: str, work: Callable[[], Any]) -> Any:
        """Run `work`, a synchronous copy, timed by the host's clock."""
        t0 = perf_counter()
        out = work()
        self.pending.append((key, perf_counter() - t0, None))
        return out

    def note_call_memory(self, pool: Any, fresh: int) -> None:
        """After a profiled call took its buffers: the pool's bytes in use (the peak kept),
        what it holds from the driver, and `fresh`, the buffers this call allocated (not
        handed back by the recycling)."""
        self.memory_calls += 1
        self.peak_bytes = max(self.peak_bytes, pool.active_bytes)
        if self.memory_calls == 1:
            self.first_managed = pool.managed_bytes
            self.first_fresh = fresh
        self.last_managed = pool.managed_bytes
        self.later_fresh += fresh if self.memory_calls > 1 else 0

    def memory_notes(self) -> list[str]:
        """The GPU lines of the memory report: measured, not estimated."""
        if not self.memory_calls:
            return []
        later = self.memory_calls - 1
        grown = (self.last_managed - self.first_managed) / 1024
        per_call = f"{self.later_fresh / later:.2f} per call" if later else "no later call"
        return [f"GPU: peak device memory in use during a call: {self.peak_bytes / 1024:.1f}KB "
                f"(irc's pool, the whole process)",
                f"GPU: buffers allocated: {self.first_fresh} in the first call, {self.later_fresh} "
                f"in the {later} calls after ({per_call}); the pool took {grown:.1f}KB more from "
                f"the driver after the first call"]

    def upload_key(self, k: int) -> str:
        return self.uploads.setdefault(k, f"GpuFromHost(input {k})")

    def collect(self) -> dict[Any, tuple[float, int]]:
        out: dict[Any, list] = {}
        events = [end for _, _, end in self.pending if end is not None]
        if events:
            events[-1].synchronize()
        for key, start, end in self.pending:
            row = out.setdefault(key, [0.0, 0])
            row[0] += start if end is None else start.time_till(end) / 1e3
            row[1] += 1
        self.pending.clear()
        return {key: (s, c) for key, (s, c) in out.items()}
