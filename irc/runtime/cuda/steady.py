"""The steady state of a GPU function called again and again with the same buffers.

A training step or the tutorial's loop calls one function with no inputs over shared
variables that stay where they are; its borrowed results and in-place updates reuse their
buffers, and its fresh results recycle the ones the caller dropped (`recycle.Recent`). After
the CUDA graph for those addresses is captured, a call is then: take the fresh buffers, look
the graph up by the addresses, replay it. `SteadyRun` is that call, prepared once for the
arguments and reused buffers of one call; it answers None (the caller takes the general path)
whenever the graph is not there or a fresh buffer cannot be had (out of memory: the general
path fails with its message, after releasing the recycled buffers)."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import pycuda.driver as drv

from .launch import CudaError, driver


class SteadyRun:
    """`run() -> results | None` for a plan whose buffers are `fixed` (None: a fresh one made
    by the matching entry of `makers`). Holds no fresh result between calls, so the caller's
    drop is what lets the next call recycle it."""

    def __init__(self, plan: Any, fixed: Sequence[Any], makers: Sequence[Callable[[], Any]]):
        self.bufs = list(fixed)
        self.fresh = [(pos, make) for pos, (buf, make) in enumerate(zip(fixed, makers)) if buf is None]
        self.result_slots = list(plan.result_slots)
        self.execs = plan.graphs.execs
        self.launch_graph = plan.graphs.launch_graph
        self.stream = plan.graphs.stream
        self.staged = plan.staged or ()  # host results the graph leaves in the plan's mapped host block
        self.wait = driver().cuStreamSynchronize if self.staged else None
        if not self.fresh:  # every buffer fixed: one graph, one result list
            self.key = tuple([b.address for b in self.bufs])
            self.results = [self.bufs[slot] for slot in self.result_slots]
            self.run = self._run_fixed

    def _run_fixed(self) -> list | None:
        graph = self.execs.get(self.key)
        if graph is None:
            return None
        code = self.launch_graph(graph, self.stream)
        if code:
            raise CudaError("launching a CUDA graph", code)
        return self._host_results(list(self.results)) if self.staged else list(self.results)

    def _host_results(self, results: list) -> list:
        """`results` with the staged host results copied out, once the graph is done."""
        code = self.wait(self.stream)
        if code:
            raise CudaError("running a CUDA graph", code)
        for k, host in self.staged:
            results[k] = host.copy()
        return results

    def run(self) -> list | None:
        bufs = self.bufs
        try:
            for pos, make in self.fresh:
                bufs[pos] = make()
            graph = self.execs.get(tuple([b.address for b in bufs]))
            if graph is None:
                return None
            code = self.launch_graph(graph, self.stream)
            if code:
                raise CudaError("launching a CUDA graph", code)
            results = [bufs[slot] for slot in self.result_slots]
            return self._host_results(results) if self.staged else results
        except drv.MemoryError:
            return None  # the general path reports it, after releasing what it can
        finally:
            for pos, _ in self.fresh:  # hold no fresh result (see the class doc)
                bufs[pos] = None
