"""`ifelse` under device=cuda inside one device function: the condition is computed on the
device, the host side reads it back (`gpu.read_flag`) and launches the taken branch only (a
plan per path, or both branches kept in one plan for a CUDA graph's conditional nodes:
`host_plan.Branch`); a host argument that only a branch reads is uploaded by that branch
(`gpu.upload`), so the untaken branch's inputs never cross. Run by the kernel emulator with no
host op, against numpy (float32: rtol 1e-6; float64: exact)."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.dialects import gpu as G
from irc.ifelse import ifelse
from irc.runtime import host_plan
from test_cuda_path_emulated import cuda_emulated, rand  # noqa: F401  (the fixture)


def no_host_ops():
    return irc.config.change_flags(assert_no_cpu_op="raise")


def host_function(module):
    return next(op for op in module.body.ops if op.op_name == "func.func")


def test_the_tutorials_lazy_ifelse_uploads_only_the_taken_branchs_matrix(cuda_emulated):
    """The conditions page: the mean of one of two host matrices. Each path's plan copies one
    matrix (the one its branch reads) and no other argument crosses in a branch."""
    a, b = T.fscalars("a", "b")
    x, y = T.fmatrices("x", "y")
    with no_host_ops():
        f = irc.function([a, b, x, y], ifelse(T.lt(a, b), T.mean(x), T.mean(y) * 2))
    xv, yv = rand(30, 4, seed=1, low=0, high=1), rand(30, 4, seed=2, low=0, high=1)
    np.testing.assert_allclose(f(np.float32(0), np.float32(1), xv, yv), xv.mean(), rtol=1e-6)
    np.testing.assert_allclose(f(np.float32(1), np.float32(0), xv, yv), 2 * yv.mean(), rtol=1e-6)
    host = host_function(cuda_emulated[-1])
    assert [str(host.arg_attrs(k).get("irc.transfer")) for k in range(4)] == \
        ['"upload"', '"upload"', '"in-branch"', '"in-branch"']
    shapes, dtypes = [(), (), (30, 4), (30, 4)], [np.dtype("float32")] * 4
    for stops, arg in (((), 3), ((0,), 2)):  # flag false: the else branch reads y (argument 3)
        plan = host_plan.record_plan(host, shapes, dtypes, stops=stops)
        uploads = [launch.src.slot for launch in plan.launches if isinstance(launch, host_plan.Upload)]
        assert uploads == [arg]
        assert len(plan.readbacks) == 1


def test_branches_with_sizes_of_their_own_and_several_results(cuda_emulated):
    """The then-branch gives a longer vector than the else-branch; the result's size is read
    from the branch's buffer when the plan follows the path."""
    x = T.dvector("x")
    c = T.lscalar("c")
    with no_host_ops():
        f = irc.function([c, x], [*ifelse(T.gt(c, 0), [T.concatenate([x, x]), x.sum()], [x[1:] * 3, x.max()]),
                                  x.min()])  # (x is read outside the branches: uploaded with the call)
    xv = np.arange(5.0)
    long, s, _ = f(1, xv)
    np.testing.assert_array_equal(long, np.concatenate([xv, xv]))
    assert float(s) == xv.sum()
    short, m, _ = f(0, xv)
    np.testing.assert_array_equal(short, xv[1:] * 3)
    assert float(m) == xv.max()
    host = host_function(cuda_emulated[-1])  # no single graph: the plan reads the flag back
    with pytest.raises(host_plan.NotBranchable, match="differ in size"):
        host_plan.record_plan(host, [(), (5,)], [np.dtype("int64"), np.dtype("float64")], branches=True)


def test_an_ifelse_inside_a_scan_step_runs_on_the_device(cuda_emulated):
    """Each step reads its own condition back: h_t = h*2 when x_t > 0, else h - 1."""
    x = T.dvector("x")
    h0 = T.dvector("h0")
    hs, _ = irc.scan(lambda xt, h: ifelse(T.gt(xt, 0), h * 2, h - 1), sequences=x, outputs_info=h0)
    with no_host_ops():
        f = irc.function([x, h0], hs)
    xv, hv = np.array([1.0, -1.0, -2.0, 3.0]), np.array([1.0, 0.5])
    h, want = hv, []
    for xt in xv:
        h = h * 2 if xt > 0 else h - 1
        want.append(h)
    np.testing.assert_array_equal(f(xv, hv), want)
    host = host_function(cuda_emulated[-1])  # (the first step is peeled: two step loops)
    flags = [op for op in host.walk() if isinstance(op, G.ReadFlagOp)]
    assert flags and all(op.parent_op.op_name == "loop.for" for op in flags)
    # kept whole: one Branch per step, whose else-branch writes the then-branch's buffer
    plan = host_plan.record_plan(host, [(4,), (2,)], [np.dtype("float64")] * 2, branches=True)
    branches = [x for x in plan.launches if isinstance(x, host_plan.Branch)]
    assert len(branches) == 4 and not plan.readbacks
    for b in branches:
        written = {v.slot for x in b.then for v in x.args if isinstance(v, host_plan.View)}
        assert written & {v.slot for x in b.otherwise for v in x.args if isinstance(v, host_plan.View)}
