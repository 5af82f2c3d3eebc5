"""Theano's fused softmax cross-entropy functions for integer class labels
(`T.nnet.crossentropy_softmax_1hot`, `..._with_bias`, `crossentropy_softmax_argmax_1hot_with_bias`
and its op class), written with `log_softmax` and a gather, so they compile, differentiate and
get `stabilize`'s rewrites like the rest; a label out of `[0, classes)` — negative ones too,
which Theano refuses — fails the call with an IndexError (a ValueError)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .basic import add, as_tensor_variable, lt, neg, switch
from .creation import arange
from .dtype_names import integer_dtypes
from .graph import Variable
from .mathops import argmax
from .softmax_ops import LogSoftmax, Softmax


def _labels(y_idx: Any) -> Variable:
    """The integer labels (numpy arrays of unsigned dtypes become int64: the values fit)."""
    if isinstance(y_idx, (list, tuple, np.ndarray)):
        y_idx = np.asarray(y_idx)
        if y_idx.dtype.kind in "ub":
            y_idx = y_idx.astype("int64")
    y = as_tensor_variable(y_idx)
    if y.ndim != 1 or y.dtype not in integer_dtypes:
        raise TypeError(f"crossentropy_softmax_1hot: y_idx must be an integer vector, got {y.type}")
    return y


def _nll_and_softmax(x: Any, b: Any, y_idx: Any) -> tuple[Variable, Variable, Variable]:
    x = as_tensor_variable(x)
    if x.ndim != 2:
        raise TypeError(f"crossentropy_softmax_1hot: x must be a matrix, got {x.type}")
    z = x if b is None else add(x, as_tensor_variable(b))
    y = _labels(y_idx)
    classes = z.shape[1]
    picked = switch(lt(y, 0), classes, y)  # a negative label indexes past the end: an error
    nll = neg(LogSoftmax()(z)[arange(z.shape[0]), picked])
    return nll, Softmax()(z), z


def crossentropy_softmax_1hot_with_bias(x: Any, b: Any, y_idx: Any, **kwargs: Any) -> tuple[Variable, Variable]:
    """(-log softmax(x + b)[i, y_idx[i]] per row, softmax(x + b))."""
    nll, sm, _ = _nll_and_softmax(x, b, y_idx)
    return nll, sm


def crossentropy_softmax_1hot(x: Any, y_idx: Any, **kwargs: Any) -> tuple[Variable, Variable]:
    """(-log softmax(x)[i, y_idx[i]] per row, softmax(x))."""
    nll, sm, _ = _nll_and_softmax(x, None, y_idx)
    return nll, sm


def crossentropy_softmax_argmax_1hot_with_bias(x: Any, b: Any, y_idx: Any, **kwargs: Any) -> tuple[Variable, ...]:
    """`crossentropy_softmax_1hot_with_bias`, and the argmax of each row of x + b (int64)."""
    nll, sm, z = _nll_and_softmax(x, b, y_idx)
    return nll, sm, argmax(z, axis=1)


class CrossentropySoftmaxArgmax1HotWithBias:
    """Theano's op class: `CrossentropySoftmaxArgmax1HotWithBias()(x, b, y_idx)` is
    `crossentropy_softmax_argmax_1hot_with_bias(x, b, y_idx)` (it makes no node of its own)."""

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)

    def __hash__(self) -> int:
        return hash(type(self))

    def __call__(self, x: Any, b: Any, y_idx: Any) -> list[Variable]:
        return list(crossentropy_softmax_argmax_1hot_with_bias(x, b, y_idx))
