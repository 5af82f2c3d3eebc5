"""complex64 and complex128 tensors: Theano's constructors, numpy's promotion, constants and
shared variables, and every elementwise op with a complex meaning compiled natively and
checked against numpy (complex64 to rtol 1e-5, complex128 to 1e-12, relative to |z|)."""
from __future__ import annotations

import functools

import numpy as np
import pytest

import irc
import irc.tensor as T

RNG = np.random.default_rng(22)
RTOL = {"complex64": 1e-5, "complex128": 1e-12}
DTYPES = ("complex64", "complex128")


def _values(dtype: str, n: int = 64, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    return (RNG.uniform(low, high, n) + 1j * RNG.uniform(low, high, n)).astype(dtype)


def _close(got: np.ndarray, want: np.ndarray, rtol: float) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    scale = np.maximum(np.abs(want), 1.0)
    err = np.abs(got - want) / scale
    assert np.all(err <= rtol), f"max relative error {err.max():.3g} > {rtol}"


# ---------------------------------------------------------------------------- types
def test_constructors_name_theanos_complex_types():
    assert T.cscalar.dtype == "complex64" and T.zscalar.dtype == "complex128"
    assert T.ctensor3().type == T.TensorType("complex64", (False,) * 3)
    assert T.zmatrix().broadcastable == (False, False)
    a, b = T.zvectors("a", "b")
    assert (a.name, b.name, a.dtype) == ("a", "b", "complex128")
    assert len(T.ctensor4s(3)) == 3
    assert str(T.cmatrix) == "TensorType(complex64, matrix)"


@pytest.mark.parametrize("left, right, result", [
    ("float32", "complex64", "complex64"), ("float64", "complex64", "complex128"),
    ("float16", "complex64", "complex64"), ("int8", "complex64", "complex64"),
    ("int16", "complex64", "complex64"), ("int32", "complex64", "complex128"),
    ("int64", "complex64", "complex128"), ("uint8", "complex64", "complex64"),
    ("bool", "complex64", "complex64"), ("complex64", "complex128", "complex128"),
    ("float32", "complex128", "complex128"), ("int32", "complex128", "complex128"),
])
def test_promotion_is_numpys(left, right, result):
    x, y = T.vector(dtype=left), T.vector(dtype=right)
    assert (x + y).dtype == (y * x).dtype == result == np.result_type(left, right).name


def test_python_numbers_and_complex_constants():
    c, z = T.cvector(), T.zvector()
    assert (c * 2.5).dtype == "complex64" and (c + 1).dtype == "complex64"
    assert (T.fvector() * 1j).dtype == "complex128"  # a Python complex is a complex128 constant (Theano)
    assert T.constant(1 + 2j).dtype == "complex128"
    f = irc.function([c, z], [c * (1 + 2j) + 3, z / 2j])
    a, b = _values("complex64", 5), _values("complex128", 5)
    got = f(a, b)
    _close(got[0], a.astype("complex128") * (1 + 2j) + 3, 1e-15)  # complex128: the constant is
    _close(got[1], b / 2j, 1e-15)


def test_division_of_integers_by_complex():
    i, c = T.iscalar(), T.cscalar()
    assert np.allclose(irc.function([i, c], i / c)(5, np.complex64(5 + 3j)), 5 / (5 + 3j))
    assert np.allclose(irc.function([i, c], c / i)(5, np.complex64(5 + 3j)), (5 + 3j) / 5)


def test_arrays_pass_in_and_out_with_numpys_layout():
    z = T.zmatrix()
    a = _values("complex128", 12).reshape(3, 4)
    out = irc.function([z], z.T)(a)
    np.testing.assert_array_equal(out, a.T)
    strided = _values("complex128", 40).reshape(5, 8)[::2, 1::3]
    np.testing.assert_array_equal(irc.function([z], z * 1)(strided), strided)


def test_shared_variables_keep_their_complex_values():
    a = _values("complex64", 3)
    s = irc.shared(a.copy())
    assert s.dtype == "complex64"
    f = irc.function([], s, updates=[(s, s * np.complex64(1j))])
    np.testing.assert_array_equal(f(), a)
    _close(s.get_value(), (a * 1j).astype("complex64"), 1e-7)


# ---------------------------------------------------------------------------- elementwise
UNARY = {
    "neg": np.negative, "exp": np.exp, "log": np.log, "log1p": np.log1p, "expm1": np.expm1,
    "sqrt": np.sqrt, "sqr": np.square, "inv": np.reciprocal, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "arcsin": np.arcsin, "arccos": np.arccos,
    "arctan": np.arctan, "arcsinh": np.arcsinh, "arccosh": np.arccosh, "arctanh": np.arctanh,
    "abs_": np.abs, "real": np.real, "imag": np.imag, "conj": np.conj, "angle": np.angle,
    "log2": np.log2, "log10": np.log10,
}
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "true_div": np.true_divide, "pow": np.power,
          "maximum": np.maximum, "minimum": np.minimum}


