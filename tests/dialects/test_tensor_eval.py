"""The reference semantics against hand-written numpy, exact dtypes, and run-time shape errors."""
import numpy as np
import pytest

from irc.dialects import tensor
from irc.dialects.builtin import TensorType
from irc.dialects.elementwise import TABLE_ROWS, check_element_types
from irc.dialects.tensor_eval import EVALUATORS, EvalError, evaluate
from irc.ir.attributes import DenseArrayAttr, FloatAttr, IntegerAttr, StringAttr, TypeAttr
from irc.ir.core import OP_REGISTRY, Block, Terminator
from irc.ir.location import FileLineColLoc
from irc.ir.types import ScalarType, i32

N = tensor.NO_BOUND
RNG = np.random.default_rng(1)


def T(spec: str, device=None) -> TensorType:
    *dims, el = spec.split("x")
    return TensorType(tuple(None if d == "?" else int(d) for d in dims), ScalarType(el), device)


def op(name, *types, **attrs):
    return OP_REGISTRY[name].build(list(Block(types).args), attrs, location=FileLineColLoc("m.py", 3, 7))


def run(name, types, inputs, **attrs):
    return evaluate(op(name, *types, **attrs), inputs)[0]


def arr(*values):
    return DenseArrayAttr(tuple(values))


def test_every_registered_tensor_op_has_semantics():
    names = {n for n, cls in OP_REGISTRY.items() if n.startswith("tensor.") and not cls.has_trait_cls(Terminator)}
    assert names <= set(EVALUATORS)  # a terminator (tensor.yield) is run by its region op


@pytest.mark.parametrize("row", TABLE_ROWS, ids=lambda r: r.name)
def test_elementwise_keeps_dtypes_and_broadcasts(row):
    el = "f32" if "f" in row.kinds else ("i32" if "i" in row.kinds else "i1")
    types = [T(f"1x3x{el}"), T(f"2x3x{el}"), T(f"2x1x{el}")][:row.arity]
    if row.name == "select":
        types[0] = T("1x3xi1")
    inputs = []
    for t in types:
        if t.element.is_bool:
            inputs.append(RNG.random(tuple(t.shape)) < 0.5)
        else:
            inputs.append((RNG.uniform(0.5, 3.0, tuple(t.shape))).astype(t.element.numpy_name))
    out = run(row.tensor_name, types, inputs)
    expected = np.asarray(row.reference(*inputs))
    assert out.shape == np.broadcast_shapes(*[a.shape for a in inputs])
    assert out.dtype == check_element_types(row, [t.element for t in types]).numpy_name
    np.testing.assert_array_equal(out, np.broadcast_to(expected, out.shape))


def test_float32_stays_float32_through_math():
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    out = run("tensor.sigmoid", [T("7xf32")], [x])
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, 1 / (1 + np.exp(-x.astype(np.float64))), rtol=1e-6)


def test_runtime_broadcast_mismatch():
    with pytest.raises(EvalError, match=r"'tensor.add' at loc\(\"m.py\":3:7\): "
                                        r"shapes \(3,\) and \(4,\) do not match"):
        run("tensor.add", [T("?xf32"), T("?xf32")], [np.zeros(3, np.float32), np.zeros(4, np.float32)])
    with pytest.raises(EvalError, match="only dims of static size 1 broadcast"):
        run("tensor.add", [T("?xf32"), T("?xf32")], [np.zeros(1, np.float32), np.zeros(4, np.float32)])
    with pytest.raises(EvalError, match=r"input #1 has shape \(4,\), but its type is tensor<3xf32>"):
        run("tensor.add", [T("?xf32"), T("3xf32")], [np.zeros(3, np.float32), np.zeros(4, np.float32)])
    with pytest.raises(EvalError, match="dtype float64"):
        run("tensor.exp", [T("?xf32")], [np.zeros(3)])


def test_shape_ops():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(run("tensor.dimshuffle", [T("?x3xf32")], [x], pattern=arr(1, -1, 0)),
                                  x.T[:, None, :])
    y = np.arange(3, dtype=np.int64).reshape(1, 3)
    np.testing.assert_array_equal(run("tensor.dimshuffle", [T("1x3xi64")], [y], pattern=arr(-1, 1)), y)
    z = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(run("tensor.transpose", [T("2x3x4xi64")], [z], permutation=arr(2, 0, 1)),
                                  z.transpose(2, 0, 1))
    got = run("tensor.reshape", [T("?x3xf32")], [x], shape=arr(3, -1))
    np.testing.assert_array_equal(got, x.reshape(3, 2))
    out = run("tensor.reshape", [T("?x3xf32"), T("2xi64")], [x, np.array([1, 6])],
              shape=arr(tensor.DYNAMIC, -1))
    assert out.shape == (1, 6)
    with pytest.raises(EvalError, match=r"cannot reshape an array of shape \(2, 3\) into shape \(4, -1\)"):
        run("tensor.reshape", [T("?x3xf32")], [x], shape=arr(4, -1))
    np.testing.assert_array_equal(run("tensor.broadcast", [T("1x3xf32"), T("?x3xf32")],
                                      [x[:1], np.zeros((4, 3), np.float32)]), np.repeat(x[:1], 4, 0))
    assert run("tensor.dim", [T("?x3xf32")], [x], axis=IntegerAttr(0)) == 2
    assert run("tensor.cast", [T("2x3xf32")], [x + 0.7], to=TypeAttr(i32)).dtype == np.int32


