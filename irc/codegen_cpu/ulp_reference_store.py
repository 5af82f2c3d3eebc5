"""The ulp tests' references stored in files (tests and tools only): mpmath at 30 digits costs
10-60 µs a value (the float64 results), the elementwise table's float64 references in Python
1-2 µs (the float32 results), and the sweeps check ~900,000 (float64) and ~3,500,000 (float32)
values a function on every run.

A stored reference is kept as its distance from a cheap float64 prediction, the mathlib's own
float64 kernel (fast, within a few ulps; the file's digest pins its values, so the prediction
only compresses: the values come back exactly either way): `k`, the steps from the prediction to
the reference rounded to float64 (int8, nearly always -1, 0 or 1), and `q`, the rest in
1/4096ths of that float64's ulp (int16; np.longdouble, the float64 results' reference, has 11
more bits; 0 for the float32 results' float64 reference). Values this cannot hold exactly
(denormal, far from the prediction) are stored as text. Rebuilt, the values are the reference
bit for bit; `load` checks that the file was made from the same sample values and proves it on
randomly chosen ones against the reference itself. Remade by `python tools/make_ulp_references.py`.
"""
from __future__ import annotations

import functools
import hashlib
import os
import warnings
from pathlib import Path
from typing import Callable

import numpy as np

from ..codegen_llvm.mathlib import ARITY, MATH_EMITTERS
from ..codegen_llvm.mathlib_ulp import one_at_a_time, reference, sample_sets, uniform
from ..codegen_llvm.mathlib_ulp import wide as wide_dtype
from .mathlib_jit import compile_kernel

REMAKE = "python tools/make_ulp_references.py"
REMAKE_VARIABLE = "IRC_REMAKE_REFERENCES"  # set (to 1): `values` computes and stores instead of loading
# The sweeps whose references are slow (mpmath; the table's Python), and their sizes (the
# random-bits set; the focused sets add n/4 each): test_mathlib.py's
STORED = {"float64": ("erf", "erfc", "gammaln", "psi", "erfinv", "erfcinv", "gamma", "erfcx"),
          "float32": ("psi", "erfinv", "erfcinv", "erfcx")}  # (the rest take ~1 s each)
SWEEP_SIZE = {"float32": 2_000_000, "float64": 500_000}
# test_mathlib.py's checks of these at negative arguments (the reflection formula) in float64:
# mpmath on ~40,000 values each
NEGATIVE = ("gammaln", "psi")
FOLDER = Path(__file__).resolve().parents[2] / "tests" / "codegen_cpu" / "ulp_references"
_UNIT_BITS = 12  # q counts 2^-12 ulps of the float64 value: the reference's 64-bit mantissa
_SIGN = np.int64(0x7FFFFFFFFFFFFFFF)


class StaleReferenceError(AssertionError):
    """A stored reference that is missing or does not match the samples or the reference."""


def stored(name: str, dtype) -> bool:
    return name in STORED.get(np.dtype(dtype).name, ())


def sweep_values(name: str, dtype) -> tuple[list[tuple[str, tuple]], np.ndarray]:
    """The sweep's labelled sample sets of `name` in `dtype` and all their values in one array."""
    dtype = np.dtype(dtype)
    sets = sample_sets(name, dtype, SWEEP_SIZE[dtype.name])
    return sets, np.concatenate([xs[0] for _, xs in sets])


def sweep_file(name: str, dtype) -> Path:
    """The file of `name`'s sweep in `dtype`."""
    return FOLDER / f"{name}-{np.dtype(dtype).name}-sweep.npz"


def negative_values(dtype) -> np.ndarray:
    """The negative arguments test_mathlib.py checks the reflection formula on: non-integers
    in (-30, 0)."""
    x = uniform(dtype, -30, 0, 40_000, 5)
    return x[x != np.rint(x)]


def negative_file(name: str) -> Path:
    """The file of `name`'s float64 references at `negative_values`."""
    return FOLDER / f"{name}-float64-negative.npz"