@functools.lru_cache(maxsize=None)
def every_op(dtype: str, arity: int):
    """One function per dtype computing every unary (or binary) op of its vector inputs, called
    `f(*arrays) -> {name: result}`: the cases below share its compile (one fused loop; a
    function per op took twice the CPU)."""
    ops = UNARY if arity == 1 else BINARY
    xs = [T.vector(dtype=dtype) for _ in range(arity)]
    f = irc.function(xs, [getattr(T, name)(*xs) for name in sorted(ops)])
    return lambda *arrays: dict(zip(sorted(ops), f(*arrays)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_against_numpy(name, dtype):
    a = _values(dtype)
    _close(every_op(dtype, 1)(a)[name], UNARY[name](a), 40 * RTOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_against_numpy(name, dtype):
    a, b = _values(dtype), _values(dtype)
    _close(every_op(dtype, 2)(a, b)[name], BINARY[name](a, b), 10 * RTOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_arithmetic_is_exact_to_the_tolerance(dtype):
    x, y = T.vector(dtype=dtype), T.vector(dtype=dtype)
    a, b = _values(dtype), _values(dtype)
    got = irc.function([x, y], [x + y, x - y, x * y, x / y, -x, x * x])(a, b)
    for g, w in zip(got, [a + b, a - b, a * b, a / b, -a, a * a]):
        _close(g, w, RTOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_equality_and_select(dtype):
    x, y = T.vector(dtype=dtype), T.vector(dtype=dtype)
    a = _values(dtype, 6)
    b = a.copy()
    b[::2] += 1j
    eq, ne, sel = irc.function([x, y], [T.eq(x, y), T.neq(x, y), T.switch(T.eq(x, y), x, y * 2)])(a, b)
    np.testing.assert_array_equal(eq, a == b)
    np.testing.assert_array_equal(ne, a != b)
    np.testing.assert_array_equal(sel, np.where(a == b, a, b * 2))


@pytest.mark.parametrize("dtype", DTYPES)
def test_building_complex_numbers(dtype):
    part = "float32" if dtype == "complex64" else "float64"
    r, t = T.vector(dtype=part), T.vector(dtype=part)
    a, b = RNG.uniform(0, 3, 9).astype(part), RNG.uniform(-3, 3, 9).astype(part)
    c, p = irc.function([r, t], [T.complex(r, t), T.complex_from_polar(r, t)])(a, b)
    np.testing.assert_array_equal(c, (a + 1j * b).astype(dtype))
    _close(p, (a * np.exp(1j * b)).astype(dtype), 10 * RTOL[dtype])


def test_real_imag_conj_methods_and_on_real_tensors():
    x, y = T.dmatrices("x", "y")
    z = x + y * 1j
    a, b = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3))
    np.testing.assert_array_equal(z.real.eval({z: a + b * 1j}), a)
    np.testing.assert_array_equal(z.imag.eval({z: a + b * 1j}), b)
    np.testing.assert_array_equal(z.conj().eval({z: a + b * 1j}), a - b * 1j)
    np.testing.assert_array_equal(z.conjugate().eval({z: a + b * 1j}), a - b * 1j)
    real, imag, conj, angle = irc.function([x], [T.real(x), T.imag(x), T.conj(x), T.angle(x)])(a)
    np.testing.assert_array_equal(real, a)
    np.testing.assert_array_equal(imag, np.zeros_like(a))
    np.testing.assert_array_equal(conj, a)
    np.testing.assert_array_equal(angle, np.angle(a))


SPECIAL = np.array([complex(np.inf, 0), complex(-np.inf, 0), complex(0, np.inf), complex(np.nan, 0),
                    complex(0, np.nan), 0j, complex(-0.0, 0.0), complex(1e300, 1e300), complex(1e-300, 1e-300),
                    complex(-4, 0), complex(-4, -0.0)])


@pytest.mark.parametrize("name", ["abs_", "sqrt", "exp", "neg", "conj", "real", "imag"])
def test_special_values_as_numpy(name):
    z = T.zvector()
    values = SPECIAL if name != "exp" else SPECIAL[np.abs(SPECIAL.imag) < 1e10]  # (cos/sin of 1e300: no)
    with np.errstate(all="ignore"):
        want = UNARY[name](values)
    got = irc.function([z], getattr(T, name)(z))(values)
    np.testing.assert_array_equal(got, want)


def test_modulus_neither_overflows_nor_underflows():
    z = T.zvector()
    a = np.array([complex(3e300, 4e300), complex(3e-300, 4e-300), complex(np.inf, np.nan)])
    np.testing.assert_allclose(irc.function([z], abs(z))(a)[:2], [5e300, 5e-300], rtol=1e-15)
    assert irc.function([z], abs(z))(a)[2] == np.inf


def test_division_by_zero_and_with_large_divisors():
    x, y = T.zvectors("x", "y")
    a = np.array([1 + 1j, 1 + 1j, 1e300 + 1e300j, 0j])
    b = np.array([0j, 1e-300 + 1e300j, 1e300 + 1e300j, 2 + 0j])
    with np.errstate(all="ignore"):
        want = a / b
    np.testing.assert_allclose(irc.function([x, y], x / y)(a, b), want, rtol=1e-15)


# ---------------------------------------------------------------------------- casts
@pytest.mark.parametrize("source", ["int8", "int32", "float32", "float64", "bool", "complex64", "complex128"])
@pytest.mark.parametrize("target", DTYPES)
def test_casts_to_complex(source, target):
    x = T.vector(dtype=source)
    a = (RNG.normal(size=5) * 3).astype(source) if source != "bool" else np.array([True, False, True, True, False])
    out = irc.function([x], T.cast(x, target))(a)
    np.testing.assert_array_equal(out, a.astype(target))


def test_cast_from_complex_to_real_is_refused():
    with pytest.raises(TypeError, match="cast to float32: not defined for complex.*T.real"):
        T.cast(T.cvector(), "float32")


# ---------------------------------------------------------------------------- refused ops
@pytest.mark.parametrize("build", [
    lambda z: T.ceil(z), lambda z: T.floor(z), lambda z: z % 2, lambda z: z // 2, lambda z: T.erf(z),
    lambda z: T.sgn(z), lambda z: T.clip(z, 0, 1), lambda z: T.max(z), lambda z: T.argmax(z), lambda z: T.sort(z),
    lambda z: T.nnet.sigmoid(z), lambda z: T.arctan2(z, z),
], ids=["ceil", "floor", "mod", "floordiv", "erf", "sgn", "clip", "max", "argmax", "sort", "sigmoid", "arctan2"])
def test_ops_without_a_complex_meaning_refuse_it(build):
    with pytest.raises(TypeError) as info:
        build(T.zvector())
    assert "complex" in str(info.value) and "test_complex_dtypes.py" in str(info.value)


# ---------------------------------------------------------------------------- orderings
@pytest.mark.parametrize("dtype", DTYPES)
def test_orderings_are_numpys_lexicographic_ones(dtype):
    x, y = T.vector(dtype=dtype), T.vector(dtype=dtype)
    a = np.array([0, 1, -1, 1 + 1j, 1 + 1j, 1 + 1j, complex(1, np.nan), complex(np.nan, 0), 2], dtype)
    b = np.array([0, 1.0001, -2, 1 + 2j, 1 + 0j, 1 + 1j, 0, 1, complex(2, np.nan)], dtype)
    got = irc.function([x, y], [x < y, x <= y, x > y, x >= y])(a, b)
    with np.errstate(invalid="ignore"):
        for g, w in zip(got, [a < b, a <= b, a > b, a >= b]):
            np.testing.assert_array_equal(g, w)


def test_isclose_isnan_isinf_of_complex():
    z, w = T.zvectors("z", "w")
    a = np.array([0, 1, -1, 0, np.nan, np.inf, -np.inf, np.inf, complex(0, np.inf)], "complex128")
    b = np.array([0, 1.0001, -1.000000000001, np.nan, np.nan, np.inf, np.inf, 0, complex(0, np.inf)], "complex128")
    f = irc.function([z, w], [T.isclose(z, w), T.isclose(z, w, equal_nan=True), T.isnan(z), T.isinf(z)])
    with np.errstate(invalid="ignore"):
        want = [np.isclose(a, b), np.isclose(a, b, equal_nan=True), np.isnan(a), np.isinf(a)]
    for g, e in zip(f(a, b), want):
        np.testing.assert_array_equal(g, e)


# ---------------------------------------------------------------------------- moves, reductions, products
@pytest.mark.parametrize("dtype", DTYPES)
def test_views_indexing_joins_and_reductions(dtype):
    x = T.matrix(dtype=dtype)
    a = _values(dtype, 12).reshape(3, 4)
    f = irc.function([x], [x[1:, ::2], x[[0, 2, 2]], T.set_subtensor(x[1:], 1j), T.inc_subtensor(x[[0, 0]], x[[1, 2]]),
                           T.concatenate([x, x[:, :1]], axis=1), T.stack([x, x]), x.reshape((2, 6)).T,
                           T.alloc(x[0, 0], 2, 3), T.zeros_like(x), x.sum(), x.sum(axis=0), x.prod(axis=1),
                           x.mean()])
    inc = a.copy()
    np.add.at(inc, [0, 0], a[[1, 2]])
    setv = a.copy()
    setv[1:] = 1j
    want = [a[1:, ::2], a[[0, 2, 2]], setv, inc, np.concatenate([a, a[:, :1]], 1), np.stack([a, a]),
            a.reshape(2, 6).T, np.full((2, 3), a[0, 0]), np.zeros_like(a), a.sum(), a.sum(0), a.prod(1), a.mean()]
    for g, w in zip(f(a), want):
        _close(np.asarray(g), np.asarray(w, dtype=dtype), 10 * RTOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_dot_products(dtype):
    x, y, v = T.matrix(dtype=dtype), T.matrix(dtype=dtype), T.vector(dtype=dtype)
    a, b, c = _values(dtype, 35).reshape(5, 7), _values(dtype, 21).reshape(7, 3), _values(dtype, 7)
    got = irc.function([x, y, v], [T.dot(x, y), T.dot(x, v), T.dot(v, y), T.dot(v, v), T.dot(x.T[:3], x)])(a, b, c)
    for g, w in zip(got, [a @ b, a @ c, c @ b, c @ c, a.T[:3] @ a]):
        _close(np.asarray(g), np.asarray(w), 10 * RTOL[dtype])


# ---------------------------------------------------------------------------- gradients
# A real cost through complex values, checked numerically through real inputs (G = df/dx + i df/dy)
GRAD_CASES = {
    "mul_pow_abs": lambda a, b: abs(T.complex(a, b) * T.complex(b, a) ** 2).sum(),
    "exp_real": lambda a, b: T.real(T.exp(T.complex(a, b)) * T.complex(b, a)).sum(),
    "log_div_imag": lambda a, b: T.imag(T.log(T.complex(a, b)) / T.complex(b, 1 + a * a)).sum(),
    "polar": lambda a, b: abs(T.complex_from_polar(a, b) + T.complex(b, a)).sum(),
    "angle": lambda a, b: T.angle(T.complex(a, b)).sum() + T.angle(a).sum(),
    "sqrt_conj": lambda a, b: T.real(T.sqrt(T.complex(a, b)).conj() * T.complex(a, a)).sum(),
    "trig": lambda a, b: T.real(T.sin(T.complex(a, b)) * T.tanh(T.complex(b, a)) + T.arctan(T.complex(a, b))).sum(),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_of_real_costs_through_complex_values(name):
    rng = np.random.RandomState(3)
    irc.gradient.verify_grad(GRAD_CASES[name], [rng.uniform(0.2, 1.5, 5), rng.uniform(0.2, 1.5, 5)], rng=rng)


def test_gradient_through_a_complex_matrix_product():
    rng = np.random.RandomState(4)
    irc.gradient.verify_grad(lambda a, b: abs(T.dot(T.complex(a, b), T.complex(b.T, a.T))).sum(),
                             [rng.normal(size=(3, 4)), rng.normal(size=(3, 4))], rng=rng)


def test_gradient_with_respect_to_a_complex_input():
    z = T.zvector()
    a = np.array([3 + 4j, -1 + 2j])
    g_abs, g_real = irc.function([z], [T.grad(abs(z).sum(), z), T.grad((z * z).real.sum(), z)])(a)
    np.testing.assert_allclose(g_abs, a / np.abs(a), rtol=1e-15)  # d|z|/dx + i d|z|/dy
    np.testing.assert_allclose(g_real, 2 * a.conj(), rtol=1e-15)  # d(x² - y²)/dx + i d(x² - y²)/dy


# ---------------------------------------------------------------------------- scalars, control flow
@pytest.mark.parametrize("dtype", DTYPES)
def test_complex_scalars_reach_loops_whole(dtype):
    """A 0-d complex value computed before a parallel loop is passed to it whole (a complex128
    takes two of the loop context's 8-byte slots)."""
    z, c = T.zvector("z"), T.scalar("c", dtype=dtype)
    a = _values("complex128", 1000)
    s = np.asarray(2 - 1j, dtype)
    got = irc.function([z, c], [z * c, z + T.cast(c, "complex128") * (1 + 1j), z * abs(c) + c])(a, s)
    want = [a * s, a + s.astype("complex128") * (1 + 1j), a * abs(s) + s]
    for g, w in zip(got, want):
        _close(g, np.asarray(w), 1e-6 if dtype == "complex64" else 1e-15)


def test_complex_values_in_scan_and_ifelse():
    from irc.ifelse import ifelse
    z, c = T.zvector("z"), T.cscalar("c")
    steps, _ = irc.scan(lambda x, acc: acc * x + 1j, sequences=z, outputs_info=T.constant(np.complex128(1)))
    branch = ifelse(T.gt(abs(c), 1), z * c, z)
    f = irc.function([z, c], [steps, branch])
    a = np.array([1 + 1j, 2, 3j])
    acc, want = 1 + 0j, []
    for v in a:
        acc = acc * v + 1j
        want.append(acc)
    got_steps, got_branch = f(a, np.complex64(2))
    np.testing.assert_allclose(got_steps, want, rtol=1e-15)
    np.testing.assert_array_equal(got_branch, a * 2)
    np.testing.assert_array_equal(f(a, np.complex64(0.5))[1], a)


def test_debug_mode_compares_complex_results_within_their_parts_tolerance():
    x = T.cvector()
    a = _values("complex64", 9)
    got = irc.function([x], T.exp(x) * x.conj() + x / 3, mode="DebugMode")(a)
    _close(got, np.exp(a) * a.conj() + a / 3, 1e-6)


def test_a_complex_cost_is_refused_by_grad():
    z = T.zvector()
    with pytest.raises(TypeError, match="T.grad's cost: not defined for complex.*T.real"):
        T.grad(z.sum(), z)


@pytest.mark.parametrize("dtype", DTYPES)
def test_integer_powers_multiply_as_numpy(dtype):
    """A real whole exponent below 100 in magnitude is repeated squaring (numpy's): powers of
    Gaussian integers come out exact ((1+1j)**2 is 2j, not 1e-16+2j), negative ones are
    reciprocals, the others close to numpy's."""
    x, y = T.vector(dtype=dtype), T.vector(dtype=dtype)
    f = irc.function([x, y], x ** y)
    exact = np.array([1 + 1j, 1 + 1j, 2 - 3j, 0j, 0j, 3j, -1 + 2j], dtype), np.array([2, 3, 7, 0, 2, 1, 9], dtype)
    np.testing.assert_array_equal(f(*exact), exact[0] ** exact[1])
    close = np.array([0.5 + 0.25j, 1.1 + 0.3j, -1 + 0.5j, 2 + 1j], dtype), np.array([-3, 99, -8, 2.5], dtype)
    _close(f(*close), close[0] ** close[1], 20 * RTOL[dtype])


ROP_CASES = {
    "abs": lambda x: abs(T.complex(x, 2 * x + 1)),
    "angle": lambda x: T.angle(T.complex(x, 2 * x + 1)),
    "polar": lambda x: T.real(T.complex_from_polar(x, x * x)) + 3 * T.imag(T.complex_from_polar(x, x * x)),
    "exp_mul": lambda x: T.imag(T.exp(T.complex(x, x * x)) * T.complex(x, 1)),
    "sqrt_div_conj": lambda x: T.real(T.sqrt(T.complex(x, x * x)).conj() / T.complex(2, x)),
}


@pytest.mark.parametrize("name", sorted(ROP_CASES))
def test_rop_through_complex_values_against_central_differences(name):
    x, v = T.dvectors("x", "v")
    build = ROP_CASES[name]
    f = irc.function([x], build(x))
    jv = irc.function([x, v], T.Rop(build(x), x, v))
    xs, vs, eps = np.array([0.7, -2.0, 1.3]), np.array([0.3, 1.1, -0.4]), 1e-6
    numeric = (f(xs + eps * vs) - f(xs - eps * vs)) / (2 * eps)
    np.testing.assert_allclose(jv(xs, vs), numeric, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_matrix_products_in_both_modes(mode):
    """FAST_RUN makes four real gemms of a complex product (passes/complex_products.py);
    FAST_COMPILE lowers the dot itself, a nest of complex dot products."""
    x, y = T.zmatrices("x", "y")
    a, b = _values("complex128", 33 * 65).reshape(33, 65), _values("complex128", 65 * 17).reshape(65, 17)
    _close(irc.function([x, y], T.dot(x, y), mode=mode)(a, b), a @ b, 1e-13)