def test_slices_and_concat():
    x = np.arange(20, dtype=np.float64).reshape(4, 5)
    got = run("tensor.slice", [T("?x5xf64")], [x], starts=arr(N, -1), stops=arr(-1, 0), steps=arr(2, -2))
    np.testing.assert_array_equal(got, x[:-1:2, -1:0:-2])
    src = -np.ones((2, 5))
    got = run("tensor.insert_slice", [T("4x5xf64"), T("2x5xf64")], [x, src],
              starts=arr(0, N), stops=arr(N, N), steps=arr(2, 1))
    expected = x.copy()
    expected[::2] = src
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(EvalError, match="does not fit the slice"):
        run("tensor.insert_slice", [T("?x5xf64"), T("?x5xf64")], [x, src[:1]],
            starts=arr(0, N), stops=arr(N, N), steps=arr(2, 1))
    got = run("tensor.concat", [T("?x5xf64"), T("?x5xf64")], [x, x[:1]], axis=IntegerAttr(0))
    np.testing.assert_array_equal(got, np.concatenate([x, x[:1]]))
    # a builder may declare x[i]'s static size; the evaluator checks it at run time
    o = OP_REGISTRY["tensor.slice"](list(Block([T("?xf64")]).args), [T("1xf64")],
                                    dict(starts=arr(3), stops=arr(4), steps=arr(1)))
    assert evaluate(o, [np.arange(5.0)])[0].tolist() == [3.0]
    with pytest.raises(EvalError, match="index out of range"):
        evaluate(o, [np.arange(2.0)])


def test_reductions_and_products():
    x = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    for kind, fn in (("sum", np.sum), ("prod", np.prod), ("max", np.max), ("min", np.min)):
        got = run("tensor.reduce", [T("3x?x5xf32")], [x], kind=StringAttr(kind), axes=arr(0, 2))
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, fn(x, axis=(0, 2)), rtol=1e-5)
    got = run("tensor.reduce", [T("3x?x5xf32")], [x], kind=StringAttr("argmin"), axes=arr(1))
    assert got.dtype == np.int64 and (got == x.argmin(1)).all()
    with pytest.raises(EvalError, match="max over an empty axis"):
        run("tensor.reduce", [T("?xf32")], [np.zeros(0, np.float32)], kind=StringAttr("max"), axes=arr(0))
    a, b = x[0], x[1].T.copy()
    np.testing.assert_allclose(run("tensor.dot", [T("4x5xf32"), T("5x4xf32")], [a, b]), a @ b, rtol=1e-5)
    v = x[0, 0]
    assert run("tensor.dot", [T("5xf32"), T("5xf32")], [v, v]).shape == ()
    with pytest.raises(EvalError, match=r"shapes \(4, 5\) and \(4,\) are not aligned"):
        run("tensor.dot", [T("?x?xf32"), T("?xf32")], [a, a[0, :4]])
    y = np.ones(4, np.float32)
    got = run("tensor.gemv", [T("4x5xf32"), T("5xf32"), T("4xf32")], [a, v, y],
              alpha=FloatAttr(2.0), beta=FloatAttr(-1.0))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, 2 * a @ v - y, rtol=1e-5)
    c = np.ones((4, 4), np.float32)
    got = run("tensor.gemm", [T("4x5xf32"), T("5x4xf32"), T("4x4xf32")], [a, b, c],
              alpha=FloatAttr(0.5), beta=FloatAttr(3.0))
    np.testing.assert_allclose(got, 0.5 * a @ b + 3 * c, rtol=1e-5)
    row = np.arange(4, dtype=np.float32)[None, :]
    got = run("tensor.gemm", [T("4x5xf32"), T("5x4xf32"), T("1x4xf32")], [a, b, row],
              alpha=FloatAttr(0.5), beta=FloatAttr(1.0), epilogue=StringAttr("tanh"))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.tanh(0.5 * a @ b + row), rtol=1e-5)


def test_results_are_fresh_copies():
    x = np.arange(6.0).reshape(2, 3)
    out = run("tensor.transpose", [T("2x3xf64")], [x], permutation=arr(1, 0))
    out[0, 0] = 99
    assert x[0, 0] == 0
    out = run("tensor.to_device", [T("2x3xf64")], [x], device=StringAttr("cuda"))
    assert not np.shares_memory(out, x)


def test_numpy_errors_are_located(monkeypatch):
    """A complaint numpy raises inside an evaluator names the op and its location (integer
    pow with a negative exponent, numpy's usual example, too)."""
    def numpy_complains(op, arrays):
        return [np.reshape(arrays[0], (4,))]

    monkeypatch.setitem(EVALUATORS, "tensor.exp", numpy_complains)
    with pytest.raises(EvalError, match=r"'tensor.exp' at loc\(\"m.py\":3:7\): cannot reshape"):
        run("tensor.exp", [T("2xf32")], [np.array([2, 3], np.float32)])
    with pytest.raises(EvalError, match="'tensor.pow'.*Integers to negative integer powers are not allowed"):
        run("tensor.pow", [T("2xi32"), T("2xi32")], [np.array([2, 3], np.int32), np.array([1, -1], np.int32)])
