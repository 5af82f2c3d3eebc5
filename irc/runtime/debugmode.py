"""DebugMode: run the optimized and the unoptimized function side by side and compare.

A mismatch beyond the dtype's tolerance names the output (or the shared variable whose update
differs), so a wrong rewrite is caught on the user's own data. Where the unoptimized result
is not finite and the optimized one is (a stabilizing rewrite did its job), that is no error.
User ops check, while DebugMode runs them, that they changed no input they did not declare in
`destroy_map` (Theano's DebugMode did the same)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..dialects.tensor_custom import checking_inputs
from .errors import OutputMismatchError
from .promote import as_f64, needs_promotion, promote_to_f64
from .reference import ReferenceExecutor
from .segments import user_ops

# dtype -> (rtol, atol)
TOLERANCES: dict[str, tuple[float, float]] = {
    "float16": (1e-2, 1e-3),
    "float32": (1e-4, 1e-5),
    "float64": (1e-10, 1e-10),
    "complex64": (1e-4, 1e-5),  # (as their parts' floats)
    "complex128": (1e-10, 1e-10),
}


def compare(label: str, got: Any, expected: Any, truth: Any = None) -> None:
    """Raise `OutputMismatchError` naming `label` when `got` and `expected` differ; with
    `truth` (a float64 evaluation), elements where `got` is within tolerance of it pass."""
    got, expected = np.asarray(got), np.asarray(expected)
    if got.shape != expected.shape:
        raise OutputMismatchError(f"DebugMode: {label}: shape {got.shape} after optimization, "
                                  f"{expected.shape} before")
    if got.dtype != expected.dtype:
        raise OutputMismatchError(f"DebugMode: {label}: dtype {got.dtype} after optimization, "
                                  f"{expected.dtype} before")
    tol = TOLERANCES.get(got.dtype.name)
    if tol is None:
        bad = got != expected
    else:
        rtol, atol = tol
        finite = np.isfinite(expected)
        close = np.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
        bad = finite & ~close
        if truth is not None and np.any(bad):
            truth = np.asarray(truth)
            bad &= ~np.isclose(got.astype("complex128" if got.dtype.kind == "c" else "float64"), truth, rtol=rtol, atol=atol, equal_nan=True)
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0]) if got.ndim else ()
        raise OutputMismatchError(
            f"DebugMode: {label} differs after optimization: at index {idx} got "
            f"{got[idx] if got.ndim else got} but the unoptimized function gives "
            f"{expected[idx] if expected.ndim else expected} "
            f"({int(np.count_nonzero(bad))} of {bad.size} elements differ; "
            f"tolerance rtol={tol[0] if tol else 0}, atol={tol[1] if tol else 0})")


class DebugExecutor:
    """Runs `checked` (what the user gets) and `reference` on the same arguments, compares.

    `arbiter` (the unoptimized function in float64) settles float16/32 disagreements: an
    optimized result that is within tolerance of it is right, whatever the float32 reference
    says (stabilizing rewrites are more accurate than the formula they replace)."""

    def __init__(self, checked: Any, reference: Any, labels: Sequence[str], arbiter: Any = None):
        self.checked = checked
        self.reference = reference
        self.arbiter = arbiter
        self.labels = list(labels)
        self.constants = getattr(checked, "constants", {})

    def run(self, args: Sequence[Any], hook: Any = None) -> list:
        with checking_inputs():  # a user op that overwrites an input undeclared fails, named
            got = self.checked.run(args, hook=hook) if hook is not None else self.checked.run(args)
            expected = self.reference.run(args)
        truth: list[Any] | None = None
        for i, (label, g, e) in enumerate(zip(self.labels, got, expected)):
            try:
                compare(label, g, e)
            except OutputMismatchError:
                if self.arbiter is None or np.asarray(g).dtype.kind != "f":
                    raise
                if truth is None:
                    truth = self.arbiter.run(as_f64(list(args)))
                compare(label, g, e, truth[i])
        return got


def debug_executor(checked: Any, unoptimized: Any, labels: Sequence[str]) -> DebugExecutor:
    """`checked` compared with the unoptimized module's (only) function, run op by op (and,
    for float16/32, its float64 twin as the arbiter); `labels` name the results."""
    reference = ReferenceExecutor(unoptimized.regions[0].blocks[0].ops[0], allow_gc=True)
    arbiter = None
    if needs_promotion(unoptimized) and not user_ops(unoptimized):  # a user op's types are its own
        arbiter = ReferenceExecutor(promote_to_f64(unoptimized).regions[0].blocks[0].ops[0])
    return DebugExecutor(checked, reference, labels, arbiter)
