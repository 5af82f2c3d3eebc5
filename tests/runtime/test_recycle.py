"""`recycle.Recent`: a result is handed out again only once nothing but the factory holds it
or its allocation (the CUDA executor's buffer recycling, checked without a GPU)."""
from __future__ import annotations

from irc.runtime.cuda.recycle import Recent


class Allocation:
    pass


class Array:
    def __init__(self) -> None:
        self.gpudata = Allocation()


def test_a_dropped_result_comes_back():
    recent = Recent(Array)
    a = recent.take()
    first = id(a)
    del a
    assert id(recent.take()) == first


def test_held_results_are_never_handed_out():
    recent = Recent(Array, size=3)
    held = [recent.take() for _ in range(5)]
    assert len({id(h) for h in held}) == 5
    assert len(recent.items) == 3  # the oldest are forgotten, not reused


def test_a_held_allocation_or_view_keeps_its_result():
    recent = Recent(Array)
    a = recent.take()
    data = a.gpudata
    del a
    b = recent.take()
    assert b.gpudata is not data  # the user still holds the allocation
    view = {"base": b}
    del b
    assert recent.take() is not view["base"]  # held through another object


def test_loop_alternates_between_two_buffers():
    recent = Recent(Array)
    seen = set()
    r = None
    for _ in range(20):
        r = recent.take()  # the previous `r` is alive while the next one is made
        seen.add(id(r.gpudata))
    assert len(seen) == 2


def test_release_forgets():
    recent = Recent(Array)
    a = recent.take()
    recent.release()
    del a
    assert recent.items == [] and recent.take() is recent.items[0]
