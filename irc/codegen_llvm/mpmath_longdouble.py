"""mpmath values as np.longdouble in bulk (the float64 ulp references, tests and tools only).

Formatting each value as a 25-digit string and parsing it back cost ~4 µs a value and rounded
twice; reading the mantissa and exponent off the value's `_mpf_` tuple rounds it once, to
nearest, and the scaling by the exponent is one vectorized `np.ldexp` over the array.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

_BITS = 64  # np.longdouble's mantissa on x86-64 (x87 extended precision)


def to_longdouble(values: Sequence) -> np.ndarray:
    """`values` (mpmath `mpf`s) rounded to nearest np.longdouble; zeros, infinities and NaNs as
    they are (mpmath has no negative zero)."""
    n = len(values)
    mantissas = np.zeros(n, dtype=np.uint64)
    exponents = np.zeros(n, dtype=np.int64)
    negative = np.zeros(n, dtype=bool)
    special: dict[int, float] = {}
    for i, value in enumerate(values):
        sign, man, exp, bc = value._mpf_
        if not man:  # zero, inf, -inf or nan
            special[i] = float(value)
            continue
        shift = bc - _BITS
        if shift > 0:
            rounded = (man >> shift) + ((man >> (shift - 1)) & 1)
            if rounded >> _BITS:  # rounding carried into a 65th bit
                rounded >>= 1
                shift += 1
            man, exp = rounded, exp + shift
        mantissas[i], exponents[i], negative[i] = man, exp, sign
    out = np.ldexp(mantissas.astype(np.longdouble), exponents)
    out[negative] = -out[negative]
    for i, value in special.items():
        out[i] = value
    return out
