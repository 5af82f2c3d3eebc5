"""The error for an op that has no meaning on complex numbers (an ordering, rounding, a
float-only function): Theano's TypeError, naming the op and the user's line."""
from __future__ import annotations

from typing import Any

from ..ir.diagnostics import Diagnostic
from .graph import Variable, user_location
from .tensor_type import COMPLEX_DTYPES


def refuse_complex(op: str, *values: Any, hint: str = "take T.real, T.imag or T.abs first") -> None:
    """Raise a located TypeError if any of `values` is a complex tensor."""
    found = [v.dtype for v in values if isinstance(v, Variable) and v.dtype in COMPLEX_DTYPES]
    if found:
        raise TypeError(Diagnostic(f"{op}: not defined for complex operands (got {', '.join(found)}); {hint}",
                                   user_location()).render())
