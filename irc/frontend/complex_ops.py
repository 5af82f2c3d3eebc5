"""Theano's functions on complex tensors: `real`, `imag`, `conj`, `angle`, `complex`,
`complex_from_polar` (elementwise table rows, compiled natively: codegen_llvm/complex_emit.py).

On real tensors `real` and `conj` are the identity, `imag` is zeros and `angle` is 0 or π, as
numpy's; `complex(re, im)` takes real parts (integers are upgraded to floats first) and gives
complex64 for float32 (or narrower) parts, complex128 otherwise.

Gradients are of real costs (`T.grad` refuses a complex one): the gradient with respect to a
complex z = x + iy is ∂f/∂x + i·∂f/∂y, and a real input gets the real part of what reaches it
(irc/frontend/gradient_rules.py)."""
from __future__ import annotations

from typing import Any

from .basic import elemwise
from .elemwise_function import ElemwiseFunction
from .graph import Variable


def _unary(name: str, doc: str) -> ElemwiseFunction:
    def fn(x: Any) -> Variable:
        return elemwise(name, x)
    fn.__name__ = name
    fn.__doc__ = doc
    return ElemwiseFunction(fn, name)


def _binary(name: str, doc: str) -> ElemwiseFunction:
    def fn(x: Any, y: Any) -> Variable:
        return elemwise(name, x, y)
    fn.__name__ = name
    fn.__doc__ = doc
    return ElemwiseFunction(fn, name)


real = _unary("real", "The real part of a complex tensor (a real tensor itself).")
imag = _unary("imag", "The imaginary part of a complex tensor (zeros for a real one).")
conj = _unary("conj", "The complex conjugate (a real tensor itself).")
angle = _unary("angle", "The argument of each complex number, in (-π, π] (numpy's angle).")
complex = _binary("complex", "re + i·im from two real tensors, with broadcasting.")  # noqa: A001
complex_from_polar = _binary("complex_from_polar", "r·(cos θ + i·sin θ) from moduli r and angles θ.")

__all__ = ["angle", "complex", "complex_from_polar", "conj", "imag", "real"]
