"""Theano 1.0's names that the Deep Learning Tutorials use, on PyTensor: the reference backend
of tools/dlt_tutorials.py. PyTensor kept most of them; this package adds back what it dropped
or renamed (`Param`, `tensor.nnet`, `tensor.signal`, `shared_randomstreams`,
`sandbox.rng_mrg`) with Theano's meaning, written on PyTensor's own ops, and Theano's truth
of a variable (PyTensor refuses `if not W:`, which the tutorials write)."""
import pytensor
from pytensor import In, Out, config, grad, scan, shared  # noqa: F401
from pytensor.tensor.variable import TensorVariable

from . import sandbox, tensor  # noqa: F401


def _theano_truth(variable):
    """Theano 1.0: every variable is true (`if not W:` tests for None); PyTensor raises."""
    return True


TensorVariable.__bool__ = _theano_truth


class _Param:
    """Theano's `Param(variable, default=)`: an input with a default value, which PyTensor's
    `In` no longer takes; `function` below fills it in at each call."""

    def __init__(self, variable, default=None, name=None):
        self.variable, self.default, self.name = variable, default, name


def Param(variable, default=None, name=None, **kwargs):
    return _Param(variable, default, name)


class _WithDefaults:
    """A compiled function whose inputs at `defaults` ({position: (name, value)}) take their
    value when the call gives them neither by position nor by name."""

    def __init__(self, compiled, defaults):
        self._compiled, self._defaults = compiled, defaults

    def __call__(self, *args, **kwargs):
        for position, (name, value) in self._defaults.items():
            if position >= len(args) and name not in kwargs:
                kwargs[name] = value
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._compiled, name)


def function(inputs=None, outputs=None, *args, **kwargs):
    """`pytensor.function`, taking Theano's `Param` inputs as well."""
    plain, defaults = [], {}
    for position, given in enumerate(inputs or []):
        if isinstance(given, _Param):
            name = given.name or given.variable.name
            if given.default is not None:
                defaults[position] = (name, given.default)
            given = pytensor.In(given.variable, name=name)
        plain.append(given)
    compiled = pytensor.function(plain, outputs, *args, **kwargs)
    return _WithDefaults(compiled, defaults) if defaults else compiled


def __getattr__(name):
    return getattr(pytensor, name)
