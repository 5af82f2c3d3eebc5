"""A plan's CUDA graph with its real dependencies, so that independent launches overlap.

Captured on one stream, a graph is a chain: every kernel waits for the one before it, though
a training step's launches form a tree — the cost's last reductions need nothing the
gradient needs, the bias update nothing the weight update needs, and a product of a layer's
input can start before the layer above is done. Each launch says which buffers it reads and
which it writes (by address range, as the graph's buffers lie for its key); a launch depends
on the last writer of what it reads and on every reader and writer since of what it writes.
The launches are then spread over a few streams ("lanes") during the capture: a launch goes
on the lane of its latest dependency (on one lane, stream order is the dependency, and a
kernel after a kernel keeps its programmatic launch), or on a free lane when that lane's
last launch is not one of its dependencies, and waits by events for its dependencies on
other lanes that the lane does not already know to be done (a vector clock per lane). The
capture then has exactly those edges. A launch whose buffers are unknown is a barrier: it
waits for everything before it, and everything after waits for it.

`plan_lanes` is the pure part (tested without a GPU); `capture_concurrent` drives the
driver's stream capture with it."""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any, Sequence

from .launch import CAPTURE_MODE_RELAXED, CudaError, check, driver

# (first byte, end byte, written?) of one buffer a launch touches
Access = tuple[int, int, bool]
LANES = 4
START = -1  # the capture's start, as a dependency: joins a lane to the capture


@dataclass(frozen=True)
class Step:
    """Where launch i goes: its lane, and the launches (on other lanes) it waits for first."""

    lane: int
    waits: tuple[int, ...]


def dependencies(accesses: Sequence[Sequence[Access] | None]) -> list[list[int]]:
    """For each launch, the earlier launches it must follow (None: a barrier)."""
    resource = _resources(accesses)
    writer: dict[int, int] = {}
    readers: dict[int, list[int]] = {}
    barrier = -1
    out: list[list[int]] = []
    for i, touched in enumerate(accesses):
        if touched is None:
            out.append(list(range(barrier + 1, i)) or ([barrier] if barrier >= 0 else []))
            barrier = i
            writer.clear()
            readers.clear()
            continue
        deps = {barrier} if barrier >= 0 else set()
        used = [(resource[(lo, hi)], writes) for lo, hi, writes in touched if hi > lo]
        for r, writes in used:
            if r in writer:
                deps.add(writer[r])
            if writes:
                deps.update(readers.pop(r, []))
        for r, writes in used:
            if writes:
                writer[r] = i
                readers.pop(r, None)
            else:
                readers.setdefault(r, []).append(i)
        out.append(sorted(deps))
    return out


def _resources(accesses: Sequence[Sequence[Access] | None]) -> dict[tuple[int, int], int]:
    """Each distinct address range → one resource id, overlapping ranges sharing one (two
    views of one allocation conflict wherever their bytes may meet)."""
    ranges = sorted({(lo, hi) for touched in accesses if touched for lo, hi, _ in touched if hi > lo})
    ids: dict[tuple[int, int], int] = {}
    current, end = -1, None
    for lo, hi in ranges:
        if end is None or lo >= end:
            current += 1
            end = hi
        else:
            end = max(end, hi)
        ids[(lo, hi)] = current
    return ids


def plan_lanes(accesses: Sequence[Sequence[Access] | None], lanes: int = LANES) -> tuple[list[Step], tuple[int, ...]]:
    """(a `Step` per launch, the launches lane 0 waits for at the end so that every lane
    rejoins it). Lane 0 is the capturing stream."""
    deps = dependencies(accesses)
    last = [None] * lanes                    # the last launch on each lane
    clock = [[-1] * lanes for _ in range(lanes)]  # clock[l][m]: the latest launch of lane m that l knows done
    lane_of: list[int] = []
    after: list[list[int]] = []              # each launch's clock once it is done
    steps: list[Step] = []
    for i, need in enumerate(deps):
        lane = _choose_lane(need, last)
        waits = []
        for j in sorted(need, reverse=True):
            m = lane_of[j]
            if m == lane or clock[lane][m] >= j:
                continue
            waits.append(j)
            clock[lane] = [max(a, b) for a, b in zip(clock[lane], after[j])]
        if lane != 0 and last[lane] is None and not waits:
            waits.append(START)
        last[lane] = i
        clock[lane][lane] = i
        lane_of.append(lane)
        after.append(list(clock[lane]))
        steps.append(Step(lane, tuple(waits)))
    joins = tuple(last[m] for m in range(1, lanes) if last[m] is not None and clock[0][m] < last[m])
    return steps, joins


