"""The kinds of reduction the loop lowerings share (`reduce.py`, `fused_matvec.py`,
`softmax.py`): the scalar op that combines two partial results, and the neutral element."""
from __future__ import annotations

import numpy as np

from ...ir.types import ScalarType

COMBINE = {"sum": "add", "prod": "mul", "max": "maximum", "min": "minimum"}


def identity(kind: str, t: ScalarType):
    """The neutral element of a reduction (numpy's result for an empty sum/prod)."""
    if kind == "sum":
        return 0
    if kind == "prod":
        return 1
    if t.is_bool:
        return kind == "min"
    if t.is_float:
        return float("-inf") if kind == "max" else float("inf")
    info = np.iinfo(t.numpy_name)
    return int(info.min) if kind == "max" else int(info.max)
