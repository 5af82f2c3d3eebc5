"""`theano.tensor` on `pytensor.tensor`, with Theano's `nnet` and `signal` submodules."""
import pytensor.tensor as _pytensor_tensor
from pytensor.tensor import *  # noqa: F401,F403

from . import nnet, shared_randomstreams, signal  # noqa: F401


def __getattr__(name):
    return getattr(_pytensor_tensor, name)
