"""`T.nnet.conv2d` against a plain-loop numpy reference (tests/frontend/conv_references.py):
every border mode (valid, full, half, an int, a pair), strides, dilation, flipped or not, odd
sizes, float32 (to 1e-5 relative, 1e-4 absolute) and float64 (1e-10), compiled natively; its
gradients against finite differences (`T.verify_grad`) and against numpy's adjoints; the
errors: wrong ranks, channels that differ, an image smaller than the filter, a shape hint the
data contradict — each naming conv2d (or its op) and this file's line."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.runtime.errors import ExecutionError
from irc.tensor.nnet import conv, conv2d

from conv_references import conv2d_loops

TOLERANCE = {"float32": dict(rtol=1e-5, atol=1e-4), "float64": dict(rtol=1e-10, atol=1e-10)}

# (border_mode, subsample, filter_dilation, filter_flip, image shape, filter shape, dtype): each
# function compiles for seconds, so the dtypes alternate over the cases
CASES = [
    ("valid", (1, 1), (1, 1), True, (3, 2, 9, 7), (4, 2, 3, 3), "float64"),
    ("valid", (2, 1), (1, 1), False, (9, 2, 9, 7), (4, 2, 3, 3), "float32"),
    ("full", (1, 1), (1, 1), False, (2, 3, 5, 6), (2, 3, 3, 2), "float32"),
    ("half", (2, 1), (1, 1), True, (2, 1, 7, 7), (3, 1, 5, 3), "float64"),
    ((1, 2), (1, 3), (2, 1), True, (1, 2, 8, 9), (2, 2, 2, 3), "float32"),
    (2, (2, 2), (1, 1), False, (3, 1, 5, 5), (1, 1, 3, 3), "float64"),
    ("full", (3, 2), (2, 2), True, (2, 2, 6, 5), (3, 2, 2, 2), "float64"),
    # more output pixels than a panel of the gemm holds, rows of 12 and 9 cut where panels end
    ("valid", (1, 1), (1, 1), True, (11, 3, 14, 13), (5, 3, 3, 2), "float32"),
    ("half", (1, 2), (1, 1), False, (3, 2, 13, 17), (4, 2, 3, 3), "float64"),
    # the filter gradient's blocks of 4 images (64 pixels each), the last block of a chunk short
    ("valid", (1, 1), (1, 1), False, (70, 2, 10, 11), (3, 2, 3, 4), "float32"),
]


def _pads(border_mode, kshp, dilation):
    if border_mode == "valid":
        return (0, 0)
    span = [dilation[a] * (kshp[2 + a] - 1) + 1 for a in range(2)]
    if border_mode == "full":
        return (span[0] - 1, span[1] - 1)
    if border_mode == "half":
        return (span[0] // 2, span[1] // 2)
    return (border_mode, border_mode) if isinstance(border_mode, int) else border_mode


@pytest.fixture(autouse=True)
def _native_only():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # compiled natively: no reference fallback
        yield


@pytest.mark.parametrize("case", CASES, ids=[str(c[:4]) + c[-1] for c in CASES])
def test_conv2d_and_its_gradients_match_numpy(case):
    border_mode, subsample, dilation, flip, imshp, kshp, dtype = case
    rng = np.random.RandomState(7)
    xv, wv = rng.randn(*imshp).astype(dtype), rng.randn(*kshp).astype(dtype)
    x, w = T.TensorType(dtype, (False,) * 4)("x"), T.TensorType(dtype, (False,) * 4)("w")
    y = conv2d(x, w, filter_shape=kshp, border_mode=border_mode, subsample=subsample,
               filter_dilation=dilation, filter_flip=flip)
    u = T.TensorType(dtype, (False,) * 4)("u")
    gx, gw = T.grad((y * u).sum(), [x, w])
    f = irc.function([x, w, u], [y, gx, gw])
    pads = _pads(border_mode, kshp, dilation)
    want = conv2d_loops(xv.astype(np.float64), wv.astype(np.float64), subsample, pads, dilation, flip)
    uv = rng.randn(*want.shape).astype(dtype)
    yv, gxv, gwv = f(xv, wv, uv)
    assert yv.dtype == dtype and gxv.dtype == dtype and gwv.dtype == dtype
    np.testing.assert_allclose(yv, want, **TOLERANCE[dtype])
    # the gradients are the adjoints: conv2d is linear in each operand, so for any direction d,
    # <gx, d> = <u, conv(d, w)> and <gw, d> = <u, conv(x, d)>
    x64, w64, u64 = (a.astype(np.float64) for a in (xv, wv, uv))
    scale = dict(rtol=TOLERANCE[dtype]["rtol"] * 10, atol=TOLERANCE[dtype]["atol"] * 10)
    geometry = (subsample, pads, dilation, flip)
    for _ in range(3):
        dx, dw = rng.randn(*imshp), rng.randn(*kshp)
        np.testing.assert_allclose((gxv * dx).sum(), (conv2d_loops(dx, w64, *geometry) * u64).sum(), **scale)
        np.testing.assert_allclose((gwv * dw).sum(), (conv2d_loops(x64, dw, *geometry) * u64).sum(), **scale)


def test_verify_grad_of_a_strided_dilated_padded_convolution():
    rng = np.random.RandomState(3)
    T.verify_grad(lambda x, w: conv2d(x, w, border_mode=(2, 1), subsample=(2, 1), filter_dilation=(1, 2)),
                  [rng.randn(2, 3, 6, 7), rng.randn(2, 3, 3, 2)], rng=rng)


def test_second_derivative_through_the_gradient_ops():
    """T.grad of a gradient: the gradient ops' own gradients are convolutions."""
    rng = np.random.RandomState(4)

    def grad_norm(x, w):
        gx, gw = T.grad((conv2d(x, w, border_mode="half", filter_shape=(2, 2, 3, 3)) ** 2).sum(), [x, w])
        return (gx ** 2).sum() + (gw ** 2).sum()
    T.verify_grad(grad_norm, [rng.randn(1, 2, 5, 4), rng.randn(2, 2, 3, 3)], rng=rng)


