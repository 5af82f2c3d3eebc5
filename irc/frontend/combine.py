"""Theano's functions that combine several tensors or results: `stacklists` (nested lists to
one tensor), `smallest`/`largest` (elementwise over several), `max_and_argmax`."""
from __future__ import annotations

from typing import Any

from .basic import as_tensor_variable, maximum, minimum, stack
from .graph import Variable
from .mathops import argmax, max as max_


def stacklists(arg: Any) -> Variable:
    """A tensor from nested lists of tensors (`stacklists([[a, b], [c, d]])` is 2 x 2 more dims)."""
    if isinstance(arg, (tuple, list)):
        return stack([stacklists(a) for a in arg])
    return as_tensor_variable(arg)


def _fold(name: str, combine, args: tuple) -> Variable:
    if not args:
        raise TypeError(f"{name} needs at least one argument")
    out = as_tensor_variable(args[0])
    for a in args[1:]:
        out = combine(out, a)
    return out


def smallest(*args: Any) -> Variable:
    """The elementwise minimum of the arguments."""
    return _fold("smallest", minimum, args)


def largest(*args: Any) -> Variable:
    """The elementwise maximum of the arguments."""
    return _fold("largest", maximum, args)


def max_and_argmax(a: Any, axis: Any = None, keepdims: bool = False) -> list[Variable]:
    """[max, argmax] along `axis` (Theano's pair)."""
    return [max_(a, axis, keepdims), argmax(a, axis, keepdims)]