def digest(values: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()


@functools.lru_cache(maxsize=None)
def _float64_kernel(name: str) -> Callable:
    return compile_kernel(MATH_EMITTERS[name], np.float64, ARITY[name], 4)[0]


def prediction(name: str, x: np.ndarray) -> np.ndarray:
    """The mathlib's float64 kernel at x: within a few float64 ulps of the reference nearly
    everywhere, in microseconds for a million values."""
    with np.errstate(all="ignore"):
        return _float64_kernel(name)(x.astype(np.float64))


def full_reference(name: str, x: np.ndarray) -> np.ndarray:
    """The reference itself (mathlib_ulp.reference: float64 for float32 x, np.longdouble through
    mpmath for float64 x)."""
    return reference(name, x)


def _order(v: np.ndarray) -> np.ndarray:
    """float64 bits as integers in the floats' order (-0.0 and 0.0 both 0)."""
    bits = v.view(np.int64)
    return np.where(bits < 0, -(bits & _SIGN), bits)


def _from_order(o: np.ndarray) -> np.ndarray:
    return np.where(o < 0, (-o) | ~_SIGN, o).astype(np.int64).view(np.float64)


def _unit(hi: np.ndarray) -> np.ndarray:
    """2^-12 of hi's ulp (its binade's), np.longdouble."""
    _, e = np.frexp(np.abs(hi))
    return np.ldexp(np.ones(hi.shape, np.longdouble), e - 53 - _UNIT_BITS)


def _rebuild(fast: np.ndarray, k: np.ndarray, q: np.ndarray, dtype) -> np.ndarray:
    with np.errstate(all="ignore"):
        hi = _from_order(_order(fast) + k.astype(np.int64))
        return (hi.astype(np.longdouble) + q.astype(np.longdouble) * _unit(hi)).astype(dtype)


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Bit for bit, but any NaN equals any NaN."""
    return ((a == b) & (np.signbit(a) == np.signbit(b))) | (np.isnan(a) & np.isnan(b))


def encode(name: str, x: np.ndarray, ref: np.ndarray) -> dict[str, np.ndarray]:
    """The arrays of a stored reference `ref` (float64 or np.longdouble) of `name` at `x`."""
    fast = prediction(name, x)
    with np.errstate(all="ignore"):
        hi = ref.astype(np.float64)
        k = _order(hi) - _order(fast)
        q = np.rint((ref.astype(np.longdouble) - hi.astype(np.longdouble)) / _unit(hi))
    fits = np.isfinite(fast) & np.isfinite(hi) & (np.abs(k) <= 127) & (np.abs(q) <= 32767)
    k, q = np.where(fits, k, 0).astype(np.int8), np.where(fits, q, 0).astype(np.int16)
    rest = np.flatnonzero(~_same(_rebuild(fast, k, q, ref.dtype), ref))
    return {"x_digest": np.array(digest(x)), "fast_digest": np.array(digest(fast)), "k": k, "q": q,
            "rest_index": rest.astype(np.int64), "rest_value": np.array([np.format_float_scientific(v, unique=True) for v in ref[rest]])}


def save(path: Path, name: str, x: np.ndarray) -> dict[str, np.ndarray]:
    """Compute `name`'s reference at `x` (slow) and store it in `path` (.npz): the elements the
    reference computes one by one (`one_at_a_time`; it takes the rest vectorized, as `load` does)."""
    slow = x[one_at_a_time(name, x)]
    arrays = {**encode(name, slow, full_reference(name, slow)), "x_digest": np.array(digest(x))}
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)
    return arrays


def load(path: Path, name: str, x: np.ndarray, spot_checks: int = 20) -> np.ndarray:
    """`name`'s reference at `x` from `path`: the file must have been made from these very
    values, and `spot_checks` of them, drawn anew each run, are computed again and must agree
    bit for bit. Raises StaleReferenceError (saying how to remake it) otherwise. Where the
    prediction differs from the file's (the mathlib's float64 kernel changed), every value is
    computed instead, with a warning (correct, slow)."""
    if not path.exists():
        raise StaleReferenceError(f"{path} is missing: make it with `{REMAKE}`")
    with np.load(path) as stored:
        arrays = {key: stored[key] for key in stored.files}
    if str(arrays["x_digest"]) != digest(x):
        raise StaleReferenceError(f"{path} was made from other sample values than {name}'s "
                                  f"sample sets now draw: remake it with `{REMAKE}`")
    one_by_one = one_at_a_time(name, x)
    slow = x[one_by_one]
    fast = prediction(name, slow)
    if str(arrays["fast_digest"]) != digest(fast):
        warnings.warn(f"{path} was made with another float64 kernel of {name} (its prediction): every "
                      f"value computed instead; remake the files with `{REMAKE}`", stacklevel=2)
        return full_reference(name, x)
    wide = np.dtype(wide_dtype(x.dtype))
    stored = _rebuild(fast, arrays["k"], arrays["q"], wide)
    stored[arrays["rest_index"]] = np.array([wide.type(v) for v in arrays["rest_value"]], wide)
    picks = np.random.default_rng().choice(slow.size, size=min(spot_checks, slow.size), replace=False)
    want = full_reference(name, slow[picks])
    bad = ~_same(stored[picks], want)
    if bad.any():
        i = picks[bad][0]
        raise StaleReferenceError(f"{path}: {name}({slow[i]!r}) is stored as {stored[i]!r} but the reference "
                                  f"gives {want[bad][0]!r}: remake it with `{REMAKE}`")
    ref = np.empty(x.shape, wide)
    ref[one_by_one] = stored
    ref[~one_by_one] = full_reference(name, x[~one_by_one])  # vectorized
    return ref


def values(path: Path, fn: Callable[..., float], *inputs: np.ndarray, spot_checks: int = 20) -> np.ndarray:
    """`fn` (a float64 reference, e.g. mpmath's, rounded to float) at every element of `inputs`,
    from `path` (.npz): made from these very inputs (else StaleReferenceError), and `spot_checks`
    elements, drawn anew each run, computed again must agree bit for bit. With
    IRC_REMAKE_REFERENCES=1 every element is computed and the file written instead."""
    inputs = tuple(np.asarray(a, dtype=np.float64) for a in inputs)
    key = digest(np.stack(inputs)) if inputs[0].size else digest(np.zeros(0))

    def compute(index: np.ndarray) -> np.ndarray:
        return np.array([fn(*(float(a[i]) for a in inputs)) for i in index.tolist()], dtype=np.float64)

    if os.environ.get(REMAKE_VARIABLE) == "1":
        out = compute(np.arange(inputs[0].size))
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, x_digest=np.array(key), values=out)
        return out
    if not path.exists():
        raise StaleReferenceError(f"{path} is missing: make it with `{REMAKE}`")
    with np.load(path) as stored:
        made_from, out = str(stored["x_digest"]), stored["values"]
    if made_from != key:
        raise StaleReferenceError(f"{path} was made from other sample values than the test draws now: "
                                  f"remake it with `{REMAKE}`")
    picks = np.random.default_rng().choice(out.size, size=min(spot_checks, out.size), replace=False)
    bad = ~_same(out[picks], compute(picks))
    if bad.any():
        i = int(picks[bad][0])
        raise StaleReferenceError(f"{path}: the value stored at {[float(a[i]) for a in inputs]} is {out[i]!r}, "
                                  f"computed again {compute(np.array([i]))[0]!r}: remake it with `{REMAKE}`")
    return out
