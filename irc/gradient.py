"""`irc.gradient` (Theano's `theano.gradient`): `grad`, `jacobian`, `hessian`, `Rop`, `Lop`,
`verify_grad` (with `numeric_grad` and `GradientError`), `DisconnectedType` and
`disconnected_type` (the placeholder `grad(..., return_disconnected='Disconnected')` gives)."""
from __future__ import annotations

from .frontend.grad import (DisconnectedInputError, DisconnectedType, Lop, Rop, disconnected_type, grad, hessian,
                            jacobian)
from .frontend.verify_grad import GradientError, numeric_grad, verify_grad

__all__ = ["DisconnectedInputError", "DisconnectedType", "GradientError", "Lop", "Rop", "disconnected_type", "grad",
           "hessian", "jacobian", "numeric_grad", "verify_grad"]
