"""`conv2d` (Theano's `theano.tensor.nnet.conv2d`, from `abstract_conv`): the arguments as
Theano takes them — border modes, strides, filter flipping, dilation, shape hints — checked
and turned into one `AbstractConv2d` node; a mistake is reported at the user's line."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..ir.diagnostics import Diagnostic
from .basic import as_tensor_variable, cast
from .conv_ops import AbstractConv2d
from .graph import Variable, user_location
from .tensor_type import floatX

BORDER_MODES = ("valid", "full", "half")


class ConvError(ValueError):
    """A conv2d the user asked for that cannot be built (the message names the user's line)."""


def conv_error(op: str, message: str) -> ConvError:
    return ConvError(Diagnostic(f"{op}: {message}", user_location()).render())


def located(op: str, error: Exception) -> Exception:
    """`error` (a type error the op's inference raised) again, its message at the user's line."""
    return type(error)(Diagnostic(f"{op}: {error}", user_location()).render())


def _pair(op: str, name: str, value: Any, low: int) -> tuple[int, int]:
    try:
        pair = tuple(int(v) for v in (value if isinstance(value, (tuple, list)) else (value, value)))
    except (TypeError, ValueError):
        raise conv_error(op, f"{name} must be two integers, got {value!r}") from None
    if len(pair) != 2 or any(v < low for v in pair):
        raise conv_error(op, f"{name} must be two integers >= {low}, got {value!r}")
    return pair  # type: ignore[return-value]


def _shape_hint(op: str, name: str, hint: Any) -> tuple[int | None, ...] | None:
    if hint is None:
        return None
    try:
        sizes = tuple(None if d is None else int(d) for d in hint)
    except (TypeError, ValueError):
        raise conv_error(op, f"{name} must be 4 sizes (None where unknown), got {hint!r}") from None
    if len(sizes) != 4 or any(d is not None and d < 0 for d in sizes):
        raise conv_error(op, f"{name} must be 4 sizes (None where unknown), got {hint!r}")
    return sizes


def border_pads(op: str, border_mode: Any, kshp: Sequence[int | None] | None,
                dilation: tuple[int, int]) -> tuple[int, int]:
    """The zero padding on each side that a border mode means (Theano's rules: 'valid' none,
    'full' the dilated filter's size - 1, 'half' half of it, an int or a pair of ints as given)."""
    if isinstance(border_mode, str):
        if border_mode not in BORDER_MODES:
            raise conv_error(op, f"border_mode must be one of {', '.join(BORDER_MODES)}, an int or a pair of "
                                 f"ints, got {border_mode!r}")
        if border_mode == "valid":
            return (0, 0)
        if kshp is None or kshp[2] is None or kshp[3] is None:
            return None  # type: ignore[return-value]  (known only from the filters' shape)
        k = [dilation[a] * (kshp[2 + a] - 1) + 1 for a in range(2)]
        return (k[0] - 1, k[1] - 1) if border_mode == "full" else (k[0] // 2, k[1] // 2)
    return _pair(op, "border_mode", border_mode, 0)


def _known_shape(v: Variable) -> tuple[int, ...] | None:
    """The shape of a constant's value, or of a shared variable's current value."""
    if hasattr(v, "get_value"):
        return np.shape(v.get_value(borrow=True))
    data = getattr(v, "data", None)
    return None if data is None else np.shape(data)


def conv2d(input: Any, filters: Any, input_shape: Sequence[int | None] | None = None,
           filter_shape: Sequence[int | None] | None = None, border_mode: Any = "valid",
           subsample: Sequence[int] = (1, 1), filter_flip: bool = True, image_shape: Any = None,
           filter_dilation: Sequence[int] = (1, 1), num_groups: int = 1, unshared: bool = False,
           **kwargs: Any) -> Variable:
    """The 2-d convolution of a batch of images (N×C×H×W) with a bank of filters (F×C×kh×kw):
    N×F×OH×OW. `filter_flip=False` computes a cross-correlation. `input_shape` and
    `filter_shape` (None for an unknown size) are checked against the data when it runs."""
    op = "conv2d"
    if image_shape is not None:  # Theano's deprecated name
        if input_shape is not None:
            raise conv_error(op, "give input_shape or its old name image_shape, not both")
        input_shape = image_shape
    if num_groups != 1 or unshared:
        raise conv_error(op, "grouped (num_groups > 1) and unshared convolutions are not supported")
    unknown = sorted(set(kwargs) - {"imshp", "kshp"})
    if unknown:
        raise conv_error(op, f"unexpected keyword argument(s) {', '.join(unknown)}")
    input_shape = input_shape if input_shape is not None else kwargs.get("imshp")
    filter_shape = filter_shape if filter_shape is not None else kwargs.get("kshp")
    x, w = as_tensor_variable(input), as_tensor_variable(filters)
    if x.ndim != 4 or w.ndim != 4:
        raise conv_error(op, f"needs 4-d images (batch, channels, rows, columns) and 4-d filters (filters, "
                             f"channels, rows, columns), got {x.ndim}-d images and {w.ndim}-d filters")
    imshp, kshp = _shape_hint(op, "input_shape", input_shape), _shape_hint(op, "filter_shape", filter_shape)
    if imshp is not None and kshp is not None and None not in (imshp[1], kshp[1]) and imshp[1] != kshp[1]:
        raise conv_error(op, f"input_shape has {imshp[1]} channels but filter_shape {kshp[1]}")
    strides = _pair(op, "subsample", subsample, 1)
    dilation = _pair(op, "filter_dilation", filter_dilation, 1)
    pads = border_pads(op, border_mode, kshp if kshp is not None else _known_shape(w), dilation)
    if pads is None:
        raise conv_error(op, f"border_mode={border_mode!r} needs the filter size when the graph is built: pass "
                             f"filter_shape (the filters are neither a constant nor a shared variable)")
    dtype = str(np.result_type(x.dtype, w.dtype))
    if not np.issubdtype(np.dtype(dtype), np.floating):
        dtype = floatX()
    x, w = cast(x, dtype), cast(w, dtype)
    if imshp is not None and kshp is not None and None not in (*imshp[2:], *kshp[2:]):
        for a, what in enumerate(("rows", "columns")):
            span = dilation[a] * (kshp[2 + a] - 1) + 1
            if imshp[2 + a] + 2 * pads[a] < span:
                raise conv_error(op, f"the images have {imshp[2 + a]} {what} (padded by {pads[a]} on each side), "
                                     f"fewer than the filter's {span}")
    try:
        return AbstractConv2d(strides, pads, dilation, filter_flip, imshp, kshp)(x, w)
    except TypeError as e:
        raise located(op, e) from None
