"""numpy's rule for integer `**` at graph-build time: a constant negative exponent of an integer
power is refused where the user wrote it ("Integers to negative integer powers are not
allowed.", numpy's ValueError). An exponent known only at run time is checked by the compiled
function (irc/conversion/tensor_to_loop/integer_power.py), with the same message."""
from __future__ import annotations

import numpy as np

from ..ir.diagnostics import Diagnostic
from .graph import Constant, Variable
from .shape_ops import DimShuffle

MESSAGE = "Integers to negative integer powers are not allowed."


def constant_value(v: Variable) -> np.ndarray | None:
    """The value of `v` when it is a constant seen through dimshuffles (a Python number in an
    expression is `DimShuffle{x}(TensorConstant)`), else None."""
    while v.owner is not None and isinstance(v.owner.op, DimShuffle):
        v = v.owner.inputs[0]
    return v.data if isinstance(v, Constant) else None


def refuse_negative_integer_exponent(power: Variable) -> Variable:
    """`power` (the output of an elementwise pow) unchanged, or a ValueError naming the op and
    the user's line when it raises integers to a constant negative exponent."""
    if power.dtype.startswith(("int", "uint")):
        exponent = constant_value(power.owner.inputs[1])
        if exponent is not None and (exponent < 0).any():
            raise ValueError(Diagnostic(f"'pow': {MESSAGE} (the exponent is the constant "
                                        f"{exponent.tolist()}; write a float exponent, e.g. "
                                        f"x ** -1.0, for a real power)",
                                        power.owner.location).render())
    return power
