"""`irc.tensor` (imported as `T`): Theano's tensor namespace.

Constructors (`T.matrix`, `T.fvector`, ...), math on symbolic tensors, reductions, `T.grad`,
the op classes users test for (`T.Elemwise`, `T.DimShuffle`, `T.CAReduce`, ...) and
`T.nnet`. Dtype promotion is documented in irc/frontend/dtypes.py."""
from __future__ import annotations

import sys

from .frontend import nnet  # noqa: F401  (T.nnet.sigmoid, T.nnet.softmax, ...)
from .frontend.basic import (  # noqa: F401
    abs_, add, and_, as_tensor_variable, cast, ceil, concatenate, constant, cos, dimshuffle, elemwise,
    eq, erf, erfc, erfcinv, erfinv, exp, expm1, gamma, gammaln, psi, fill, flatten, floor, ge, gt, inc_subtensor, int_div, inv, invert, join, le, log,
    log1p, lt, maximum, minimum, mod, mul, neg, neq, ones_like, or_, pow, reciprocal, relu, reshape,
    round, set_subtensor, sgn, shape_i, sigmoid, sign, sin, softplus, sqr, sqrt, square, stack,
    sub, switch, tanh, transpose, true_div, where, xor, zeros_like, log2, log10, exp2, isnan, isinf,
    shape_padleft, shape_padright, pad_left, take)
from .frontend.basic import shape_vector as shape  # noqa: F401  (T.shape(x) is x.shape)
from .frontend.blas import Dot  # noqa: F401
from .frontend.creation import alloc, arange, eye, identity_like, ones, zeros  # noqa: F401
from .frontend.creation_ops import AllocShape, Iota  # noqa: F401
from .frontend.constructors import *  # noqa: F401,F403
from .frontend.constructors import CONSTRUCTORS, matrices, scalars, tensor, vectors  # noqa: F401
from .frontend.elemwise import Cast, Elemwise  # noqa: F401
from .frontend.grad import DisconnectedInputError, Lop, Rop, grad, hessian, jacobian  # noqa: F401
from .frontend.graph import Apply, Constant, Op, Variable  # noqa: F401
from .frontend.join import Join  # noqa: F401
from .frontend.mathops import (  # noqa: F401
    all, any, argmax, argmin, clip, dot, max, mean, min, norm, outer, prod, std, sum, var)
from .frontend.nnet import (binary_crossentropy, categorical_crossentropy, log_softmax,  # noqa: F401
                            softmax)
from .frontend.order import argsort, cumprod, cumsum, sort  # noqa: F401
from .frontend.order_ops import CumOp, Sort  # noqa: F401
from .frontend.products import batched_dot, tensordot  # noqa: F401
from .frontend.reduce import Argmax, Argmin, CAReduce, Max, Min, Prod, Sum  # noqa: F401
from .frontend.shape_ops import Alloc, DimShuffle, MakeVector, Reshape, Shape_i  # noqa: F401
from .frontend.shape_functions import (addbroadcast, diag, patternbroadcast, repeat, specify_shape,  # noqa: F401
                                       split, tile, unbroadcast)
from .frontend.shared import SharedVariable, shared  # noqa: F401
from .frontend.subtensor import IncSubtensor, Subtensor  # noqa: F401
from .frontend.advanced_index import AdvancedIncSubtensor, AdvancedSubtensor  # noqa: F401
from .frontend.opview import AdvancedIncSubtensor1, AdvancedSubtensor1  # noqa: F401
from .frontend.tensor_type import TensorType  # noqa: F401

TensorVariable = Variable
TensorConstant = Constant
_shared = shared
sgn = sgn
abs = abs_  # noqa: A001  (T.abs, as in newer Theano/PyTensor)
true_divide = true_div


def round_half_to_even(x):
    """numpy's rint (Theano's default rounding)."""
    return round(x, "half_to_even")


def round_half_away_from_zero(x):
    return round(x, "half_away_from_zero")


from . import extra_ops  # noqa: E402,F401  (T.extra_ops.cumsum, ...)
from .frontend import random_streams as shared_randomstreams  # noqa: E402

# `from irc.tensor.shared_randomstreams import RandomStreams` (this namespace is a module, so
# Theano's submodule path is registered by hand)
sys.modules[__name__ + ".shared_randomstreams"] = shared_randomstreams


# Theano names this frontend does not have yet, and what to use (docs/frontend.md lists them)
NOT_SUPPORTED = {
    "nonzero": "data-dependent shapes are not supported", "argwhere": "data-dependent shapes are not supported",
    "advanced_subtensor": "write x[ivec, jvec] (advanced indexing is supported by indexing)",
}


def __getattr__(name: str):
    why = NOT_SUPPORTED.get(name)
    if why is not None:
        raise AttributeError(f"irc.tensor.{name} is not supported: {why} (see docs/frontend.md)")
    raise AttributeError(f"module 'irc.tensor' has no attribute '{name}'")
