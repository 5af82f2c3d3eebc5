"""`pool_2d` (Theano's `theano.tensor.signal.pool.pool_2d`) and `max_pool_2d_same_size`: the
arguments as Theano takes them (`ws`, `stride`, `pad`, `mode`, `ignore_border`, and the old
names `ds`, `st`, `padding`), checked and turned into one `Pool` node over the last two axes."""
from __future__ import annotations

import warnings
from typing import Any

from .basic import as_tensor_variable
from .conv import conv_error, located
from .graph import Variable
from .pool_ops import MaxPoolGrad, Pool

POOL_MODES = ("max", "sum", "average_inc_pad", "average_exc_pad")


def _pair(name: str, value: Any, low: int) -> tuple[int, int]:
    try:
        pair = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise conv_error("pool_2d", f"{name} must be a pair of integers, got {value!r}") from None
    if len(pair) != 2 or any(v < low for v in pair):
        raise conv_error("pool_2d", f"{name} must be two integers >= {low}, got {value!r}")
    return pair  # type: ignore[return-value]


def _renamed(new: Any, old: Any, new_name: str, old_name: str) -> Any:
    if old is None:
        return new
    if new is not None:
        raise conv_error("pool_2d", f"give {new_name} or its old name {old_name}, not both")
    warnings.warn(f"pool_2d: {old_name} is deprecated, use {new_name}", DeprecationWarning, stacklevel=3)
    return old


def pool_2d(input: Any, ws: Any = None, ignore_border: bool | None = None, stride: Any = None,
            pad: Any = (0, 0), mode: str = "max", ds: Any = None, st: Any = None, padding: Any = None) -> Variable:
    """max, sum or average over windows `ws` of the last two axes of `input` (rank >= 2), every
    `stride` (default: `ws`), with `pad` zeros around each image (needs `ignore_border=True`).
    `ignore_border=False` keeps a partial window at the end of a row or column; None warns and
    means False, as in Theano."""
    ws = _renamed(ws, ds, "ws", "ds")
    stride = _renamed(stride, st, "stride", "st")
    if padding is not None:
        pad = _renamed(None if tuple(pad) == (0, 0) else pad, padding, "pad", "padding")
    if ws is None:
        raise conv_error("pool_2d", "the window size ws is required")
    x = as_tensor_variable(input)
    if x.ndim < 2:
        raise conv_error("pool_2d", f"needs a tensor of rank >= 2 (images along its last two axes), got rank {x.ndim}")
    if mode not in POOL_MODES:
        raise conv_error("pool_2d", f"mode must be one of {', '.join(POOL_MODES)}, got {mode!r}")
    if ignore_border is None:
        warnings.warn("pool_2d: ignore_border is not given; it means False (Theano's default, which it "
                      "announces will become True): pass ignore_border explicitly", stacklevel=2)
        ignore_border = False
    ws, pad = _pair("ws", ws, 1), _pair("pad", pad, 0)
    stride = _pair("stride", stride, 1) if stride is not None else ws
    if any(pad) and not ignore_border:
        raise conv_error("pool_2d", "padding works only with ignore_border=True")
    if pad[0] >= ws[0] or pad[1] >= ws[1]:
        raise conv_error("pool_2d", f"pad {pad} must be smaller than the window {ws}")
    if x.dtype == "bool":
        raise conv_error("pool_2d", "needs a numeric tensor, got bool")
    try:
        return Pool(ws, ignore_border, stride, pad, mode)(x)
    except TypeError as e:
        raise located("pool_2d", e) from None


def max_pool_2d_same_size(input: Any, patch_size: Any) -> Variable:
    """`input` with every element that is not the max of its (non-overlapping) patch set to 0."""
    x = as_tensor_variable(input)
    ws = _pair("patch_size", patch_size, 1)
    out = Pool(ws, True)(x)
    return MaxPoolGrad(ws, True)(x, out, out)
