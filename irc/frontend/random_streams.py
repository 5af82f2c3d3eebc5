"""`RandomStreams` (Theano's `tensor.shared_randomstreams.RandomStreams`): symbolic random
draws compiled into the function (`tensor.random`, Philox4x32-10; `irc/dialects/philox.py`).

Each draw gets its own generator state, a `RandomStateSharedVariable` (`rv.rng`) whose
`default_update` counts the draw once per call, so every call of a function draws new numbers
unless it is compiled with `no_default_updates=True`; within one call a draw is made once
(`rv + rv - 2 * rv` is zero). `seed(n)` reseeds every draw of the stream: draw j's key is
derived from (n, j), so the same seed gives the same numbers on every run and platform.

The engine draws U[0, 1) and N(0, 1); the other distributions are ordinary ops over them:
uniform `low + (high - low) u`, normal `avg + std z`, binomial `sum(u < p)` over n draws
(p outside [0, 1] gives 0 or n, as the comparison says; a constant one is refused), integers
`low + floor(u (high - low + 1))`, choice by the inverse CDF of p, permutation by `argsort` of
uniforms. Draws carry no gradient, as in Theano."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..ir.diagnostics import Diagnostic
from .basic import (add, as_tensor_variable, cast, constant, dimshuffle, floor, ge, lt, mul, reshape, size_list,
                    sub)
from .graph import Constant, Variable, user_location
from .mathops import minimum, sum as tensor_sum
from .order import argsort, cumsum
from .random_op import RandomDraw
from .random_state import RandomStateSharedVariable, fresh_seed, state_for_seed
from .tensor_type import floatX

_NEXT_DRAW = np.array([0, 0, 1], dtype=np.int64)


def build_error(message: str) -> str:
    """`message` located at the user's line (the error of a draw that cannot be built)."""
    return Diagnostic(message, user_location()).render()


def inverse_cdf(u: Variable, p: Variable, last: Any) -> Variable:
    """The choice k drawn by each uniform of `u` with the probabilities on `p`'s last axis (one
    row per element of `u`, or one vector for all): the count of F(k) <= u, F the running sum
    of p, at most `last` (rounding can leave F's end below u)."""
    cdf = cumsum(cast(p, "float64"), axis=-1)
    below = ge(dimshuffle(u, list(range(u.ndim)) + ["x"]), cdf)  # u >= F(k): past choice k
    return minimum(tensor_sum(below, axis=-1), last)


def _static(v: Any) -> Any:
    """A Python number for a constant (a number or a constant variable), else None."""
    if isinstance(v, Constant):
        return v.data.item() if v.ndim == 0 else None
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)):
        return v.item() if isinstance(v, np.generic) else v
    return None


def size_variables(size: Any, ndim: int | None, what: str) -> list[Variable]:
    """The draw's sizes as 0-d int64 variables: `size` is a tuple/list of ints and 0-d symbolic
    integers, `x.shape`, or an int; refused with the user's line when negative, not integer,
    of the wrong rank, or not matching `ndim`."""
    if isinstance(size, np.ndarray) and size.ndim == 1:
        size = size.tolist()
    if isinstance(size, Variable) and size.ndim not in (0, 1):
        raise ValueError(build_error(f"{what}: size must be a tuple of sizes or a vector, got {size.type}"))
    entries = [size] if isinstance(size, (int, np.integer)) or (isinstance(size, Variable) and size.ndim == 0) \
        else size_list(size)
    if entries is None:
        raise ValueError(build_error(f"{what}: size must be a tuple of sizes or x.shape; the vector {size} "
                                     f"has a length unknown when the graph is built"))
    if ndim is not None and ndim != len(entries):
        raise ValueError(build_error(f"{what}: ndim={ndim} but size {tuple(entries)} has {len(entries)} entries"))
    sizes = []
    for k, n in enumerate(entries):
        if isinstance(n, Variable):
            if n.ndim != 0 or not n.type.is_integer:
                raise TypeError(build_error(f"{what}: size {k} must be a 0-d integer, got {n} ({n.type})"))
            value = _static(n)
            if value is not None and value < 0:
                raise ValueError(build_error(f"{what}: size {k} is negative ({value})"))
            sizes.append(cast(n, "int64"))
            continue
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
            raise TypeError(build_error(f"{what}: size {k} must be an integer, got {n!r}"))
        if n < 0:
            raise ValueError(build_error(f"{what}: size {k} is negative ({n})"))
        sizes.append(constant(np.int64(n)))
    return sizes


