"""`theano.tensor.nnet`: sigmoid, Theano's softmax (a vector's is a 1×n matrix), relu."""
import pytensor.tensor as pt
from pytensor.tensor import sigmoid, softplus, tanh  # noqa: F401
from pytensor.tensor.special import softmax as _softmax

from . import conv  # noqa: F401


def softmax(c):
    """Row-wise softmax; a vector is taken as one row, so the result is a 1×n matrix."""
    c = pt.as_tensor_variable(c)
    if c.ndim == 1:
        c = c.dimshuffle("x", 0)
    return _softmax(c, axis=-1)


def relu(x, alpha=0):
    return pt.switch(x > 0, x, alpha * x)
