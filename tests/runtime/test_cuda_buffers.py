"""The CUDA runtime's buffer handling without a GPU (over stand-ins for PyCUDA where it is
missing): `SteadyRun` sends a call whose fresh buffer cannot be had to the general path (which
reports it) and keeps no buffer pinned; a dropped `ArrayFactory` is freed without the cyclic GC."""
from __future__ import annotations

import gc
import importlib
import sys
import types
import weakref

import numpy as np
import pytest

MODULES = ("irc.runtime.cuda.steady", "irc.runtime.cuda.device_array")


class StandInArray:
    """What `device_array` uses of PyCUDA's GPUArray."""

    def __init__(self, shape, dtype, allocator=None):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        self.nbytes = int(np.prod(self.shape)) * self.dtype.itemsize
        self.gpudata = allocator(self.nbytes)


def stand_in_pycuda(monkeypatch) -> None:
    driver = types.ModuleType("pycuda.driver")
    driver.MemoryError = type("MemoryError", (Exception,), {})
    gpuarray = types.ModuleType("pycuda.gpuarray")
    gpuarray.GPUArray = StandInArray
    pycuda = types.ModuleType("pycuda")
    pycuda.driver, pycuda.gpuarray = driver, gpuarray
    for name, module in (("pycuda", pycuda), ("pycuda.driver", driver), ("pycuda.gpuarray", gpuarray)):
        monkeypatch.setitem(sys.modules, name, module)


@pytest.fixture
def cuda(monkeypatch):
    """(module name -> module, pycuda.driver); the modules are imported again after the test
    where they were imported over the stand-ins."""
    try:
        import pycuda.driver  # noqa: F401
        stand_in = False
    except ImportError:
        stand_in_pycuda(monkeypatch)
        stand_in = True
        for name in MODULES:
            sys.modules.pop(name, None)
    yield {name: importlib.import_module(name) for name in MODULES}, sys.modules["pycuda.driver"]
    if stand_in:
        for name in MODULES:
            sys.modules.pop(name, None)


@pytest.fixture
def steady(cuda):
    return cuda[0]["irc.runtime.cuda.steady"], cuda[1]


class Buffer:
    address = 0x1000


def plan(launched: list):
    graphs = types.SimpleNamespace(execs={(0x1000, 0x1000, 0x1000): "graph"}, stream=None,
                                   launch_graph=lambda graph, stream: launched.append(graph) or 0)
    return types.SimpleNamespace(result_slots=[1, 2], graphs=graphs, staged=None)


def test_out_of_memory_takes_the_general_path_and_holds_nothing(steady):
    module, drv = steady
    launched: list = []

    def fail():
        raise drv.MemoryError("out of memory")

    run = module.SteadyRun(plan(launched), [Buffer(), None, None], [None, Buffer, fail])
    assert run.run() is None
    assert run.bufs[1:] == [None, None] and not launched


def test_a_replay_hands_out_its_fresh_buffers_and_keeps_none(steady):
    module, _ = steady
    launched: list = []
    run = module.SteadyRun(plan(launched), [Buffer(), None, None], [None, Buffer, Buffer])
    results = run.run()
    assert [type(r) for r in results] == [Buffer, Buffer] and launched == ["graph"]
    assert run.bufs[1:] == [None, None]


class Allocation:
    pass


def test_a_dropped_factory_is_freed_without_the_cyclic_gc(cuda, monkeypatch):
    module = cuda[0]["irc.runtime.cuda.device_array"]
    if sys.modules["pycuda.gpuarray"].GPUArray is not StandInArray:
        pytest.skip("checked over the stand-ins (a GPU run holds a real pool)")
    pool = types.SimpleNamespace(allocate=lambda nbytes: Allocation())
    monkeypatch.setattr(module, "device", lambda: types.SimpleNamespace(pool=pool))
    factory = module.ArrayFactory((2, 3), np.float32)
    first = factory.take()
    assert first.shape == (2, 3) and isinstance(first.gpudata, Allocation)
    alive = weakref.ref(factory)
    gc.disable()
    try:
        del factory
        assert alive() is None, "ArrayFactory is part of a reference cycle"
    finally:
        gc.enable()
