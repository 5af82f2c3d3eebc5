"""The elementwise table: every derivative against central finite differences, every expansion
against its row's reference, and the numpy references' dtypes and numerics."""
import numpy as np
import pytest

from irc.dialects.elementwise import (SYMBOLS, TABLE, TABLE_ROWS, check_element_types, evaluate_expression,
                                      expression_ops, expression_symbols, lookup, operand_type_for)
from irc.ir.types import f32, f64, i1, i8, i32, i64

RNG = np.random.default_rng(0)
POSITIVE = {"log", "log1p", "sqrt", "pow", "floordiv", "mod"}


def _inputs(row, n=64):
    xs = []
    for k in range(row.arity):
        mag = RNG.uniform(0.3, 2.0, n)
        if row.name == "select" and k == 0:
            xs.append(RNG.random(n) < 0.5)
        elif row.name in POSITIVE:
            xs.append(mag)
        elif row.name == "arccosh":  # domain [1, inf)
            xs.append(1.0 + mag)
        elif row.name in ("arctanh", "arcsin", "arccos"):  # domain (-1, 1)
            xs.append(mag / 2.5 * RNG.choice([-1.0, 1.0], n))
        else:
            xs.append(mag * RNG.choice([-1.0, 1.0], n))
    return xs


def test_rows_are_well_formed():
    assert len(TABLE) == len(TABLE_ROWS) >= 40
    for row in TABLE_ROWS:
        assert len(row.derivative) == row.arity, row.name
        for expr in row.derivative + (row.expansion,):
            assert expression_ops(expr) <= set(TABLE), (row.name, expr)
            assert expression_symbols(expr) <= set(SYMBOLS), (row.name, expr)
        assert row.kinds and set(row.kinds) <= set("fibc")
        if row.float_only:
            assert not row.integer_only


def test_required_ops_present():
    required = ("neg abs exp log log1p expm1 sqrt sin cos tanh sigmoid softplus relu sign floor ceil round "
                "reciprocal square logical_not add sub mul div floordiv mod pow maximum minimum and or xor "
                "eq ne lt le gt ge select").split()
    assert set(required) <= set(TABLE)
    assert lookup("tensor.exp") is lookup("scalar.exp") is TABLE["exp"]


def test_non_differentiable_rows_say_so():
    for name in ("eq", "ne", "lt", "le", "gt", "ge", "and", "or", "xor", "logical_not"):
        assert all(d is None for d in TABLE[name].derivative), name
    for name in ("floor", "ceil", "round", "round_away", "sign"):
        assert TABLE[name].derivative == (0.0,), name
    assert TABLE["select"].derivative[0] is None


@pytest.mark.parametrize("row", [r for r in TABLE_ROWS if "f" in r.kinds and r.result != "complex"],
                         ids=lambda r: r.name)
def test_derivative_matches_finite_differences(row):
    xs = _inputs(row)
    env = dict(zip(("x", "y", "z"), xs))
    env["out"] = row.reference(*xs)
    env["gz"] = RNG.uniform(-1.0, 1.0, xs[0].shape)
    for k, expr in enumerate(row.derivative):
        if expr is None:
            continue
        got = np.broadcast_to(np.asarray(evaluate_expression(expr, env), dtype=np.float64), xs[0].shape)
        h = 1e-6 * np.maximum(1.0, np.abs(xs[k]))
        plus, minus = list(xs), list(xs)
        plus[k], minus[k] = xs[k] + h, xs[k] - h
        numeric = env["gz"] * (row.reference(*plus) - row.reference(*minus)) / (2 * h)
        np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-7, err_msg=f"{row.name} input {k}")


@pytest.mark.parametrize("row", [r for r in TABLE_ROWS if r.expansion is not None], ids=lambda r: r.name)
def test_expansion_matches_reference(row):
    xs = _inputs(row)
    xs[0] = np.concatenate([xs[0][:-4], [-30.0, 30.0, -800.0, 800.0]])
    env = dict(zip(("x", "y", "z"), xs))
    np.testing.assert_allclose(evaluate_expression(row.expansion, env), row.reference(*xs), rtol=1e-12)


@pytest.mark.parametrize("row", [r for r in TABLE_ROWS if "f" in r.kinds], ids=lambda r: r.name)
def test_references_keep_float32(row):
    xs = [x.astype(np.float32) if x.dtype == np.float64 else x for x in _inputs(row, 8)]
    out = np.asarray(row.reference(*xs))
    expected = np.bool_ if row.is_comparison else np.complex64 if row.result == "complex" else np.float32
    assert out.dtype == expected, row.name


def test_stable_sigmoid_and_softplus():
    x = np.array([-1000.0, -40.0, 0.0, 40.0, 1000.0])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        s = TABLE["sigmoid"].reference(x)
        sp = TABLE["softplus"].reference(x)
    np.testing.assert_allclose(s, [0.0, np.exp(-40.0), 0.5, 1.0, 1.0], rtol=1e-12, atol=0)
    np.testing.assert_allclose(sp, [0.0, np.exp(-40.0), np.log(2.0), 40.0, 1000.0], rtol=1e-12, atol=0)


def test_rounding_modes():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999999999999994, 2.6])
    np.testing.assert_array_equal(TABLE["round"].reference(x), [-2, -2, -0, 0, 2, 2, 0, 3])
    np.testing.assert_array_equal(TABLE["round_away"].reference(x), [-3, -2, -1, 1, 2, 3, 0, 3])


def test_element_type_rules():
    assert check_element_types(TABLE["add"], [f32, f32]) == f32
    assert check_element_types(TABLE["lt"], [i32, i32]) == i1
    assert check_element_types(TABLE["select"], [i1, f64, f64]) == f64
    with pytest.raises(ValueError, match="same element type.*f32, f64"):
        check_element_types(TABLE["add"], [f32, f64])
    with pytest.raises(ValueError, match="needs float or complex operands, got i32"):
        check_element_types(TABLE["exp"], [i32])
    with pytest.raises(ValueError, match="condition must have element type i1"):
        check_element_types(TABLE["select"], [f32, f32, f32])
    with pytest.raises(ValueError, match="integer or i1"):
        check_element_types(TABLE["and"], [f32, f32])


def test_frontend_promotion_helpers():
    assert operand_type_for(TABLE["add"], [i8, f32]) == f32
    assert operand_type_for(TABLE["exp"], [i64]) == f64
    assert operand_type_for(TABLE["exp"], [i8]) == f32
    assert operand_type_for(TABLE["div"], [i32, i32]) == f64
    assert operand_type_for(TABLE["select"], [i1, i32, f32]) == f64


def test_evaluate_expression_errors():
    with pytest.raises(KeyError, match="'gz'"):
        evaluate_expression(("mul", "gz", "x"), {"x": 1.0})
    with pytest.raises(ValueError, match="takes 2"):
        evaluate_expression(("mul", "x"), {"x": 1.0})
