"""scan under device=cuda: the step's ops run as device kernels launched by the host plan, one
row of each result per step (no host fallback). Checked with the kernel emulator against numpy.
Tolerances: float32 rtol 1e-5 (float64 numpy references)."""
from __future__ import annotations

import numpy as np

import irc
import irc.tensor as T
from test_cuda_path_emulated import cuda_emulated, rand  # noqa: F401  (the fixture)


def no_host_ops():
    return irc.config.change_flags(assert_no_cpu_op="raise")


def test_an_elementwise_recurrence_runs_on_the_device(cuda_emulated):
    x, h0 = T.fmatrix("x"), T.fvector("h0")
    hs, _ = irc.scan(lambda xt, h: T.tanh(xt + 0.5 * h), sequences=x, outputs_info=h0)
    with no_host_ops():
        f = irc.function([x, h0], hs)
    xv, hv = rand(7, 5, seed=1), rand(5, seed=2)
    out = f(xv, hv)
    h, want = hv.astype("float64"), []
    for t in range(7):
        h = np.tanh(xv[t] + 0.5 * h)
        want.append(h)
    np.testing.assert_allclose(out, np.array(want), rtol=1e-5, atol=1e-6)
