"""`arange_like(x, axis)`: the int64 vector 0..n-1 with n = x.shape[axis], built from
existing tensor ops (the dialect has no iota yet).

The identity matrix of size n is the first n rows of [1, 0 * n] tiled n times and read as
(n + 1, n); its argmax along each row is the row index. O(n^2) work and memory: fine for class
counts (categorical_crossentropy with integer targets); a `tensor.iota` op would replace it."""
from __future__ import annotations

import numpy as np

from .basic import (add, concatenate, constant, dimshuffle, reshape, shape, subtensor, zeros_like, cast)
from .graph import Variable
from .mathops import argmax, sum as sum_
from .shape_ops import Alloc


def arange_like(x: Variable, axis: int) -> Variable:
    others = [d for d in range(x.ndim) if d != axis]
    line = sum_(cast(x, "int8"), axis=others) if others else x       # shape (n,)
    n = shape(x)[axis]
    zeros = zeros_like(line, "int8")
    head = concatenate([constant(np.ones(1, "int8")), zeros])            # (n + 1,)
    tiled = Alloc()(dimshuffle(head, ("x", 0)), dimshuffle(zeros, (0, "x")))   # (n, n + 1)
    eye = subtensor(reshape(reshape(tiled, (-1,)), (add(n, 1), n)), slice(None, -1))
    return argmax(eye, axis=1)
