"""float16 through every elementwise op of the table, compiled natively and compared with numpy.

Tolerance: numpy computes an f16 op in f32 and rounds once; so does irc (the mathlib computes
half in float). Both are then within half an f16 ulp of the exact value for the correctly
rounded ops, so those must agree exactly; the transcendental ones may differ by one f16 ulp
(numpy's libm and irc's polynomials round differently near a rounding boundary). Each op runs
on f16 and f64 in one module, so per-type declarations (intrinsics, mathlib) must not clash."""
from __future__ import annotations

import numpy as np
import pytest

from irc.dialects.elementwise import TABLE_ROWS
from native_helpers import compile_text

FLOAT_ROWS = [row for row in TABLE_ROWS if "f" in row.kinds and row.result != "complex"]  # (no complex32)
ONE_ULP = {"exp", "log", "log1p", "expm1", "sin", "cos", "tanh", "sigmoid", "softplus", "pow", "erf", "erfc",
           "erfinv", "gammaln", "psi", "arctan", "arcsin", "arccos", "arctan2", "erfcx", "tri_gamma",
           # computed in float64, rounded to float, then to half (twice: an ulp at a tie)
           "j0", "j1", "jv", "i0", "i1", "iv", "chi2sf",
           # expansions (dialects/elementwise.py) computed in f32 and rounded once; deg2rad/rad2deg
           # multiply by the float32 constant, where numpy's float16 loop differs by an ulp at times
           "tan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg"}
SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, -65504.0, 6e-8]


def _operands(name: str, rng: np.random.Generator, n: int = 301) -> list[np.ndarray]:
    """Inputs in each op's interesting range, with the special values on the first operand."""
    def draw(lo, hi):
        return rng.uniform(lo, hi, n)
    if name in ("log", "sqrt"):
        xs = [draw(0.001, 100.0)]
    elif name == "log1p":
        xs = [draw(-0.999, 100.0)]
    elif name == "pow":
        xs = [draw(0.01, 4.0), draw(-4.0, 4.0)]
    elif name in ("erfinv", "arcsin", "arccos"):
        xs = [draw(-1.0, 1.0)]
    elif name in ("gammaln", "psi", "tri_gamma"):  # ulp accuracy for x > 0 (x < 0: tests/codegen_cpu/test_mathlib.py)
        xs = [draw(0.01, 8.0)]
    elif name in ("floordiv", "mod", "div"):
        xs = [draw(-50.0, 50.0), draw(0.25, 7.0) * rng.choice([-1.0, 1.0], n)]
    elif name == "select":
        xs = [rng.random(n) < 0.5, draw(-8.0, 8.0), draw(-8.0, 8.0)]
    else:
        xs = [draw(-8.0, 8.0) for _ in range(FLOAT_ROWS_BY_NAME[name].arity)]
    values = [x if x.dtype == bool else x.astype(np.float16) for x in xs]
    if values[0].dtype != bool:
        values[0][:len(SPECIALS)] = SPECIALS
    if FLOAT_ROWS_BY_NAME[name].arity >= 2 and values[1].dtype != bool:
        values[1][len(SPECIALS):2 * len(SPECIALS)] = values[0][len(SPECIALS):2 * len(SPECIALS)]  # ties
    return values


FLOAT_ROWS_BY_NAME = {row.name: row for row in FLOAT_ROWS}


def _module(name: str) -> str:
    """@f(f16 operands..., f64 operands...) -> (op on the f16 ones, op on the f64 ones)."""
    row = FLOAT_ROWS_BY_NAME[name]
    def types(t):
        return ["i1" if (name == "select" and i == 0) else t for i in range(row.arity)]
    def result(t):
        return "i1" if row.is_comparison else t
    args, lines = [], []
    for t in ("f16", "f64"):
        names = [f"%{t}_{i}" for i in range(row.arity)]
        args += [f"{v}: tensor<?x{ty}>" for v, ty in zip(names, types(t))]
        sig = ", ".join(f"tensor<?x{ty}>" for ty in types(t))
        lines.append(f"  %r_{t} = tensor.{name} {', '.join(names)} : ({sig}) -> tensor<?x{result(t)}>")
    outs = ", ".join(f"tensor<?x{result(t)}>" for t in ("f16", "f64"))
    return (f"func.func @f({', '.join(args)}) -> ({outs}) {{\n" + "\n".join(lines)
            + f"\n  func.return %r_f16, %r_f64 : {outs}\n}}")


def assert_f16_close(got: np.ndarray, want: np.ndarray, ulps: int, what: str) -> None:
    """At most `ulps` f16 ulps apart (of the smaller magnitude), same NaNs, same infinities."""
    got, want = got.astype(np.float64), want.astype(np.float64)
    assert np.array_equal(np.isnan(got), np.isnan(want)), what
    ok = ~np.isnan(want)
    inf = np.isinf(want) & ok
    assert np.array_equal(got[inf], want[inf]), what
    fin = ok & ~inf
    smaller = np.minimum(np.abs(got[fin]), np.abs(want[fin]))
    spacing = 2.0 ** (np.floor(np.log2(np.maximum(smaller, 2.0 ** -14))) - 10)  # f16 ulp; 2^-24 below normal
    err = np.abs(got[fin] - want[fin]) / spacing
    worst = int(np.argmax(err)) if err.size else 0
    assert err.size == 0 or err[worst] <= ulps, \
        f"{what}: {err[worst]:.2f} ulp at {got[fin][worst]!r} vs numpy {want[fin][worst]!r}"


