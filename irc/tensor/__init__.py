"""`irc.tensor` (imported as `T`): Theano's tensor namespace.

Constructors (`T.matrix`, `T.fvector`, ...), math on symbolic tensors, reductions, `T.grad`,
the op classes users test for (`T.Elemwise`, `T.DimShuffle`, `T.CAReduce`, ...). As in Theano,
most names come from `irc.tensor.basic`; the submodules `nnet`, `extra_ops`,
`shared_randomstreams` and the package `signal` keep Theano's module paths. Every module here
only re-exports the frontend's code (irc/frontend/). Dtype promotion is documented in
irc/frontend/dtypes.py."""
from __future__ import annotations

from . import extra_ops, nnet, shared_randomstreams  # noqa: F401  (T.nnet.sigmoid, T.extra_ops.cumsum, ...)
from .basic import *  # noqa: F401,F403
# the rest of Theano's `T`: from its elemwise, subtensor, sharedvar, sort, extra_ops, nnet,
# gradient and compile modules
from ..frontend.advanced_index import AdvancedIncSubtensor, AdvancedSubtensor  # noqa: F401
from ..frontend.basic import inc_subtensor, relu, set_subtensor, shape_i, sigmoid, softplus, take  # noqa: F401
from ..frontend.elemwise import Cast  # noqa: F401
from ..frontend.grad import DisconnectedInputError, Lop, Rop, grad, hessian, jacobian  # noqa: F401
from ..frontend.verify_grad import numeric_grad, verify_grad  # noqa: F401
from ..frontend.mathops import norm  # noqa: F401
from ..frontend.nnet import binary_crossentropy, categorical_crossentropy, log_softmax, softmax  # noqa: F401
from ..frontend.opview import AdvancedIncSubtensor1, AdvancedSubtensor1  # noqa: F401
from ..frontend.order import argsort, cumprod, cumsum, sort  # noqa: F401
from ..frontend.topk import argtopk, topk, topk_and_argtopk  # noqa: F401
from ..frontend.reduce import Argmin, Max, Min, Prod  # noqa: F401
from ..frontend.shape_functions import repeat, specify_shape  # noqa: F401
from ..frontend.shape_ops import Shape_i  # noqa: F401
from ..frontend.shared import SharedVariable, shared  # noqa: F401
from ..frontend.subtensor import IncSubtensor, Subtensor  # noqa: F401
# irc's own names and spellings (tests/frontend/test_theano_names_doc.py lists the own ones)
from ..frontend.basic import abs_, dimshuffle, elemwise, pad_left, reciprocal, sign, true_div  # noqa: F401
from ..frontend.constructors import CONSTRUCTORS  # noqa: F401  (name -> constructor)
from ..frontend.creation_ops import AllocShape, Iota  # noqa: F401
from ..frontend.order_ops import CumOp, Sort  # noqa: F401
from ..frontend.shape_ops import MakeVector  # noqa: F401

_shared = shared
abs = abs_  # noqa: A001  (T.abs, as in newer Theano/PyTensor)
true_divide = true_div


# Theano names this frontend does not have yet, and what to use (docs/frontend.md lists them)
NOT_SUPPORTED = {
    "argwhere": "data-dependent shapes are not supported (T.nonzero runs with numpy)",
    "advanced_subtensor": "write x[ivec, jvec] (advanced indexing is supported by indexing)",
}


def __getattr__(name: str):
    why = NOT_SUPPORTED.get(name)
    if why is not None:
        raise AttributeError(f"irc.tensor.{name} is not supported: {why} (see docs/frontend.md)")
    raise AttributeError(f"module 'irc.tensor' has no attribute '{name}'")