def _size_or_params_shape(size: Any, params: Sequence[Any]) -> Any:
    """`size`, or (Theano's rule for size=None) the shape of the parameter with most dims."""
    if size is not None:
        return size
    tensors = [p for p in params if isinstance(p, Variable) and p.ndim > 0]
    return max(tensors, key=lambda p: p.ndim).shape if tensors else ()


def _float_dtype(dtype: str | None, params: Sequence[Any]) -> str:
    """Theano's rule: the given dtype, else floatX upcast with the float parameters' dtypes."""
    if dtype is not None:
        if np.dtype(dtype).kind != "f" or np.dtype(dtype).itemsize < 4:
            raise TypeError(build_error(f"a uniform or normal draw needs float32 or float64, got {dtype}"))
        return np.dtype(dtype).name
    dtypes = [floatX()] + [p.dtype for p in params if isinstance(p, Variable) and p.dtype.startswith("float")]
    return np.result_type(*dtypes).name


class RandomStreams:
    """A factory of random draws sharing one seed (Theano's `shared_randomstreams.RandomStreams`).

    `state_updates` lists (state, update) per draw; `seed(n)` reseeds them all."""

    def __init__(self, seed: int | None = None):
        self.default_instance_seed = fresh_seed() if seed is None else seed
        state_for_seed(self.default_instance_seed)  # refuse a bad seed now
        self.state_updates: list[tuple[RandomStateSharedVariable, Variable]] = []

    def seed(self, seed: int | None = None) -> None:
        """Reseed every draw made so far (and those to come) from `seed`."""
        seed = fresh_seed() if seed is None else seed
        for j, (state, _) in enumerate(self.state_updates):
            state.set_value(state_for_seed(seed, j))
        self.default_instance_seed = seed

    def updates(self) -> list[tuple[RandomStateSharedVariable, Variable]]:
        return list(self.state_updates)

    # -- the engine's two draws
    def _draw(self, distribution: str, sizes: list[Variable], dtype: str) -> tuple[Variable, RandomStateSharedVariable]:
        state = RandomStateSharedVariable(state_for_seed(self.default_instance_seed, len(self.state_updates)))
        state.default_update = add(state, constant(_NEXT_DRAW))
        self.state_updates.append((state, state.default_update))
        return RandomDraw(distribution, dtype)(state, *sizes), state

    @staticmethod
    def _mark(out: Variable, state: RandomStateSharedVariable) -> Variable:
        """Theano's attributes of a random variable: `rng` (its state) and `update`."""
        out.rng = state
        out.update = (state, state.default_update)
        return out

    # -- Theano's distributions
    def uniform(self, size: Any = None, low: Any = 0.0, high: Any = 1.0, ndim: int | None = None,
                dtype: str | None = None) -> Variable:
        """U[low, high) of `size` (uniform numbers with 24/53 random bits scaled)."""
        dtype = _float_dtype(dtype, (low, high))
        sizes = size_variables(_size_or_params_shape(size, (low, high)), ndim, "uniform")
        u, state = self._draw("uniform", sizes, dtype)
        if _static(low) != 0 or _static(high) != 1:
            low, high = cast(low, dtype), cast(high, dtype)
            u = add(low, mul(sub(high, low), u))
        return self._mark(u, state)

    def normal(self, size: Any = None, avg: Any = 0.0, std: Any = 1.0, ndim: int | None = None,
               dtype: str | None = None) -> Variable:
        """N(avg, std^2) of `size` (Box-Muller)."""
        dtype = _float_dtype(dtype, (avg, std))
        sizes = size_variables(_size_or_params_shape(size, (avg, std)), ndim, "normal")
        z, state = self._draw("normal", sizes, dtype)
        if _static(avg) != 0 or _static(std) != 1:
            z = add(cast(avg, dtype), mul(cast(std, dtype), z))
        return self._mark(z, state)

    def binomial(self, size: Any = None, n: Any = 1, p: Any = 0.5, ndim: int | None = None,
                 dtype: str = "int64", prob: Any = None) -> Variable:
        """The number of successes in `n` trials of probability `p` (`size` defaults to p's shape)."""
        p = p if prob is None else prob
        trials = _static(n)
        if not isinstance(trials, int) or trials < 0:
            raise ValueError(build_error(f"binomial: n must be a non-negative Python int (the number of "
                                         f"trials, known when the graph is built), got {n!r}"))
        chance = _static(p)
        if chance is not None and not 0 <= chance <= 1:
            raise ValueError(build_error(f"binomial: p={chance} is not a probability (outside [0, 1])"))
        p = as_tensor_variable(p)
        sizes = size_variables(_size_or_params_shape(size, (p,)), ndim, "binomial")
        if p.ndim > len(sizes):
            raise ValueError(build_error(f"binomial: p has {p.ndim} dims but size has {len(sizes)}"))
        u_dtype = p.dtype if p.dtype == "float64" else floatX()
        if trials == 1:
            u, state = self._draw("uniform", sizes, u_dtype)
            return self._mark(cast(lt(u, p), dtype), state)
        u, state = self._draw("uniform", sizes + [constant(np.int64(trials))], u_dtype)
        p_last = dimshuffle(p, list(range(p.ndim)) + ["x"]) if p.ndim else p
        return self._mark(cast(tensor_sum(lt(u, p_last), axis=-1), dtype), state)

    def random_integers(self, size: Any = None, low: Any = 0, high: Any = 1, ndim: int | None = None,
                        dtype: str = "int64") -> Variable:
        """Integers uniform in [low, high] (both included)."""
        sizes = size_variables(_size_or_params_shape(size, (low, high)), ndim, "random_integers")
        u, state = self._draw("uniform", sizes, "float64")
        low, high = cast(low, "float64"), cast(high, "float64")
        return self._mark(cast(add(low, floor(mul(u, add(sub(high, low), 1.0)))), dtype), state)

    def choice(self, size: Any = (), a: Any = 2, replace: bool = True, p: Any = None, ndim: int | None = None,
               dtype: str = "int64") -> Variable:
        """Indices in [0, a): uniform, or by the probabilities `p` (a vector of a); without
        replacement: the first prod(size) of a random permutation (static size, no p)."""
        count = _static(a)
        if not isinstance(count, int) or count <= 0:
            raise ValueError(build_error(f"choice: a must be a positive Python int (choices are indices "
                                         f"0..a-1), got {a!r}"))
        if not replace:
            static = [_static(s) for s in size_variables(size, ndim, "choice")]
            if p is not None or any(s is None for s in static):
                raise NotImplementedError(build_error("choice without replacement needs a static size and no p"))
            k = int(np.prod(static, dtype=np.int64))
            if k > count:
                raise ValueError(build_error(f"choice: cannot take {k} of {count} without replacement"))
            order = self.permutation((), count, dtype=dtype)
            return self._mark(reshape(order[:k], tuple(static)), order.rng)
        sizes = size_variables(size, ndim, "choice")
        u, state = self._draw("uniform", sizes, "float64")
        if p is None:
            return self._mark(cast(floor(mul(u, float(count))), dtype), state)
        p = as_tensor_variable(p)
        if p.ndim != 1:
            raise ValueError(build_error(f"choice: p must be a vector of {count} probabilities, got {p.type}"))
        return self._mark(cast(inverse_cdf(u, p, np.int64(count - 1)), dtype), state)

    def permutation(self, size: Any = (), n: Any = 1, ndim: int | None = None, dtype: str = "int64") -> Variable:
        """A random permutation of 0..n-1 for every entry of `size` (shape size + (n,))."""
        sizes = size_variables(size, ndim, "permutation") + size_variables((n,), None, "permutation")
        u, state = self._draw("uniform", sizes, "float64")
        return self._mark(cast(argsort(u, axis=-1), dtype), state)
