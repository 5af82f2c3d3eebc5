"""Theano 1.0's names that the Deep Learning Tutorials use, on PyTensor: the reference backend
of tools/dlt_tutorials.py. PyTensor kept most of them; this package adds back what it dropped
or renamed (`Param`, `tensor.nnet`, `tensor.signal`, `shared_randomstreams`,
`sandbox.rng_mrg`) with Theano's meaning, written on PyTensor's own ops, and Theano's truth
of a variable (PyTensor refuses `if not W:`, which the tutorials write)."""
import pytensor
from pytensor import In, Out, config, function, grad, scan, shared  # noqa: F401
from pytensor.tensor.variable import TensorVariable

from . import sandbox, tensor  # noqa: F401


def _theano_truth(variable):
    """Theano 1.0: every variable is true (`if not W:` tests for None); PyTensor raises."""
    return True


TensorVariable.__bool__ = _theano_truth


def Param(variable, default=None, name=None, mutable=False, strict=False,
          allow_downcast=None, implicit=None, borrow=None):
    """Theano's old spelling of `In(variable, value=default)`."""
    return pytensor.In(variable, value=default, name=name, mutable=mutable, strict=strict,
                       allow_downcast=allow_downcast, implicit=implicit, borrow=borrow)


def __getattr__(name):
    return getattr(pytensor, name)