@pytest.mark.parametrize("name", sorted(FLOAT_ROWS_BY_NAME))
def test_every_float_op_in_float16_matches_numpy(name):
    row = FLOAT_ROWS_BY_NAME[name]
    f16_args = _operands(name, np.random.default_rng(len(name)))
    f64_args = [a if a.dtype == bool else a.astype(np.float64) for a in f16_args]
    _, fn = compile_text(_module(name))
    got16, got64 = fn(*f16_args, *f64_args)
    with np.errstate(all="ignore"):
        want16 = np.asarray(row.reference(*f16_args))
        want64 = np.asarray(row.reference(*f64_args))
    assert got16.dtype == want16.dtype and got64.dtype == want64.dtype
    if row.is_comparison:
        np.testing.assert_array_equal(got16, want16)
    else:
        assert_f16_close(got16, want16, 1 if name in ONE_ULP else 0, f"{name} on float16")
        np.testing.assert_allclose(got64, want64, rtol=1e-12, atol=1e-300, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_floordiv_and_mod_are_numpys(dtype):
    """numpy's divmod, not floor(x / y): 1 // 0.1 is 9 (0.1 is a bit above 1/10), an infinite
    x gives NaN, a tiny x over a negative y gives -1, a zero remainder takes y's sign."""
    t = {"float16": "f16", "float32": "f32", "float64": "f64"}[dtype]
    text = f"""
func.func @f(%x: tensor<?x{t}>, %y: tensor<?x{t}>) -> (tensor<?x{t}>, tensor<?x{t}>) {{
  %q = tensor.floordiv %x, %y : tensor<?x{t}>
  %r = tensor.mod %x, %y : tensor<?x{t}>
  func.return %q, %r : tensor<?x{t}>, tensor<?x{t}>
}}"""
    x = np.array([1.0, 1.0, np.inf, -np.inf, 1e-4, -1e-4, 4.0, -4.0, 3.0, 7.5, -7.5, 0.0, np.nan, 5.0, -5.0],
                 dtype)
    y = np.array([0.1, 0.2, 3.0, 3.0, -3.0, 3.0, -2.0, 2.0, 0.0, np.inf, np.inf, -1.0, 1.0, -np.inf, 0.0],
                 dtype)
    _, fn = compile_text(text)
    q, r = fn(x, y)
    with np.errstate(all="ignore"):
        want_q, want_r = np.floor_divide(x, y), np.mod(x, y)
    np.testing.assert_array_equal(q, want_q)
    np.testing.assert_array_equal(r, want_r)
    assert np.array_equal(np.signbit(q), np.signbit(want_q)) and np.array_equal(np.signbit(r), np.signbit(want_r))


def test_half_and_double_in_one_fused_function():
    """The issue's case: abs, floor and minimum on float16 next to the same op on float64
    (one fused loop, so one LLVM module holds both types' intrinsics)."""
    import irc
    import irc.tensor as T
    h, d = T.vector("h", dtype="float16"), T.dvector("d")
    f = irc.function([h, d], [abs(h) + abs(d), T.floor(h) + T.floor(d), T.minimum(h, h * 2) + T.minimum(d, d * 2)])
    hv = np.linspace(-3.3, 3.3, 101).astype(np.float16)
    dv = np.linspace(5.1, -5.1, 101)
    want = [np.abs(hv) + np.abs(dv), np.floor(hv) + np.floor(dv), np.minimum(hv, hv * 2) + np.minimum(dv, dv * 2)]
    for got, w in zip(f(hv, dv), want):
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, w)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_float16_sums_accumulate_in_float32(axis):
    """An f16 accumulator stalls at 2048 + 2 (10,000 ones gave 9992); irc accumulates sums and
    products in f32 and rounds once, like numpy's contiguous sum and Theano's acc_dtype. The
    reference is the float64 result rounded to float16 (exact here), since numpy itself keeps
    an f16 accumulator for a sum over a non-innermost axis."""
    import irc
    import irc.tensor as T
    m = T.matrix("m", dtype="float16")
    f = irc.function([m], [T.sum(m, axis=axis), T.sum(m * 2, axis=axis), T.prod(m, axis=axis)])
    a = np.ones((10000, 3), np.float16) if axis != 1 else np.ones((3, 10000), np.float16)
    a[::2] *= -1  # the product stays finite: +-1
    big = np.abs(a)
    s, s2, p = f(big)
    assert s.dtype == s2.dtype == np.float16
    np.testing.assert_array_equal(s, big.astype(np.float64).sum(axis=axis).astype(np.float16))
    np.testing.assert_array_equal(s2, (2 * big.astype(np.float64)).sum(axis=axis).astype(np.float16))
    np.testing.assert_array_equal(f(a)[2], a.astype(np.float64).prod(axis=axis).astype(np.float16))
    if axis is None:
        assert float(s) == 30000.0 and float(p) == 1.0
