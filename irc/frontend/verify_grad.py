"""`verify_grad` (Theano's `theano.gradient.verify_grad`): checks a symbolic gradient against
finite differences, the way Theano's own tests check every op's `grad`.

The output of `fun` is projected on a random direction `u` (entries in [0.5, 1.5), so no
entry hides an error) to a scalar cost `sum(u * fun(x))`; the gradient `T.grad` builds for
that cost is compared, element by element, with one-sided finite differences of the compiled
cost. An element fails only when both its absolute and its relative error exceed their
tolerances (per dtype: float64 1e-4, float32 1e-2, float16 5e-2); the first failure raises
`verify_grad.E_grad` (`GradientError`), naming the argument, the position and both values."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .basic import as_tensor_variable
from .mathops import sum as tensor_sum
from .function import function
from .grad import grad
from .shared import shared
from .tensor_type import TensorType

# finite-difference step per dtype: small enough for a smooth function's bias, large enough
# that rounding in f(x + eps) - f(x) leaves enough digits
STEP = {"float64": 1e-7, "float32": 3e-4, "float16": 1e-1}
# the default absolute and relative tolerances, per dtype (the loosest of the inputs' wins)
TOLERANCE = {"float64": 1e-4, "float32": 1e-2, "float16": 5e-2}
# Theano's test helper seeds its generator when none is given; so does verify_grad here
DEFAULT_SEED = 666


class GradientError(Exception):
    """The analytic gradient and the finite-difference estimate disagree beyond tolerance at
    position `err_pos` (flat) of argument `arg`: `val1` analytic, `val2` numeric."""

    def __init__(self, arg: int, err_pos: int, shape: tuple, val1: float, val2: float,
                 abs_err: float, rel_err: float, abs_tol: float, rel_tol: float):
        super().__init__()
        self.arg, self.err_pos, self.shape = arg, err_pos, shape
        self.val1, self.val2 = val1, val2
        self.abs_err, self.rel_err = abs_err, rel_err
        self.abs_tol, self.rel_tol = abs_tol, rel_tol

    def __str__(self) -> str:
        extra = f"\nException args: {', '.join(str(a) for a in self.args)}" if self.args else ""
        return (f"GradientError: numeric gradient and analytic gradient exceed tolerance:\n"
                f"        At position {self.err_pos} of argument {self.arg} with shape {self.shape},\n"
                f"            val1 = {self.val1:f}      ,  val2 = {self.val2:f}\n"
                f"            abs. error = {self.abs_err:f},  abs. tolerance = {self.abs_tol:f}\n"
                f"            rel. error = {self.rel_err:f},  rel. tolerance = {self.rel_tol:f}{extra}")


class numeric_grad:  # noqa: N801  (Theano's name)
    """The gradient of a scalar function `f(*pt)` at `pt` by one-sided finite differences:
    `gf` holds one array per argument (a single array if `pt` was one). All arguments are
    perturbed in the most precise dtype among them; `eps` defaults to the largest step of
    their dtypes (`STEP`)."""

    type_eps = STEP

    def __init__(self, f: Callable[..., Any], pt: Any, eps: float | None = None,
                 out_type: str | None = None):
        single = not isinstance(pt, (list, tuple))
        points = [np.array(p) for p in ([pt] if single else pt)]
        dtypes = [str(p.dtype) for p in points]
        for i, dt in enumerate(dtypes):
            if dt not in STEP:
                raise TypeError(f"numeric_grad: argument {i} has dtype {dt}; finite differences "
                                f"need float16, float32 or float64 values")
        if out_type is not None and str(out_type).startswith("complex"):
            raise NotImplementedError("numeric_grad: complex outputs are not supported (irc has "
                                      "no complex dtypes)")
        working = min(dtypes, key=lambda dt: STEP[dt])  # the most precise one
        step = eps if eps is not None else max(STEP[dt] for dt in dtypes)
        sizes = [p.size for p in points]
        flat = np.concatenate([p.ravel().astype(working) for p in points]) if points else np.zeros(0)
        bounds = np.cumsum([0] + sizes)
        views = [flat[bounds[k]:bounds[k + 1]].reshape(p.shape) for k, p in enumerate(points)]
        f_x = f(*[v.copy() for v in views])
        origin = flat.copy()
        grads = np.empty(flat.size, dtype=working)
        for i in range(flat.size):
            flat[:] = origin
            flat[i] += step
            grads[i] = (f(*[v.copy() for v in views]) - f_x) / step
        self.gf = [grads[bounds[k]:bounds[k + 1]].reshape(p.shape) for k, p in enumerate(points)]
        if single:
            self.gf = self.gf[0]

    @staticmethod
    def abs_rel_err(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
        """|a - b| and |a - b| / max(|a| + |b|, 1e-8) (the floor keeps two zeros at zero)."""
        abs_err = np.abs(np.asarray(a) - np.asarray(b))
        rel_err = abs_err / np.maximum(np.abs(a) + np.abs(b), np.float64(1e-8))
        return np.asarray(abs_err), np.asarray(rel_err)

    def abs_rel_errors(self, g_pt: Sequence[Any]) -> list[tuple[np.ndarray, np.ndarray]]:
        """(absolute, relative) error of each array of `g_pt` against `gf`."""
        gf = self.gf if isinstance(self.gf, list) else [self.gf]
        if len(g_pt) != len(gf):
            raise ValueError(f"numeric_grad: {len(g_pt)} gradient(s) given for {len(gf)} argument(s)")
        errors = []
        for i, (a, b) in enumerate(zip(g_pt, gf)):
            if np.shape(a) != b.shape:
                raise ValueError(f"numeric_grad: gradient {i} has shape {np.shape(a)}, the argument "
                                 f"has shape {b.shape}")
            errors.append(self.abs_rel_err(a, b))
        return errors

    def max_err(self, g_pt: Sequence[Any], abs_tol: float, rel_tol: float) -> tuple[int, int, float, float]:
        """(argument, flat position, absolute error, relative error) of the element that exceeds
        its tolerances the most (min(abs/abs_tol, rel/rel_tol), so > 1 means both are exceeded)."""
        worst: tuple[float, int, int, float, float] | None = None
        for arg, (abs_err, rel_err) in enumerate(self.abs_rel_errors(g_pt)):
            if not (np.all(np.isfinite(abs_err)) and np.all(np.isfinite(rel_err))):
                raise ValueError(f"numeric_grad: the error of argument {arg}'s gradient is not finite "
                                 f"(a NaN or inf in the analytic or the numeric gradient): {abs_err!r}")
            if abs_err.size == 0:
                continue
            scaled = np.minimum(abs_err / abs_tol, rel_err / rel_tol).ravel()
            pos = int(scaled.argmax())
            if worst is None or scaled[pos] > worst[0]:
                worst = (float(scaled[pos]), arg, pos, float(abs_err.ravel()[pos]), float(rel_err.ravel()[pos]))
        if worst is None:
            return 0, 0, 0.0, 0.0
        return worst[1], worst[2], worst[3], worst[4]


def _cost_mode(mode: Any, no_debug_ref: bool) -> Any:
    """The mode for the cost, called once per element: never a slow one unless asked."""
    if no_debug_ref and mode in ("FAST_COMPILE", "DebugMode"):
        return "FAST_RUN"
    return mode


def verify_grad(fun: Callable[..., Any], pt: Sequence[Any], n_tests: int = 2, rng: Any = None,
                eps: float | None = None, out_type: str | None = None, abs_tol: float | None = None,
                rel_tol: float | None = None, mode: Any = None, cast_to_output_type: bool = False,
                no_debug_ref: bool = True) -> None:
    """Raise `verify_grad.E_grad` if the gradient of `sum(u * fun(*inputs))` for random `u`
    differs from finite differences at the point `pt` (a list of float arrays, one per input
    of `fun`), in any of `n_tests` projections. `rng` (a `numpy.random.RandomState`) draws `u`:
    None seeds one. `eps` is the finite-difference step (default per dtype); `abs_tol` and
    `rel_tol` the tolerances (default per dtype); `mode` compiles the functions (the cost's is
    never DebugMode or FAST_COMPILE while `no_debug_ref`); `cast_to_output_type` draws `u` in
    the output's float32 instead of float64."""
    if not isinstance(pt, (list, tuple)):
        raise TypeError(f"verify_grad: pt must be a list of arrays (one per input of fun), got "
                        f"{type(pt).__name__}")
    points = [np.array(p) for p in pt]
    for i, p in enumerate(points):
        if str(p.dtype) not in TOLERANCE:
            raise TypeError(f"verify_grad can work only with floating point inputs, but input {i} "
                            f"has dtype \"{p.dtype}\"")
    if abs_tol is None:
        abs_tol = max(TOLERANCE[str(p.dtype)] for p in points)
    if rel_tol is None:
        rel_tol = max(TOLERANCE[str(p.dtype)] for p in points)
    if rng is None:
        rng = np.random.RandomState(DEFAULT_SEED)

    def compile_(inputs: list, output: Any, name: str, fn_mode: Any = mode) -> Any:
        # inputs may be cast down: the numeric gradient works in the inputs' most precise dtype
        return function(inputs, output, accept_inplace=True, allow_input_downcast=True, mode=fn_mode,
                        on_unused_input="ignore", name=name)

    inputs = [TensorType(str(p.dtype), tuple(n == 1 for n in p.shape))(name=f"input {i}")
              for i, p in enumerate(points)]
    output = fun(*inputs)
    if isinstance(output, (list, tuple)):
        raise NotImplementedError("verify_grad: fun returned several outputs; it checks one "
                                  "(project them yourself into one output)")
    output = as_tensor_variable(output)
    forward = compile_(inputs, output, "gradient.py fwd")(*[p.copy() for p in points])

    def projection() -> np.ndarray:
        u = rng.rand(*np.shape(forward)) + 0.5
        return u.astype(output.dtype) if cast_to_output_type and output.dtype == "float32" else u

    direction = shared(projection(), name="random_projection", borrow=True)
    cost = tensor_sum(direction * output)
    cost_fn = compile_(inputs, cost, "gradient.py cost", _cost_mode(mode, no_debug_ref))
    grad_fn = compile_(inputs, grad(cost, inputs, disconnected_inputs="ignore"), "gradient.py symbolic grad")
    for test in range(n_tests):
        try:
            numeric = numeric_grad(cost_fn, [p.copy() for p in points], eps, out_type)
            analytic = grad_fn(*[p.copy() for p in points])
            arg, pos, abs_err, rel_err = numeric.max_err(analytic, abs_tol, rel_tol)
            if abs_err > abs_tol and rel_err > rel_tol:
                raise GradientError(arg, pos, analytic[arg].shape, float(analytic[arg].ravel()[pos]),
                                    float(numeric.gf[arg].ravel()[pos]), abs_err, rel_err, abs_tol, rel_tol)
            if test < n_tests - 1:
                direction.set_value(projection(), borrow=True)
        except Exception as e:
            e.args += ("\nThe error happened with the following inputs:", points,
                       "\nThe value of eps is:", eps, "\nThe out_type is:", out_type)
            raise


verify_grad.E_grad = GradientError  # type: ignore[attr-defined]  (Theano's spelling)
