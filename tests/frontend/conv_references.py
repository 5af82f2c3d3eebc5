"""Plain-loop numpy references for convolution and pooling (one output element at a time,
written from the definitions, independently of irc's own vectorized reference in
irc/dialects/conv_reference.py), for the tests of conv2d and pool_2d."""
from __future__ import annotations

import numpy as np


def conv2d_loops(x, w, stride=(1, 1), pad=(0, 0), dilation=(1, 1), flip=True):
    """y[n, f, i, j] = Σ x_padded[n, c, i·s + a·d, j·s + b·d] · w'[f, c, a, b], w' = w rotated
    by 180° when flipped (a convolution), w itself otherwise (a cross-correlation)."""
    n, c, h, wd = x.shape
    f, c2, kh, kw = w.shape
    assert c == c2
    xp = np.zeros((n, c, h + 2 * pad[0], wd + 2 * pad[1]), dtype=np.float64)
    xp[:, :, pad[0]:pad[0] + h, pad[1]:pad[1] + wd] = x
    k = w[:, :, ::-1, ::-1] if flip else w
    oh = (h + 2 * pad[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    y = np.zeros((n, f, oh, ow))
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    patch = xp[:, :, i * stride[0] + a * dilation[0], j * stride[1] + b * dilation[1]]
                    y[:, :, i, j] += patch @ k[:, :, a, b].T
    return y


def pool_loops(x, ws, stride, pad, ignore_border, mode):
    """Theano's Pool.perform, written out: windows over the zero-padded image, cut at its end;
    max and sum over the elements inside the image, average_inc_pad divided by the cut
    window's size, average_exc_pad by the count inside the image."""
    h, w = x.shape[-2:]
    r, c = h + 2 * pad[0], w + 2 * pad[1]

    def count(size, k, s):
        if ignore_border:
            return max(0, (size - k) // s + 1)
        return (size - 1) // s + 1 if s >= k else max(0, (size - 1 - k) // s + 1) + 1
    oh, ow = count(r, ws[0], stride[0]), count(c, ws[1], stride[1])
    y = np.zeros(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            r0, r1 = i * stride[0], min(i * stride[0] + ws[0], r)
            c0, c1 = j * stride[1], min(j * stride[1] + ws[1], c)
            lo_r, hi_r = max(r0, pad[0]) - pad[0], min(r1, h + pad[0]) - pad[0]
            lo_c, hi_c = max(c0, pad[1]) - pad[1], min(c1, w + pad[1]) - pad[1]
            part = x[..., lo_r:hi_r, lo_c:hi_c].astype(np.float64)
            if mode == "max":
                y[..., i, j] = part.max(axis=(-2, -1))
            elif mode == "sum":
                y[..., i, j] = part.sum(axis=(-2, -1))
            elif mode == "average_inc_pad":
                y[..., i, j] = part.sum(axis=(-2, -1)) / ((r1 - r0) * (c1 - c0))
            else:
                y[..., i, j] = part.sum(axis=(-2, -1)) / ((hi_r - lo_r) * (hi_c - lo_c))
    return y
