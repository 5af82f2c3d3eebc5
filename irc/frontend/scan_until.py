"""`until`: what a scan step returns to stop the loop (Theano's `theano.scan_module.until`).

A step function returning `(outputs, until(cond))`, `(outputs, updates, until(cond))` or
`(updates, until(cond))` makes the scan a while loop: it stops after the first step whose
condition is true, and its results hold only the steps it ran (`n_steps`, or the sequences'
length, is then the most it may run).
"""
from __future__ import annotations

from typing import Any

from .basic import as_tensor_variable, neq
from .graph import Variable, user_location


class until:  # noqa: N801  (Theano's name)
    """The stopping condition of a scan step: a 0-d value, true to stop after this step."""

    def __init__(self, condition: Any):
        cond = as_tensor_variable(condition)
        if cond.ndim != 0:
            raise TypeError(f"until: the condition must be a scalar (0-d), got {cond.type} ({user_location()})")
        self.condition: Variable = cond if cond.dtype == "bool" else neq(cond, 0)

    def __repr__(self) -> str:
        return f"until({self.condition})"
