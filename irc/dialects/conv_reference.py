"""The numpy semantics of the convolution and pooling ops (`tensor_conv`, `tensor_pool`): what
`tensor_eval` runs for them, written as one vectorized numpy step per filter tap or per output
position so that the reference executor stays usable on a real batch."""
from __future__ import annotations

from typing import Sequence

import numpy as np

Pair = Sequence[int]


def conv_output_shape(x_shape, w_shape, strides: Pair, pads: Pair, dilation: Pair) -> tuple[int, int, int, int]:
    out = [(x_shape[2 + a] + 2 * pads[a] - dilation[a] * (w_shape[2 + a] - 1) - 1) // strides[a] + 1 for a in range(2)]
    return (x_shape[0], w_shape[0], out[0], out[1])


def _taps(w_shape, strides: Pair, dilation: Pair, out: Sequence[int]):
    """(a, b, rows, cols): per filter tap, the slices of the padded image it reads."""
    kh, kw = w_shape[2], w_shape[3]
    for a in range(kh):
        for b in range(kw):
            r0, c0 = a * dilation[0], b * dilation[1]
            yield a, b, slice(r0, r0 + strides[0] * (out[0] - 1) + 1, strides[0]), \
                slice(c0, c0 + strides[1] * (out[1] - 1) + 1, strides[1])


def _oriented(w: np.ndarray, flip: bool) -> np.ndarray:
    return w[:, :, ::-1, ::-1] if flip else w


def conv2d(x: np.ndarray, w: np.ndarray, strides: Pair, pads: Pair, dilation: Pair, flip: bool) -> np.ndarray:
    shape = conv_output_shape(x.shape, w.shape, strides, pads, dilation)
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[0]), (pads[1], pads[1])))
    wo = _oriented(w, flip)
    y = np.zeros(shape, dtype=x.dtype)
    if 0 in shape:
        return y
    for a, b, rows, cols in _taps(w.shape, strides, dilation, shape[2:]):
        y += np.einsum("nchw,fc->nfhw", xp[:, :, rows, cols], wo[:, :, a, b])
    return y


def conv2d_grad_input(gy: np.ndarray, w: np.ndarray, x_shape, strides: Pair, pads: Pair, dilation: Pair,
                      flip: bool) -> np.ndarray:
    n, c, h, wd = x_shape
    gxp = np.zeros((n, c, h + 2 * pads[0], wd + 2 * pads[1]), dtype=gy.dtype)
    wo = _oriented(w, flip)
    if gy.size:
        for a, b, rows, cols in _taps(w.shape, strides, dilation, gy.shape[2:]):
            gxp[:, :, rows, cols] += np.einsum("nfhw,fc->nchw", gy, wo[:, :, a, b])
    return np.ascontiguousarray(gxp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + wd])


def conv2d_grad_filters(x: np.ndarray, gy: np.ndarray, w_shape, strides: Pair, pads: Pair, dilation: Pair,
                        flip: bool) -> np.ndarray:
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[0]), (pads[1], pads[1])))
    g = np.zeros(tuple(w_shape), dtype=x.dtype)
    if gy.size:
        for a, b, rows, cols in _taps(w_shape, strides, dilation, gy.shape[2:]):
            g[:, :, a, b] = np.einsum("nchw,nfhw->fc", xp[:, :, rows, cols], gy)
    return np.ascontiguousarray(_oriented(g, flip))


# ---------------------------------------------------------------------------- pooling
def pool_windows(size: int, out: int, window: int, stride: int, pad: int, mode: str):
    """Per output position along one axis: (lo, hi, divisor part) — the window's elements inside
    the image are [lo, hi) in image coordinates; the divisor part is the window's length cut
    at the padded image's edge (average_inc_pad) or the count inside the image (the others)."""
    padded = size + 2 * pad
    for i in range(out):
        start = i * stride
        end = min(start + window, padded)
        lo, hi = max(start, pad) - pad, min(end, size + pad) - pad
        yield lo, hi, (end - start) if mode == "average_inc_pad" else (hi - lo)


def _pool_plan(shape, out_shape, window: Pair, strides: Pair, pads: Pair, mode: str):
    rows = list(pool_windows(shape[-2], out_shape[-2], window[0], strides[0], pads[0], mode))
    cols = list(pool_windows(shape[-1], out_shape[-1], window[1], strides[1], pads[1], mode))
    for i, (r0, r1, dr) in enumerate(rows):
        for j, (c0, c1, dc) in enumerate(cols):
            yield i, j, (Ellipsis, slice(r0, r1), slice(c0, c1)), max(1, dr * dc)


def pool2d(x: np.ndarray, out_shape, mode: str, window: Pair, strides: Pair, pads: Pair) -> np.ndarray:
    y = np.zeros(out_shape, dtype=x.dtype)
    for i, j, region, count in _pool_plan(x.shape, out_shape, window, strides, pads, mode):
        part = x[region]
        if mode == "max":
            y[..., i, j] = part.max(axis=(-2, -1))
        elif mode == "sum":
            y[..., i, j] = part.sum(axis=(-2, -1))
        else:
            y[..., i, j] = part.sum(axis=(-2, -1)) / x.dtype.type(count)
    return y


def pool2d_grad(x: np.ndarray, y: np.ndarray | None, gy: np.ndarray, mode: str, window: Pair, strides: Pair,
                pads: Pair) -> np.ndarray:
    """Max: every element equal to its window's max receives the window's gradient (as
    Theano's MaxPoolGrad); the others spread it over the window, divided as the forward."""
    gx = np.zeros(x.shape, dtype=x.dtype)
    for i, j, region, count in _pool_plan(x.shape, gy.shape, window, strides, pads, mode):
        g = gy[..., i, j][..., None, None]
        if mode == "max":
            gx[region] += np.where(x[region] == y[..., i, j][..., None, None], g, 0)
        elif mode == "sum":
            gx[region] += g
        else:
            gx[region] += g / x.dtype.type(count)
    return gx
