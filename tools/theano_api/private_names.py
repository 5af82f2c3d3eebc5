"""Names of Theano's internals that its test files read outside any test (at import, in a
class body) or through its test helpers, supplied by the harness for every backend alike so
that the files import: the test tolerances (`theano.tensor.basic._allclose`, `_get_atol_rtol`),
`theano._asarray`, and the dtype lists of `theano.scalar` (tests that name `theano.scalar` are
out by the rule).

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


_INT = ["int8", "int16", "int32", "int64"]
_UINT = ["uint8", "uint16", "uint32", "uint64"]
_FLOAT = ["float16", "float32", "float64"]
_COMPLEX = ["complex64", "complex128"]
SCALAR_TYPES = {"int_types": _INT, "uint_types": _UINT, "float_types": _FLOAT, "complex_types": _COMPLEX,
                "integer_types": _INT + _UINT, "discrete_types": ["bool"] + _INT + _UINT,
                "continuous_types": _FLOAT + _COMPLEX, "all_types": ["bool"] + _INT + _UINT + _FLOAT + _COMPLEX}

def _asarray(a, dtype, order=None) -> np.ndarray:
    """Theano's `theano._asarray` (misc/safe_asarray.py): `np.asarray` with the dtype by name."""
    return np.asarray(a, dtype=np.dtype(dtype), order=order)


HELPERS = {"theano": {"_asarray": _asarray},
           "theano.tensor.basic": {"_allclose": _allclose, "_get_atol_rtol": _get_atol_rtol},
           "theano.tensor": {"_allclose": _allclose},
           "theano.scalar": SCALAR_TYPES}
