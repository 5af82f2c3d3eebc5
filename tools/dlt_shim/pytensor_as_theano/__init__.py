"""Theano 1.0's names that the Deep Learning Tutorials use, on PyTensor: the reference backend
of tools/dlt_tutorials.py. PyTensor kept most of them; this package adds back what it dropped
or renamed (`Param`, `tensor.nnet`, `tensor.signal`, `shared_randomstreams`,
`sandbox.rng_mrg`) with Theano's meaning, written on PyTensor's own ops."""
import pytensor
from pytensor import In, Out, config, function, grad, scan, shared  # noqa: F401

from . import sandbox, tensor  # noqa: F401


def Param(variable, default=None, name=None, mutable=False, strict=False,
          allow_downcast=None, implicit=None, borrow=None):
    """Theano's old spelling of `In(variable, value=default)`."""
    return pytensor.In(variable, value=default, name=name, mutable=mutable, strict=strict,
                       allow_downcast=allow_downcast, implicit=implicit, borrow=borrow)


def __getattr__(name):
    return getattr(pytensor, name)
