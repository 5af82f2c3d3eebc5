"""`irc.gradient` (Theano's `theano.gradient`): `grad`, `jacobian`, `hessian`, `Rop`, `Lop`,
`verify_grad` (with `numeric_grad` and `GradientError`)."""
from __future__ import annotations

from .frontend.grad import DisconnectedInputError, Lop, Rop, grad, hessian, jacobian
from .frontend.verify_grad import GradientError, numeric_grad, verify_grad

__all__ = ["DisconnectedInputError", "GradientError", "Lop", "Rop", "grad", "hessian", "jacobian",
           "numeric_grad", "verify_grad"]
