"""Unsigned integer tensors (`T.TensorType('uint8', ...)`, uint16/32/64): built, cast, computed
and compared as numpy does — division, modulo, comparison, maximum, abs/sign, powers, widening
and conversion to and from floats read the bits as unsigned — with Theano's dtype rules:
numpy's promotion between tensors (uint8 + int8 -> int16, uint64 + int64 -> float64), a Python
int adopts the tensor's dtype when it fits and takes Theano's constant dtype when it does not
(uint8 + -1 -> int16), float-only functions upgrade uint8/16 to float32 and uint32/64 to
float64, sum and prod accumulate in uint64."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T

UINTS = ["uint8", "uint16", "uint32", "uint64"]


def values(dtype: str, n: int = 200, seed: int = 0) -> np.ndarray:
    info = np.iinfo(dtype)
    rng = np.random.RandomState(seed)
    edges = np.array([0, 1, 2, info.max, info.max - 1, info.max // 2, info.max // 2 + 1], dtype)
    return np.concatenate([edges, rng.randint(0, min(int(info.max), 2 ** 62), n, dtype="int64").astype(dtype)])


@pytest.mark.parametrize("dtype", UINTS)
def test_arithmetic_and_comparisons_match_numpy(dtype):
    x, y = T.vector("x", dtype=dtype), T.vector("y", dtype=dtype)
    a, b = values(dtype), values(dtype, seed=1)[::-1].copy()
    outputs = [x + y, x - y, x * y, x // y, x % y, T.maximum(x, y), T.minimum(x, y), x < y, x >= y,
               T.eq(x, y), abs(x), T.sgn(x), x & y, x | y, x ^ y, T.max(x), T.min(x), T.argmax(x)]
    with np.errstate(all="ignore"):
        want = [a + b, a - b, a * b, np.floor_divide(a, b), np.mod(a, b), np.maximum(a, b), np.minimum(a, b),
                a < b, a >= b, a == b, a, np.sign(a), a & b, a | b, a ^ b, a.max(), a.min(), a.argmax()]
    got = irc.function([x, y], outputs)(a, b)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == np.asarray(w).dtype, (k, g.dtype, np.asarray(w).dtype)
        np.testing.assert_array_equal(g, w, err_msg=f"output {k}")


@pytest.mark.parametrize("dtype", UINTS)
def test_division_by_zero_gives_numpys_zero(dtype):
    x, y = T.vector("x", dtype=dtype), T.vector("y", dtype=dtype)
    a, b = np.array([7, 0, 5], dtype), np.array([0, 0, 2], dtype)
    got = irc.function([x, y], [x // y, x % y])(a, b)
    np.testing.assert_array_equal(got[0], [0, 0, 2])
    np.testing.assert_array_equal(got[1], [0, 0, 1])


@pytest.mark.parametrize("dtype", UINTS)
def test_casts_to_and_from_floats_and_signed_integers(dtype):
    x = T.vector("x", dtype=dtype)
    a = values(dtype)
    outs = [T.cast(x, "float64"), T.cast(x, "float32"), T.cast(x, "int64"), T.cast(x, "int8"), T.cast(x, "uint8")]
    for g, d in zip(irc.function([x], outs)(a), ["float64", "float32", "int64", "int8", "uint8"]):
        np.testing.assert_array_equal(g, a.astype(d))
    f = T.dvector("f")
    floats = np.array([0.0, 1.5, 200.7, 255.0, 65535.0, 4e9, 1.8e19, -1.0, -3.7])
    with np.errstate(invalid="ignore"):
        want = floats.astype(dtype)
    keep = floats >= 0 if dtype == "uint64" else floats <= np.iinfo(dtype).max  # numpy's in-range ones
    np.testing.assert_array_equal(irc.function([f], T.cast(f, dtype))(floats)[keep], want[keep])


def test_the_biggest_uint64_values_convert_exactly():
    x = T.vector("x", dtype="uint64")
    a = np.array([2 ** 64 - 1, 2 ** 63, 2 ** 63 + 2 ** 11, 2 ** 53 + 1], dtype="uint64")
    got = irc.function([x], [T.cast(x, "float64"), x // np.uint64(3), x > np.uint64(2 ** 63)])(a)
    np.testing.assert_array_equal(got[0], a.astype("float64"))
    np.testing.assert_array_equal(got[1], a // np.uint64(3))
    np.testing.assert_array_equal(got[2], a > np.uint64(2 ** 63))


@pytest.mark.parametrize("da, db", [("uint8", "int8"), ("uint8", "uint16"), ("uint16", "int32"),
                                    ("uint32", "int32"), ("uint64", "int64"), ("uint8", "float32"),
                                    ("uint32", "float32"), ("uint64", "uint8"), ("bool", "uint8")])
def test_promotion_between_tensors_is_numpys(da, db):
    x, y = T.vector("x", dtype=da), T.vector("y", dtype=db)
    assert (x + y).dtype == np.result_type(da, db).name
    a, b = np.array([1, 2, 3], da), np.array([4, 5, 6], db)
    np.testing.assert_array_equal(irc.function([x, y], x * y)(a, b), a * b)


def test_python_ints_follow_theano():
    x = T.vector("x", dtype="uint8")
    assert (x + 1).dtype == "uint8" and (x * 200).dtype == "uint8"
    assert (x + (-1)).dtype == "int16" and (x + 1000).dtype == "int16"
    a = np.array([0, 5, 255], "uint8")
    np.testing.assert_array_equal(irc.function([x], x + (-1))(a), a.astype("int16") - 1)
    assert (T.bvector() + 1000).dtype == "int16"  # the same rule for a signed tensor


@pytest.mark.parametrize("dtype, float_dtype", [("uint8", "float32"), ("uint16", "float32"),
                                                ("uint32", "float64"), ("uint64", "float64")])
def test_float_functions_and_reductions(dtype, float_dtype):
    x = T.vector("x", dtype=dtype)
    assert T.exp(x).dtype == T.arcsin(x).dtype == float_dtype
    assert T.sum(x).dtype == T.prod(x).dtype == "uint64"
    a = np.array([0, 1, 3, 200], dtype)
    got = irc.function([x], [T.sqrt(x), T.sum(x), T.prod(x + 1), T.mean(x), x ** np.array(3, dtype)])(a)
    np.testing.assert_allclose(got[0], np.sqrt(a.astype(float_dtype)), rtol=1e-6)
    assert got[1] == a.sum(dtype="uint64") and got[1].dtype == np.dtype("uint64")
    assert got[2] == (a + 1).prod(dtype="uint64")
    np.testing.assert_allclose(got[3], a.mean())
    np.testing.assert_array_equal(got[4], a ** np.array(3, dtype))


def test_inputs_shared_variables_and_constants():
    x = T.TensorType("uint16", (False, False))("x")
    s = irc.shared(np.array([1, 2, 3], "uint32"), name="s")
    c = T.constant(np.array([65535], "uint16"))
    f = irc.function([x], [x + c, (s * 2).sum()], updates={s: s + np.uint32(1)})
    got = f(np.array([[1, 2]], "uint16"))
    np.testing.assert_array_equal(got[0], np.array([[0, 1]], "uint16"))
    assert got[1] == 12 and s.get_value().dtype == np.dtype("uint32")
    np.testing.assert_array_equal(s.get_value(), [2, 3, 4])
    with pytest.raises(TypeError, match="uint16"):
        f(np.array([[-1, 2]], "int64"))  # not a lossless conversion
