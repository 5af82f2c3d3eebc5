"""Theano's test tolerances (`theano.tensor.basic._allclose`, `_get_atol_rtol`): private helpers
of Theano's tests, not user API, so the harness supplies them for every backend alike.

The values are Theano's defaults (`config.tensor.cmp_sloppy = 0`): float16 1e-3/1e-3,
float32 (and complex64) 1e-5/1e-5, float64 numpy's 1e-8/1e-5 (atol/rtol).
"""
from __future__ import annotations

import numpy as np

TOLERANCES = {"tiny": (1e-3, 1e-3), "narrow": (1e-5, 1e-5), "wide": (1e-8, 1e-5)}


def _get_atol_rtol(a, b) -> tuple[float, float]:
    dtypes = {str(np.asarray(a).dtype), str(np.asarray(b).dtype)}
    if "float16" in dtypes:
        return TOLERANCES["tiny"]
    if dtypes & {"float32", "complex64"}:
        return TOLERANCES["narrow"]
    return TOLERANCES["wide"]


def _allclose(a, b, rtol=None, atol=None) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    default_atol, default_rtol = _get_atol_rtol(a, b)
    return bool(np.allclose(a, b, atol=default_atol if atol is None else atol,
                            rtol=default_rtol if rtol is None else rtol))


HELPERS = {"theano.tensor.basic": {"_allclose": _allclose, "_get_atol_rtol": _get_atol_rtol},
           "theano.tensor": {"_allclose": _allclose}}
