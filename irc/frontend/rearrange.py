"""`swapaxes`, `permute_row_elements` and `inverse_permutation` (Theano's): moving elements,
as dimshuffles and gathers/scatters of the IR."""
from __future__ import annotations

from typing import Any

from .basic import as_tensor_variable, dimshuffle, pad_left, reshape, set_subtensor, subtensor, zeros_like
from .creation import alloc, arange
from .dtype_names import integer_dtypes
from .graph import Variable


def swapaxes(y: Any, axis1: int, axis2: int) -> Variable:
    """`y` with dims `axis1` and `axis2` exchanged (an IndexError for a dim `y` lacks, as
    Theano and numpy's indexing of the dim list)."""
    y = as_tensor_variable(y)
    order = list(range(y.ndim))
    order[axis1], order[axis2] = order[axis2], order[axis1]
    return dimshuffle(y, order)


def permute_row_elements(x: Any, y: Any, inverse: Any = 0) -> Variable:
    """Each row (last dim) of `x` permuted by the matching row of the integer tensor `y`:
    `out[..., j] = x[..., y[..., j]]`, or with `inverse` `out[..., y[..., j]] = x[..., j]`;
    the leading dims of `x` and `y` broadcast together."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if y.dtype not in integer_dtypes:
        raise TypeError(f"permute_row_elements: the permutation must hold integers, got {y.type}")
    if x.ndim == 0 or y.ndim == 0:
        raise TypeError(f"permute_row_elements: needs rows to permute, got {x.type} and {y.type}")
    if x.ndim == 1 and y.ndim == 1:
        return set_subtensor(subtensor(zeros_like(x), y), x) if inverse else subtensor(x, y)
    nd = max(x.ndim, y.ndim)
    xe, ye = pad_left(x, nd), pad_left(y, nd)
    lead = [ye.shape[d] if xe.broadcastable[d] else xe.shape[d] for d in range(nd - 1)]
    rows_x = reshape(alloc(xe, *lead, xe.shape[-1]), (-1, xe.shape[-1]))
    rows_y = reshape(alloc(ye, *lead, ye.shape[-1]), (-1, ye.shape[-1]))
    which = dimshuffle(arange(rows_x.shape[0]), [0, "x"])
    if inverse:
        out = set_subtensor(subtensor(zeros_like(rows_x), (which, rows_y)), rows_x)
    else:
        out = subtensor(rows_x, (which, rows_y))
    return reshape(out, [*lead, out.shape[-1]])


def inverse_permutation(perm: Any) -> Variable:
    """The inverse of each permutation in the last dim of the integer tensor `perm`:
    `out[..., perm[..., i]] = i`."""
    perm = as_tensor_variable(perm)
    if perm.dtype not in integer_dtypes or perm.ndim == 0:
        raise TypeError(f"inverse_permutation: needs integer permutations, got {perm.type}")
    return permute_row_elements(arange(perm.shape[-1], dtype=perm.dtype), perm, inverse=1)
