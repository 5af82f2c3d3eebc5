"""f64 -> f16 rounds correctly on processors without a native conversion (AMD Zen, older Intel):
LLVM calls `__truncdfhf2` there, which `codegen_cpu/libcalls.py` defines (an unresolved call
would kill the process). numpy's `astype(float16)` rounds correctly: it is the reference, bit
for bit, on halfway cases, their neighbours, subnormals, overflow, infinities and NaN."""
from __future__ import annotations

import numpy as np

from native_helpers import compile_text

CAST = """func.func @f(%x: tensor<?xf64>) -> tensor<?xf16> {
  %r = tensor.cast %x : (tensor<?xf64>) -> tensor<?xf16>
  func.return %r : tensor<?xf16>
}"""


def _hard_doubles() -> np.ndarray:
    halves = np.arange(0, 0x7C01, dtype=np.uint16).view(np.float16).astype(np.float64)
    steps = np.diff(halves)
    mid = halves[:-1] + steps / 2                      # exactly halfway: ties to even
    near = np.concatenate([np.nextafter(mid, 0), np.nextafter(mid, np.inf), mid])
    rng = np.random.default_rng(7)
    random = rng.uniform(-70000.0, 70000.0, 20000) * 2.0 ** rng.integers(-30, 1, 20000)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, 65519.99, 65520.0, 1e300,
                        2.0 ** -25, np.nextafter(2.0 ** -25, 1), 2.0 ** -26, 5e-324])
    values = np.concatenate([halves, near, random, special])
    return np.concatenate([values, -values])


def test_f64_to_f16_rounds_like_numpy():
    x = _hard_doubles()
    _, fn = compile_text(CAST)
    (got,) = fn(x)
    with np.errstate(over="ignore"):
        want = x.astype(np.float16)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    bad = np.flatnonzero(got[ok].view(np.uint16) != want[ok].view(np.uint16))
    assert bad.size == 0, f"{bad.size} values differ, e.g. {x[ok][bad[:3]]!r} -> {got[ok][bad[:3]]!r}"


def test_f16_fma_is_rounded_once():
    """fma of halves is computed in f64 and rounded to half through the same libcall."""
    rng = np.random.default_rng(3)
    a, b, c = (rng.uniform(-8, 8, 4096).astype(np.float16) for _ in range(3))
    _, fn = compile_text("""func.func @f(%a: tensor<?xf16>, %b: tensor<?xf16>, %c: tensor<?xf16>) -> tensor<?xf16> {
  %r = tensor.fma %a, %b, %c : (tensor<?xf16>, tensor<?xf16>, tensor<?xf16>) -> tensor<?xf16>
  func.return %r : tensor<?xf16>
}""")
    want = (a.astype(np.float64) * b + c).astype(np.float16)  # exact in f64 for these inputs
    (got,) = fn(a, b, c)
    assert np.array_equal(got.view(np.uint16), want.view(np.uint16))
