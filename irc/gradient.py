"""`irc.gradient` (Theano's `theano.gradient`): `grad`, `jacobian`, `hessian`, `Rop`, `Lop`."""
from __future__ import annotations

from .frontend.grad import DisconnectedInputError, Lop, Rop, grad, hessian, jacobian

__all__ = ["DisconnectedInputError", "Lop", "Rop", "grad", "hessian", "jacobian"]