def _choose_lane(need: list[int], last: list[int | None]) -> int:
    """The lane whose last launch is the latest of `need`; else an unused lane (lane 0 first);
    else the lane whose last launch is oldest (the least harm from a dependency that is not one)."""
    on_top = [m for m, j in enumerate(last) if j is not None and j in need]
    if on_top:
        return max(on_top, key=lambda m: last[m])
    free = [m for m, j in enumerate(last) if j is None]
    if free:
        return free[0]
    return min(range(len(last)), key=lambda m: last[m])


_SIDE_STREAMS: dict[int, list[ctypes.c_void_p]] = {}
CU_STREAM_NON_BLOCKING = 1
CU_EVENT_DISABLE_TIMING = 2


def side_streams(stream_handle: int, count: int) -> list[ctypes.c_void_p]:
    """`count` streams of the current context kept for captures forked from `stream_handle`."""
    have = _SIDE_STREAMS.setdefault(stream_handle, [])
    cu = driver()
    while len(have) < count:
        s = ctypes.c_void_p()
        check(cu.cuStreamCreate(ctypes.byref(s), CU_STREAM_NON_BLOCKING), "creating a stream for a graph's lanes")
        have.append(s)
    return have[:count]


def capture_concurrent(launchers: Sequence[Any], stream_handle: int,
                       accesses: Sequence[Sequence[Access] | None]) -> ctypes.c_void_p:
    """A CUDA graph of `launchers` with the edges `plan_lanes` finds (each launcher's
    `launch_on(stream)` puts it on a lane); a `CudaError` (the capture ended, nothing left
    behind) when a launch or the capture fails."""
    steps, joins = plan_lanes(accesses)
    used = max(step.lane for step in steps) + 1 if steps else 1
    cu = driver()
    origin = ctypes.c_void_p(stream_handle)
    streams = [origin] + side_streams(stream_handle, used - 1)
    events: list[ctypes.c_void_p] = []

    def event() -> ctypes.c_void_p:
        e = ctypes.c_void_p()
        check(cu.cuEventCreate(ctypes.byref(e), CU_EVENT_DISABLE_TIMING), "creating an event for a graph's lanes")
        events.append(e)
        return e

    graph = ctypes.c_void_p()
    check(cu.cuStreamBeginCapture_v2(origin, CAPTURE_MODE_RELAXED), "starting a CUDA graph capture")
    bad = 0
    try:
        start = event()
        bad = cu.cuEventRecord(start, origin)
        done: list[ctypes.c_void_p] = []
        for launcher, step in zip(launchers, steps):
            if bad:
                break
            stream = streams[step.lane]
            for j in step.waits:
                bad = bad or cu.cuStreamWaitEvent(stream, start if j == START else done[j], 0)
            bad = bad or launcher.launch_on(stream.value)
            finished = event()
            bad = bad or cu.cuEventRecord(finished, stream)
            done.append(finished)
        for j in joins:
            bad = bad or cu.cuStreamWaitEvent(origin, done[j], 0)
    except CudaError as e:  # a library call that failed (its launcher raises)
        bad = e.code
    ended = cu.cuStreamEndCapture(origin, ctypes.byref(graph))
    for e in events:
        cu.cuEventDestroy_v2(e)
    bad = bad or ended
    if bad:
        if graph:
            cu.cuGraphDestroy(graph)
        raise CudaError("capturing launches into a CUDA graph", bad)
    return graph
