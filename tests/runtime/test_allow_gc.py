"""`config.allow_gc=False` reaches the native build: temporaries live in a workspace kept
between calls (no per-call allocation or free of them), and results stay right."""
import numpy as np

import irc
import irc.tensor as T


def _build():
    x = T.dmatrix("x")
    w = T.dvector("w")
    return irc.function([x, w], T.tanh(T.dot(x, w)).sum() + T.exp(x).sum())


def test_allow_gc_false_keeps_temporaries_in_a_workspace():
    with irc.config.change_flags(allow_gc=False):
        f = _build()
    loop = f.ir("loop")
    assert "irc.workspace" in loop and "loop.dealloc" not in loop
    # the sums' partials, allocated in the branch that reduces in parts, are kept too
    assert all("irc.workspace" in ln for ln in loop.splitlines() if "%partial" in ln and "loop.alloc" in ln)
    rng = np.random.default_rng(0)
    for n in (5, 300, 40000, 17):  # the workspace grows and shrinks across calls (40000x4: in parts)
        x, w = rng.standard_normal((n, 4)), rng.standard_normal(4)
        np.testing.assert_allclose(f(x, w), np.tanh(x @ w).sum() + np.exp(x).sum(), rtol=1e-10)


def test_allow_gc_true_frees_temporaries():
    f = _build()
    assert "irc.workspace" not in f.ir("loop")
