"""Timing a launch the way irc runs a step: many calls captured in one CUDA graph (torch's),
the graph replayed, µs per call from CUDA events (the probes of cuBLAS and of hand-written
products share it)."""
from __future__ import annotations

from typing import Callable

import torch


def graph_us(launch: Callable[[int], None], calls: int = 20, replays: int = 9) -> float:
    """µs per call of `launch(stream_handle)`, `calls` of them captured in one CUDA graph,
    median of `replays` replays (two warm-up calls on a side stream first)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            launch(s.cuda_stream)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            launch(torch.cuda.current_stream().cuda_stream)
    g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(replays):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1000 / calls)
    return sorted(times)[replays // 2]
