"""Where a variable's test value comes from (Theano's `Op._get_test_value`): a constant's data,
a shared variable's current value, or the `tag.test_value` the user set, converted to the
variable's type. Read by `compute_test_value` (compute_test_values.py) and by `scan`, which
gives its step's placeholders the values of the outer variables' first slices."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.diagnostics import Diagnostic
from .graph import Constant, Variable
from .shared import SharedVariable


def get_test_value(var: Variable) -> np.ndarray | None:
    """The test value of `var`, or None when it has none. A `tag.test_value` that its type does
    not accept is a TypeError naming the variable (Theano: "one input test value does not have
    the requested type")."""
    if isinstance(var, Constant):
        return var.data
    if isinstance(var, SharedVariable):
        return np.asarray(var.get_value(borrow=True))
    if not hasattr(var.tag, "test_value"):
        return None
    try:
        return var.type.filter(var.tag.test_value)
    except TypeError as e:
        message = f"compute_test_value: the test value of {var} does not have its type {var.type}: {e}"
        if var.owner is not None:
            message = Diagnostic(message, var.owner.location).render()
        raise TypeError(message) from None


def set_test_value(var: Variable, value: Any) -> None:
    """Give `var` a test value (as Theano's placeholders of a scan step get theirs)."""
    var.tag.test_value = value
