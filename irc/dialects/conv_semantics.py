"""The geometry of the convolution and pooling ops (`tensor_conv`, `tensor_pool`): their
attributes, checked, and their output sizes — shared by the ops' type inference, their numpy
semantics (`tensor_eval`, which the ops' module cannot be imported by) and their lowering."""
from __future__ import annotations

from typing import Sequence

from ..ir.attributes import Attribute, DenseArrayAttr, IntegerAttr, StringAttr
from .op_base import Bad, int_array, int_attr, str_attr

POOL_MODES = ("max", "sum", "average_inc_pad", "average_exc_pad")


def conv_attributes(strides: Sequence[int], pads: Sequence[int], dilation: Sequence[int],
                    flip: bool) -> dict[str, Attribute]:
    """The attributes of the three convolution ops."""
    return {"strides": DenseArrayAttr(tuple(int(s) for s in strides)),
            "pads": DenseArrayAttr(tuple(int(p) for p in pads)),
            "dilation": DenseArrayAttr(tuple(int(d) for d in dilation)),
            "flip": IntegerAttr(int(bool(flip)))}


def conv_geometry(attributes) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int], bool]:
    """(strides, pads, dilation, flip), checked: two positive strides and dilations, two
    non-negative pads."""
    strides = int_array(attributes, "strides")
    pads = int_array(attributes, "pads")
    dilation = int_array(attributes, "dilation")
    flip = int_attr(attributes, "flip")
    for name, v, low in (("strides", strides, 1), ("pads", pads, 0), ("dilation", dilation, 1)):
        if len(v) != 2 or any(d < low for d in v):
            raise Bad(f"'{name}' must be two integers >= {low}, got {list(v)}")
    if flip not in (0, 1):
        raise Bad(f"'flip' must be 0 or 1, got {flip}")
    return (strides[0], strides[1]), (pads[0], pads[1]), (dilation[0], dilation[1]), bool(flip)


def conv_output_size(size: int | None, kernel: int | None, stride: int, pad: int, dilation: int) -> int | None:
    """One output size of a convolution (None when an input size is unknown); negative when
    the padded image is smaller than the dilated filter."""
    if size is None or kernel is None:
        return None
    return (size + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1


def pool_attributes(mode: str, window, strides, pads, ignore_border: bool) -> dict[str, Attribute]:
    return {"mode": StringAttr(mode), "window": DenseArrayAttr(tuple(int(w) for w in window)),
            "strides": DenseArrayAttr(tuple(int(s) for s in strides)),
            "pads": DenseArrayAttr(tuple(int(p) for p in pads)), "ignore_border": IntegerAttr(int(bool(ignore_border)))}


def pool_geometry(attributes) -> tuple[str, tuple[int, int], tuple[int, int], tuple[int, int], bool]:
    """(mode, window, strides, pads, ignore_border), checked as Theano's `Pool` does."""
    mode = str_attr(attributes, "mode")
    if mode not in POOL_MODES:
        raise Bad(f"unknown pooling mode '{mode}' (expected one of {', '.join(POOL_MODES)})")
    window, strides, pads = (int_array(attributes, k) for k in ("window", "strides", "pads"))
    ignore_border = int_attr(attributes, "ignore_border")
    for name, v, low in (("window", window, 1), ("strides", strides, 1), ("pads", pads, 0)):
        if len(v) != 2 or any(d < low for d in v):
            raise Bad(f"'{name}' must be two integers >= {low}, got {list(v)}")
    if any(p >= w for p, w in zip(pads, window)):
        raise Bad(f"pads {list(pads)} must be smaller than the window {list(window)}")
    if any(pads) and not ignore_border:
        raise Bad("padding works only with ignore_border = 1")
    return mode, (window[0], window[1]), (strides[0], strides[1]), (pads[0], pads[1]), bool(ignore_border)


def pool_output_size(size: int | None, window: int, stride: int, pad: int, ignore_border: bool) -> int | None:
    """One output size of a pooling (Theano's `Pool.out_shape`); None when the size is unknown."""
    if size is None:
        return None
    r = size + 2 * pad
    if ignore_border:
        return max(0, (r - window) // stride + 1)
    if stride >= window:
        return (r - 1) // stride + 1 if r > 0 else 0
    return max(0, (r - 1 - window) // stride + 1) + 1


def pooled_type(x, attributes):
    _, window, strides, pads, ignore = pool_geometry(attributes)
    spatial = [pool_output_size(x.shape[x.rank - 2 + a], window[a], strides[a], pads[a], ignore) for a in range(2)]
    return x.with_shape((*x.shape[:-2], *spatial))