def test_old_module_path_and_theano_argument_names():
    x, w = T.tensor4("x"), T.tensor4("w")
    y = conv.conv2d(input=x, filters=w, filter_shape=(2, 1, 3, 3), image_shape=(1, 1, 5, 5), border_mode="full")
    xv, wv = np.arange(25.0).reshape(1, 1, 5, 5), np.ones((2, 1, 3, 3))
    np.testing.assert_allclose(irc.function([x, w], y)(xv, wv), conv2d_loops(xv, wv, pad=(2, 2)), rtol=1e-12)
    assert str(y.owner.op).startswith("AbstractConv2d")


def test_mixed_dtypes_upcast_and_the_result_broadcasts_like_its_inputs():
    x = T.TensorType("float32", (False, True, False, False))("x")
    w = T.TensorType("float64", (True, True, False, False))("w")
    y = conv2d(x, w)
    assert y.dtype == "float64" and y.broadcastable == (False, True, False, False)


def _message(excinfo) -> str:
    return str(excinfo.value)


def test_wrong_ranks_and_bad_arguments_are_reported_at_the_users_line():
    x, w = T.tensor4("x"), T.tensor4("w")
    with pytest.raises(ValueError) as e:
        conv2d(T.matrix("m"), w)
    assert "conv2d: needs 4-d images" in _message(e) and "test_conv2d.py" in _message(e)
    with pytest.raises(ValueError, match="border_mode must be one of"):
        conv2d(x, w, border_mode="same")
    with pytest.raises(ValueError, match="subsample must be two integers >= 1"):
        conv2d(x, w, subsample=(0, 1))
    with pytest.raises(ValueError, match="needs the filter size"):
        conv2d(x, w, border_mode="full")
    with pytest.raises(ValueError, match="input_shape has 3 channels but filter_shape 2"):
        conv2d(x, w, input_shape=(1, 3, 8, 8), filter_shape=(4, 2, 3, 3))
    with pytest.raises(ValueError, match="the images have 4 rows .* fewer than the filter's 5"):
        conv2d(x, w, input_shape=(1, 1, 4, 8), filter_shape=(4, 1, 5, 5))
    with pytest.raises(ValueError, match="grouped"):
        conv2d(x, w, num_groups=2)


def test_run_time_errors_name_the_op_and_the_users_line():
    x, w = T.tensor4("x"), T.tensor4("w")
    f = irc.function([x, w], conv2d(x, w, input_shape=(None, 2, None, None)))
    with pytest.raises(ExecutionError) as e:  # channels differ
        f(np.zeros((1, 2, 5, 5)), np.zeros((1, 3, 3, 3)))
    assert "different numbers of channels" in _message(e) and "test_conv2d.py" in _message(e)
    with pytest.raises(ExecutionError, match="fewer rows than the dilated filter"):
        f(np.zeros((1, 2, 2, 5)), np.zeros((1, 2, 3, 3)))
    with pytest.raises(ExecutionError, match="differ from input_shape in dim 1"):
        f(np.zeros((1, 3, 5, 5)), np.zeros((1, 3, 3, 3)))
    assert f(np.ones((1, 2, 5, 5)), np.ones((1, 2, 3, 3))).shape == (1, 1, 3, 3)


def test_bias_and_activation_fold_into_the_convolution():
    """A layer's `tanh(conv2d(x, w) + b.dimshuffle('x', 0, 'x', 'x'))` is one tensor.conv2d with
    the bias and a tanh epilogue (applied by the gemm kernel as it writes), same values."""
    x, w, b = T.tensor4("x"), T.tensor4("w"), T.vector("b")
    y = T.tanh(conv2d(x, w, border_mode="half", filter_shape=(3, 2, 3, 3)) + b.dimshuffle("x", 0, "x", "x"))
    gb = T.grad(y.sum(), b)
    f = irc.function([x, w, b], [y, gb])
    optimized = f.ir("optimized")
    assert "tensor.conv2d %x, %w, %b" in optimized and 'epilogue = "tanh"' in optimized
    assert "tensor.tanh" not in optimized and "tensor.add" not in optimized.split("tensor.conv2d_grad")[0]
    rng = np.random.RandomState(8)
    xv, wv, bv = rng.randn(4, 2, 6, 5), rng.randn(3, 2, 3, 3), rng.randn(3)
    yv, gbv = f(xv, wv, bv)
    want = np.tanh(conv2d_loops(xv, wv, pad=(1, 1)) + bv[None, :, None, None])
    np.testing.assert_allclose(yv, want, **TOLERANCE["float64"])
    np.testing.assert_allclose(gbv, (1 - want ** 2).sum(axis=(0, 2, 3)), **TOLERANCE["float64"])
