"""A parallel nest that allocates a buffer per iteration (a convolution's cols per image, a
product's panels) is outlined for the thread pool like any other (`outline_parallel.outlinable`):
it runs on every thread, as a kernel compiled at O2, and gives the bits of one thread. A nest
whose buffers live in the function's workspace (`allow_gc=False`: one buffer for all threads)
or that holds a check (which returns from the function) stays on the calling thread."""
from __future__ import annotations

import numpy as np

import irc
import irc.tensor as T
from irc.codegen_cpu.outline_parallel import outlinable
from irc.ir.attributes import IntegerAttr
from irc.ir.parser import parse_module
from irc.runtime import threads
from irc.tensor.nnet import conv2d


def _top_level_parallels(loop_text: str):
    module = parse_module(loop_text)
    func = module.body.ops[0]
    return [op for op in func.body.ops if op.op_name == "loop.parallel"]


def _allocating(op) -> list:
    return [inner for inner in op.walk() if inner is not op and inner.op_name == "loop.alloc"]


def _conv(allow_gc: bool):
    x, w = T.tensor4("x"), T.tensor4("w")
    with irc.config.change_flags(allow_gc=allow_gc):
        return irc.function([x, w], conv2d(x, w, input_shape=(9, 3, 12, 11), filter_shape=(4, 3, 3, 3)))


def test_a_nest_allocating_per_iteration_is_outlined_and_threads_agree():
    f = _conv(allow_gc=True)
    nests = [op for op in _top_level_parallels(f.ir("loop")) if _allocating(op)]
    assert nests and all(outlinable(op) for op in nests)
    rng = np.random.RandomState(0)
    x, w = rng.rand(9, 3, 12, 11), rng.rand(4, 3, 3, 3)
    before = threads.num_threads()
    try:
        threads.set_num_threads(1)
        one = f(x, w)
        threads.set_num_threads(2)
        two = f(x, w)
    finally:
        threads.set_num_threads(before)
    np.testing.assert_array_equal(one, two)
    want = np.zeros((9, 4, 10, 9))
    for a in range(3):
        for b in range(3):  # a convolution: the filter flipped
            want += np.einsum("nchw,fc->nfhw", x[:, :, a:a + 10, b:b + 9], w[:, :, 2 - a, 2 - b])
    np.testing.assert_allclose(one, want, rtol=1e-12)


def test_nests_with_workspace_buffers_or_checks_stay_on_the_calling_thread():
    f = _conv(allow_gc=False)  # the workspace holds the top-level buffers, not an iteration's
    nests = [op for op in _top_level_parallels(f.ir("loop")) if _allocating(op)]
    assert nests and all(outlinable(op) for op in nests)
    alloc = _allocating(nests[0])[0]
    alloc.attributes["irc.workspace"] = IntegerAttr(0)  # were it one buffer for all threads
    assert not outlinable(nests[0])
    v = T.vector("v")
    g = irc.function([v], T.exp(v) + v[3])
    for op in _top_level_parallels(g.ir("loop")):
        assert outlinable(op) == (not any(i.op_name in ("loop.assert_eq", "loop.check_index")
                                          for i in op.walk() if i is not op))
