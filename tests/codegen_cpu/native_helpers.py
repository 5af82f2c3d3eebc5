"""Helpers for the native CPU tests: compile a tensor-level function, run it on numpy arrays and
compare with the reference semantics (`tensor_eval` through the reference executor)."""
from __future__ import annotations

import numpy as np

from irc.dialects import load_all

load_all()


def reference(module, args):
    from irc.dialects.func import FuncOp
    from irc.runtime.reference import ReferenceExecutor
    func = next(op for op in module.body.ops if isinstance(op, FuncOp))
    return ReferenceExecutor(func).run([np.ascontiguousarray(a) if isinstance(a, np.ndarray) else a
                                        for a in args])


def compile_text(text: str):
    from irc.ir.parser import parse_module
    from irc.runtime.native import compile_cpu
    module = parse_module(text)
    return module, compile_cpu(module)


def check(text: str, *args, rtol: float | None = None, atol: float = 0.0):
    """Compile `text`, run it on `args`, compare every result with the reference."""
    module, fn = compile_text(text)
    got = fn(*args)
    want = reference(module, args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        w = np.asarray(w)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        assert g.shape == w.shape, (g.shape, w.shape)
        if g.dtype.kind == "f":
            tol = rtol if rtol is not None else (2e-6 if g.dtype == np.float32 else 1e-12)
            np.testing.assert_allclose(g, w, rtol=tol, atol=atol, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)
    return got


def rand(*shape, dtype="float32", seed=0, low=-2.0, high=2.0):
    rng = np.random.default_rng(seed + len(shape))
    return rng.uniform(low, high, shape).astype(dtype)
