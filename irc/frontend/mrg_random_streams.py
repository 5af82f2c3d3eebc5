"""`MRG_RandomStreams` (Theano's `sandbox.rng_mrg.MRG_RandomStreams`, also under
`irc.sandbox.rng_mrg`): GPU-friendly random streams with Theano's signatures, on irc's one
engine (Philox4x32-10 compiled into the function, on the CPU and the GPU alike;
`random_streams.py`). The numbers are not MRG31k3p's.

`rstate` is the seed future draws derive their states from (Theano: the MRG generator's
state), so `g2.rng.rstate = g1.rng.rstate` and copying `state_updates` make two streams draw
alike; `nstreams` is accepted and ignored (every element is its own stream)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .basic import as_tensor_variable, cast, dimshuffle, eq
from .creation import arange
from .graph import Variable
from .random_streams import RandomStreams, build_error, inverse_cdf


class MRG_RandomStreams(RandomStreams):  # noqa: N801  (Theano's name)
    """Random draws with the signatures of Theano's `MRG_RandomStreams` (default seed 12345)."""

    def __init__(self, seed: int = 12345):
        super().__init__(seed)

    @property
    def rstate(self) -> int:
        return self.default_instance_seed

    @rstate.setter
    def rstate(self, seed: int) -> None:
        self.default_instance_seed = seed

    def uniform(self, size: Any, low: Any = 0.0, high: Any = 1.0, ndim: int | None = None,  # type: ignore[override]
                dtype: str | None = None, nstreams: Any = None, **kwargs: Any) -> Variable:
        return super().uniform(size, low, high, ndim, dtype)

    def normal(self, size: Any, avg: Any = 0.0, std: Any = 1.0, ndim: int | None = None,  # type: ignore[override]
               dtype: str | None = None, nstreams: Any = None, truncate: bool = False, **kwargs: Any) -> Variable:
        if truncate:
            raise NotImplementedError(build_error("MRG_RandomStreams.normal(truncate=True) is not supported"))
        return super().normal(size, avg, std, ndim, dtype)

    def binomial(self, size: Any = None, n: Any = 1, p: Any = 0.5, ndim: int | None = None,  # type: ignore[override]
                 dtype: str = "int64", nstreams: Any = None, **kwargs: Any) -> Variable:
        return super().binomial(size, n, p, ndim, dtype)

    def choice(self, size: Any = 1, a: Any = None, replace: bool = True, p: Any = None,  # type: ignore[override]
               ndim: int | None = None, dtype: str = "int64", nstreams: Any = None, **kwargs: Any) -> Variable:
        """Indices drawn by the probabilities `p` (a vector; `a` defaults to its length)."""
        if a is None:
            if not isinstance(p, (list, tuple, np.ndarray)):
                raise ValueError(build_error("choice: give a (the number of choices) or p as a list or array"))
            a = len(p)
        return super().choice(size, a, replace, p, ndim, dtype)

    def multinomial(self, size: Any = None, n: int = 1, pvals: Any = None, ndim: int | None = None,
                    dtype: str = "int64", nstreams: Any = None, **kwargs: Any) -> Variable:
        """One draw per row of the matrix `pvals`, as a one-hot row (n = 1)."""
        if n != 1 or pvals is None:
            raise NotImplementedError(build_error("multinomial: only n=1 with a matrix pvals is supported"))
        pvals = as_tensor_variable(pvals)
        if pvals.ndim != 2:
            raise ValueError(build_error(f"multinomial: pvals must be a matrix, got {pvals.type}"))
        u, state = self._draw("uniform", [cast(pvals.shape[0], "int64")], "float64")
        index = inverse_cdf(u, pvals, pvals.shape[1] - 1)
        hot = eq(dimshuffle(arange(pvals.shape[1]), ["x", 0]), dimshuffle(index, [0, "x"]))
        return self._mark(cast(hot, dtype), state)
