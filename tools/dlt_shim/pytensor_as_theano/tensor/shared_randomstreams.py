"""Theano's `RandomStreams(seed)` on PyTensor's `RandomStream`: Theano's argument order (size
first) and `dtype=`; the generators' updates are their shared states' default updates, which
`function` and `scan` apply as Theano's did."""
from pytensor.tensor.random.utils import RandomStream


class RandomStreams:
    def __init__(self, seed=None):
        self._stream = RandomStream(seed)

    def binomial(self, size=None, n=1, p=0.5, ndim=None, dtype="int64", nstreams=None, **kwargs):
        return self._stream.binomial(n, p, size=size).astype(dtype)

    def uniform(self, size=None, low=0.0, high=1.0, ndim=None, dtype=None, nstreams=None, **kwargs):
        out = self._stream.uniform(low, high, size=size)
        return out.astype(dtype) if dtype else out

    def normal(self, size=None, avg=0.0, std=1.0, ndim=None, dtype=None, nstreams=None, **kwargs):
        out = self._stream.normal(avg, std, size=size)
        return out.astype(dtype) if dtype else out
