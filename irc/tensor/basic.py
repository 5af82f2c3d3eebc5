"""`irc.tensor.basic` (Theano's `theano.tensor.basic`): the tensor type and constructors,
elementwise math, reductions, products, shapes and the ops Theano's module defines or sets up
as its interface — those irc has, under Theano's names (`irc.tensor` holds them all too).

Theano's own `basic.py` also re-exports the graph classes (`Apply`, `Op`, `Variable`, ...) and
`Elemwise`, `DimShuffle`, `CAReduce`, `Sum`; so does this module."""
from __future__ import annotations

from ..frontend.basic import (
    abs_, add, and_, as_tensor_variable, cast, ceil, concatenate, constant, cos, eq, erf, erfc, erfcinv, erfinv,
    exp, exp2, expm1, fill, flatten, floor, gamma, gammaln, ge, gt, int_div, inv, invert, isinf, isnan, join, le,
    log, log10, log1p, log2, lt, maximum, minimum, mod, mul, neg, neq, ones_like, or_, pow, psi, reshape, round,
    round_half_away_from_zero, round_half_to_even, sgn, shape_padleft, shape_padright, sin, sqr, sqrt, square,
    stack, sub, switch, tanh, transpose, true_div, where, xor, zeros_like)
from ..frontend.basic import (arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh, ceil_intdiv, cosh, deg2rad,
                              erfcx, rad2deg, sinh, tan, tri_gamma, trunc)
from ..frontend.basic import chi2sf, i0, i1, iv, j0, j1, jv
from ..frontend.basic import is_flat
from ..frontend.basic import shape_vector as shape  # T.shape(x) is x.shape
from ..frontend.blas import Dot
from ..frontend.constructors import *  # noqa: F401,F403  (scalar, fmatrix, dtensor3s, ...)
from ..frontend.constructors import CONSTRUCTORS, tensor
from ..frontend.creation import ARange, alloc, arange, eye, identity_like, ones, zeros
from ..frontend.dtype_names import (all_dtypes, complex_dtypes, continuous_dtypes, discrete_dtypes, float_dtypes,
                                    int_dtypes, integer_dtypes, uint_dtypes)
from ..frontend.elemwise import Elemwise
from ..frontend.graph import Apply, Constant, Op, Variable
from ..frontend.join import Join
from ..frontend.mathops import (all, any, argmax, argmin, clip, max, mean, min, outer, prod, ptp, std,  # noqa: A004
                                sum, var)
from ..frontend.matrix_products import dot, tensordot
from ..frontend.products import batched_dot, batched_tensordot
from ..frontend.reduce import Argmax, CAReduce, Sum
from ..frontend.shape_functions import addbroadcast, diag, patternbroadcast, split, tile, unbroadcast
from ..frontend.shape_ops import Alloc, DimShuffle, Reshape
from ..frontend.tensor_type import TensorType
# Theano's basic names built elsewhere in the frontend
from ..frontend.basic import fill as second  # Theano's second(a, b): b broadcast like a
from ..frontend.basic import pow as power  # Theano's power(x, y)
from ..frontend.complex_ops import angle, complex, complex_from_polar, conj, imag, real  # noqa: A004
from ..frontend.covariance import cov
from ..frontend.extra_ops import bartlett, fill_diagonal, fill_diagonal_offset, squeeze
from ..frontend.closeness import allclose, isclose
from ..frontend.combine import largest, max_and_argmax, smallest, stacklists
from ..frontend.index_grids import mgrid, ogrid
from ..frontend.numpy_run_ops import flatnonzero, nonzero, nonzero_values
from ..frontend.rearrange import inverse_permutation, permute_row_elements, swapaxes
from ..frontend.scalar_constant import (EmptyConstantError, NotScalarConstantError,
                                        get_scalar_constant_value)

TensorVariable = Variable
TensorConstant = Constant
Tensor = TensorType  # Theano's old name of the type

__all__ = [
    "Alloc", "Apply", "Argmax", "CAReduce", "Constant", "DimShuffle", "Dot", "Elemwise", "Join", "Op", "Reshape",
    "Sum", "Tensor", "TensorConstant", "TensorType", "TensorVariable", "Variable",
    "abs_", "add", "addbroadcast", "all", "alloc", "and_", "any", "arange", "argmax", "argmin", "as_tensor_variable",
    "batched_dot", "batched_tensordot", "cast", "ceil", "clip", "concatenate", "constant", "cos", "diag", "dot", "eq", "erf", "erfc",
    "erfcinv", "erfinv", "exp", "exp2", "expm1", "eye", "fill", "flatten", "floor", "gamma", "gammaln", "ge",
    "gt", "identity_like", "int_div", "inv", "invert", "isinf", "isnan", "join", "le", "log", "log10", "log1p",
    "log2", "lt", "max", "maximum", "mean", "min", "minimum", "mod", "mul", "neg", "neq", "ones", "ones_like",
    "or_", "outer", "patternbroadcast", "pow", "prod", "ptp", "psi", "reshape", "round", "round_half_away_from_zero",
    "round_half_to_even", "sgn", "shape", "shape_padleft", "shape_padright", "sin", "split", "sqr", "sqrt",
    "square", "stack", "std", "sub", "sum", "switch", "tanh", "tensor", "tensordot", "tile", "transpose",
    "true_div", "unbroadcast", "var", "where", "xor", "zeros", "zeros_like",
    "tan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "trunc", "deg2rad", "rad2deg",
    "arcsin", "arccos", "arctan", "arctan2", "ceil_intdiv", "erfcx", "tri_gamma",
    "j0", "j1", "jv", "i0", "i1", "iv", "chi2sf", "is_flat",
    *CONSTRUCTORS,
    "all_dtypes", "complex_dtypes", "continuous_dtypes", "discrete_dtypes", "float_dtypes", "int_dtypes",
    "integer_dtypes", "uint_dtypes",
]
__all__ += ["EmptyConstantError", "NotScalarConstantError", "bartlett", "cov", "fill_diagonal", "fill_diagonal_offset",
            "get_scalar_constant_value", "permute_row_elements", "power", "second", "squeeze", "swapaxes",
            "allclose", "isclose", "largest", "max_and_argmax", "smallest", "stacklists", "mgrid", "ogrid",
            "flatnonzero", "nonzero", "nonzero_values", "inverse_permutation", "ARange"]

# Theano's `tensor.basic._dot`: the Dot op itself (vectors and matrices only; TypeError for any
# other rank), which some users and Theano's own tests call directly
_dot = Dot()

__all__ += ["angle", "complex", "complex_from_polar", "conj", "imag", "real"]
