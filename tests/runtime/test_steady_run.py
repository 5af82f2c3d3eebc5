"""`cuda.steady.SteadyRun` without a GPU: a fresh buffer that cannot be had sends the call to
the general path (which reports it) and leaves no buffer pinned in the run."""
from __future__ import annotations

import importlib
import sys
import types

import pytest


@pytest.fixture
def steady(monkeypatch):
    """The steady module, over a stand-in for pycuda.driver where PyCUDA is missing."""
    try:
        import pycuda.driver as drv
    except ImportError:
        drv = types.ModuleType("pycuda.driver")
        drv.MemoryError = type("MemoryError", (Exception,), {})
        pycuda = types.ModuleType("pycuda")
        pycuda.driver = drv
        monkeypatch.setitem(sys.modules, "pycuda", pycuda)
        monkeypatch.setitem(sys.modules, "pycuda.driver", drv)
        sys.modules.pop("irc.runtime.cuda.steady", None)
        yield importlib.import_module("irc.runtime.cuda.steady"), drv
        sys.modules.pop("irc.runtime.cuda.steady", None)  # it holds the stand-in
        return
    yield importlib.import_module("irc.runtime.cuda.steady"), drv


class Buffer:
    address = 0x1000


def plan(launched: list):
    graphs = types.SimpleNamespace(execs={(0x1000, 0x1000, 0x1000): "graph"}, stream=None,
                                   launch_graph=lambda graph, stream: launched.append(graph) or 0)
    return types.SimpleNamespace(result_slots=[1, 2], graphs=graphs)


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
