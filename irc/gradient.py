"""`irc.gradient` (Theano's `theano.gradient`): `grad`, `jacobian`, `hessian`, `Rop`, `Lop`,
`verify_grad` (with `numeric_grad` and `GradientError`), `DisconnectedType` and
`disconnected_type` (the placeholder `grad(..., return_disconnected='Disconnected')` gives),
and what changes only the gradient: `zero_grad`, `disconnected_grad`, `consider_constant`,
`grad_clip`, `grad_scale`."""
from __future__ import annotations

from .frontend.grad import (DisconnectedInputError, DisconnectedType, Lop, Rop, consider_constant, disconnected_grad,
                            disconnected_type, grad, grad_clip, grad_scale, hessian, jacobian, zero_grad)
from .frontend.gradient_ops import DisconnectedGrad, GradClip, GradScale, ZeroGrad
from .frontend.verify_grad import GradientError, numeric_grad, verify_grad

# Theano's op instances behind the functions (its tests look for them in compiled graphs)
zero_grad_ = ZeroGrad()
disconnected_grad_ = DisconnectedGrad()
consider_constant_ = ZeroGrad()

__all__ = ["DisconnectedGrad", "DisconnectedInputError", "DisconnectedType", "GradClip", "GradScale", "GradientError",
           "Lop", "Rop", "ZeroGrad", "consider_constant", "consider_constant_", "disconnected_grad_", "zero_grad_",
           "disconnected_grad", "disconnected_type", "grad", "grad_clip", "grad_scale", "hessian", "jacobian",
           "numeric_grad", "verify_grad", "zero_grad"]
