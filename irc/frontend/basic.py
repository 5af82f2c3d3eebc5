"""The building functions behind `irc.tensor`: constants, elementwise arithmetic with
Theano's broadcasting and dtype promotion (irc/frontend/dtypes.py), casts, dimshuffles,
reshapes, shapes, indexing and joins. Each returns a new symbolic variable."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..dialects.elementwise import TABLE
from ..dialects.tensor_base import DYNAMIC, NO_BOUND
from . import dtypes
from .advanced_index import AdvancedIncSubtensor, AdvancedSubtensor
from .creation_ops import AllocShape
from .elemwise import Cast, Elemwise
from .elemwise_function import ElemwiseFunction, elemwise_function
from .complex_refusal import refuse_complex
from .graph import Apply, Constant, Variable
from .integer_index import IntegerIndex, SetIntegerIndex
from .integer_power import refuse_negative_integer_exponent
from .join import Join
from .shape_ops import Alloc, DimShuffle, MakeVector, Reshape, Shape_i
from .subtensor import DynamicSubtensor, IncSubtensor, Subtensor
from .tensor_type import COMPLEX_DTYPES, TensorType, dtype_name, floatX


# ---------------------------------------------------------------------------- constants
def _contains_variable(x: Any) -> bool:
    if isinstance(x, Variable):
        return True
    return isinstance(x, (list, tuple)) and any(_contains_variable(e) for e in x)


def _default_dtype(value: Any) -> str:
    """Dtype of a non-symbolic value: numpy values keep theirs; Python numbers (and lists of
    them) follow the rules for Python scalars alone (float -> floatX, int -> int64)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return value.dtype.name
    arr = np.asarray(value)
    kind = arr.dtype.kind
    if kind == "f":
        return floatX()
    if kind in "iu":
        return "int64"
    if kind == "b":
        return "bool"
    if kind == "c":
        return "complex128"  # Theano's dtype for a Python complex (1j)
    raise TypeError(f"cannot make a tensor constant of {type(value).__name__} {value!r}")


def constant(value: Any, name: str | None = None, ndim: int | None = None,
             dtype: str | None = None) -> Constant:
    """A symbolic constant; broadcastable exactly where the value has size 1."""
    arr = np.asarray(value)
    dtype = dtypes_name(dtype) if dtype else _default_dtype(value)
    if ndim is not None:
        if arr.ndim > ndim:
            raise ValueError(f"constant of shape {arr.shape} cannot have ndim={ndim}")
        arr = arr.reshape((1,) * (ndim - arr.ndim) + arr.shape)
    if arr.dtype.kind == "O":
        raise TypeError(f"cannot make a tensor constant of {type(value).__name__}")
    return Constant(TensorType(dtype, tuple(n == 1 for n in arr.shape)), arr.astype(dtype), name=name)


def dtypes_name(dtype: str) -> str:
    return floatX() if dtype == "floatX" else dtype_name(dtype)


def as_tensor_variable(x: Any, name: str | None = None, ndim: int | None = None,
                       dtype: str | None = None) -> Variable:
    """`x` if it is symbolic, a Constant for numbers and arrays, a stack for lists that mix
    symbolic scalars and numbers (like `x.shape`)."""
    if isinstance(x, Variable):
        out = x
    elif hasattr(x, "outputs") and hasattr(x, "op"):  # an Apply
        out = x.outputs[0]
    elif isinstance(x, (list, tuple)) and _contains_variable(x):
        out = stack([as_tensor_variable(e) for e in x])
    else:
        return constant(x, name=name, ndim=ndim, dtype=dtype)
    if dtype is not None and out.dtype != dtypes_name(dtype):
        out = cast(out, dtype)
    if ndim is not None and out.ndim != ndim:
        if out.ndim > ndim and all(out.broadcastable[: out.ndim - ndim]):
            out = dimshuffle(out, tuple(range(out.ndim - ndim, out.ndim)))
        else:
            raise WrongNdimError(f"{out} has ndim={out.ndim}, expected {ndim}")
    return out


class WrongNdimError(TypeError, ValueError):
    """A variable of another number of dims than asked (a TypeError, and Theano's ValueError)."""


# ---------------------------------------------------------------------------- elementwise
def cast(x: Any, dtype: str) -> Variable:
    """`x` converted to `dtype` ('floatX' allowed); a no-op when it already has it."""
    dtype = dtypes_name(dtype)
    if not isinstance(x, Variable):
        return constant(np.asarray(x), dtype=dtype)
    if x.dtype == dtype:
        return x
    if dtype not in COMPLEX_DTYPES:
        refuse_complex(f"cast to {dtype}", x, hint="the cast is ambiguous: take T.real, T.imag, T.abs "
                       "or T.angle (Theano refuses it too)")
    if isinstance(x, Constant):
        return Constant(x.type.clone(dtype=dtype), x.data.astype(dtype))
    return Cast(dtype)(x)


def pad_left(x: Variable, ndim: int) -> Variable:
    """`x` with broadcastable dims added in front up to `ndim` (numpy's broadcasting)."""
    if x.ndim >= ndim:
        return x
    if isinstance(x, Constant):
        return constant(x.data.reshape((1,) * (ndim - x.ndim) + x.data.shape), dtype=x.dtype)
    return dimshuffle(x, ("x",) * (ndim - x.ndim) + tuple(range(x.ndim)))


def elemwise(name: str, *args: Any) -> Variable:
    """Apply table row `name`, promoting dtypes and left-padding ranks as Theano does."""
    row = TABLE[name]
    if len(args) != row.arity:
        raise TypeError(f"{name} takes {row.arity} argument(s), got {len(args)}")
    values: list[Any] = [a if isinstance(a, Variable) or dtypes.is_weak(a) else constant(a) for a in args]
    value_ids = list(row.value_operands)
    strong = [values[i].dtype for i in value_ids if isinstance(values[i], Variable)]
    weak = [dtypes.weak_kind(values[i]) for i in value_ids if not isinstance(values[i], Variable)]
    if "c" not in row.kinds:
        refuse_complex(str(Elemwise(name)), *values)
    dtype = dtypes.operand_dtype(row, strong, weak)
    misfits = [values[i] for i in value_ids
               if not isinstance(values[i], Variable) and not dtypes.fits(values[i], dtype)]
    if misfits:  # a Python int the dtype cannot hold takes Theano's constant dtype (uint8 + -1: int16)
        dtype = dtypes.operand_dtype(row, strong + [dtypes.autocast_int(v) for v in misfits], weak)
    ndim = max((v.ndim for v in values if isinstance(v, Variable)), default=0)
    for i in value_ids:
        v = values[i]
        values[i] = cast(v, dtype) if isinstance(v, Variable) else _broadcast_scalar(v, dtype, ndim)
    if name == "select":
        cond = values[0] if isinstance(values[0], Variable) else constant(values[0])
        values[0] = cond if cond.dtype == "bool" else elemwise("ne", cond, 0)
    ndim = max(v.ndim for v in values)
    return Elemwise(name)(*[pad_left(v, ndim) for v in values])


def _broadcast_scalar(value: Any, dtype: str, ndim: int) -> Variable:
    """A Python number as a 0-d constant with broadcastable dims put in front (Theano's
    `DimShuffle{x,...}(TensorConstant{v})`; canonicalize folds it into one constant)."""
    c = constant(np.asarray(value, dtype))
    c.tag.literal = repr(value)  # printed as the user wrote it (TensorConstant{1}), as in Theano
    return DimShuffle(("x",) * ndim)(c) if ndim else c


def _unary(name: str) -> ElemwiseFunction:
    def fn(x: Any) -> Variable:
        return elemwise(name, x)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise `{name}` (table row '{name}')."
    return ElemwiseFunction(fn, name)


def _binary(name: str) -> ElemwiseFunction:
    def fn(x: Any, y: Any) -> Variable:
        return elemwise(name, x, y)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise `{name}` with broadcasting (table row '{name}')."
    return ElemwiseFunction(fn, name)


neg, abs_, exp, log, log1p, expm1, sqrt, sin, cos, tanh, sigmoid, softplus = (
    _unary(n) for n in ("neg", "abs", "exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tanh",
                        "sigmoid", "softplus"))
sgn, floor, ceil, reciprocal, sqr = (_unary(n) for n in ("sign", "floor", "ceil", "reciprocal", "square"))
erf, erfc, erfcx, erfinv, erfcinv, gamma, gammaln, psi, tri_gamma = (
    _unary(n) for n in ("erf", "erfc", "erfcx", "erfinv", "erfcinv", "gamma", "gammaln", "psi", "tri_gamma"))
tan, sinh, cosh, arcsinh, arccosh, arctanh, trunc, deg2rad, rad2deg = (
    _unary(n) for n in ("tan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "trunc", "deg2rad", "rad2deg"))
arcsin, arccos, arctan = (_unary(n) for n in ("arcsin", "arccos", "arctan"))
j0, j1, i0, i1 = (_unary(n) for n in ("j0", "j1", "i0", "i1"))
jv, iv, chi2sf = (_binary(n) for n in ("jv", "iv", "chi2sf"))  # jv(v, x), iv(v, x), chi2sf(x, k)
sub, true_div, int_div, mod, maximum, minimum, arctan2 = (
    _binary(n) for n in ("sub", "div", "floordiv", "mod", "maximum", "minimum", "arctan2"))


@elemwise_function("pow")
def pow(x: Any, y: Any) -> Variable:
    """Elementwise `x ** y` with broadcasting (table row 'pow'); integers to a constant
    negative power are refused here, as numpy refuses them (irc/frontend/integer_power.py)."""
    return refuse_negative_integer_exponent(elemwise("pow", x, y))


@elemwise_function("add")
def add(x: Any, y: Any, *more: Any) -> Variable:
    """Elementwise sum of two or more tensors, with broadcasting (Theano's add is variadic)."""
    out = elemwise("add", x, y)
    for z in more:
        out = elemwise("add", out, z)
    return out


@elemwise_function("mul")
def mul(x: Any, y: Any, *more: Any) -> Variable:
    """Elementwise product of two or more tensors, with broadcasting."""
    out = elemwise("mul", x, y)
    for z in more:
        out = elemwise("mul", out, z)
    return out
and_, or_, xor = (_binary(n) for n in ("and", "or", "xor"))
lt, le, gt, ge, eq, neq = (_binary(n) for n in ("lt", "le", "gt", "ge", "eq", "ne"))
square = sqr
sign = sgn
inv = reciprocal


@elemwise_function("log2")
def log2(x: Any) -> Variable:
    return true_div(log(x), float(np.log(2.0)))


@elemwise_function("log10")
def log10(x: Any) -> Variable:
    return true_div(log(x), float(np.log(10.0)))


@elemwise_function("exp2")
def exp2(x: Any) -> Variable:
    return exp(mul(x, float(np.log(2.0))))


def ceil_intdiv(a: Any, b: Any) -> Variable:
    """ceil(a / b) without going through floats (exact for int64): a // b, plus one where the
    division leaves a remainder (Theano's definition, so floats give floor(a / b) + (a % b != 0))."""
    div = int_div(a, b)
    return add(div, cast(neq(mod(a, b), 0), div.dtype))


def isnan(x: Any) -> Variable:
    """x != x (true only for NaN); all false for integer tensors."""
    return neq(x, x)


def isinf(x: Any) -> Variable:
    x = as_tensor_variable(x)
    return eq(abs_(x), np.inf) if x.type.is_continuous else neq(x, x)


def relu(x: Any, alpha: float = 0.0) -> Variable:
    """max(x, 0); with `alpha`, the leaky form x if x > 0 else alpha * x."""
    if alpha == 0:
        return elemwise("relu", x)
    x = as_tensor_variable(x)
    return switch(gt(x, 0), x, mul(alpha, x))


def round(x: Any, mode: str = "half_to_even") -> Variable:  # noqa: A001
    """Rounding to an integer value: `half_to_even` (numpy, Theano's default) or
    `half_away_from_zero`."""
    if mode == "half_to_even":
        return elemwise("round", x)
    if mode == "half_away_from_zero":
        return elemwise("round_away", x)
    raise ValueError(f"round: mode must be 'half_to_even' or 'half_away_from_zero', got {mode!r}")


@elemwise_function("round")
def round_half_to_even(x: Any) -> Variable:
    """numpy's rint (Theano's default rounding)."""
    return round(x, "half_to_even")


@elemwise_function("round_away")
def round_half_away_from_zero(x: Any) -> Variable:
    return round(x, "half_away_from_zero")


@elemwise_function("logical_not")
def invert(x: Any) -> Variable:
    """`~x`: logical not of a bool tensor, bitwise not of an integer tensor."""
    x = as_tensor_variable(x)
    if x.dtype == "bool":
        return elemwise("logical_not", x)
    if not x.type.is_integer:
        raise TypeError(f"~ needs a bool or integer tensor, got {x.type}")
    return xor(x, -1)


@elemwise_function("select")
def switch(cond: Any, a: Any, b: Any) -> Variable:
    """Elementwise `a if cond else b` (cond is tested for nonzero), with broadcasting."""
    return elemwise("select", cond, a, b)


where = switch


# ---------------------------------------------------------------------------- shapes
def dimshuffle(x: Any, pattern: Sequence[int | str]) -> Variable:
    x = as_tensor_variable(x)
    pattern = tuple(pattern)
    if pattern == tuple(range(x.ndim)):
        return x
    return DimShuffle(pattern)(x)


def shape_padleft(x: Any, n_ones: int = 1) -> Variable:
    """`x` with `n_ones` broadcastable dims in front."""
    x = as_tensor_variable(x)
    return dimshuffle(x, ("x",) * n_ones + tuple(range(x.ndim)))


def shape_padright(x: Any, n_ones: int = 1) -> Variable:
    x = as_tensor_variable(x)
    return dimshuffle(x, tuple(range(x.ndim)) + ("x",) * n_ones)


def transpose(x: Any, axes: Sequence[int] | None = None) -> Variable:
    """numpy's transpose (the dims reversed by default). As Theano's, the full reversal of a
    named `x` is a new variable named `x.T` (a vector's too: an identity DimShuffle)."""
    x = as_tensor_variable(x)
    reverse = tuple(reversed(range(x.ndim)))
    axes = reverse if axes is None else tuple(int(a) % x.ndim for a in axes)
    if x.name and axes == reverse:
        out = DimShuffle(axes)(x)
        out.name = f"{x.name}.T"
        return out
    return dimshuffle(x, axes)


def shape(x: Any) -> tuple[Variable, ...]:
    """The sizes of `x` as a tuple: one 0-d int64 per dimension (a constant 1 for
    broadcastable dims). `x.shape` is the same as a vector (`shape_vector`)."""
    x = as_tensor_variable(x)
    return tuple(constant(np.int64(1)) if b else Shape_i(i)(x) for i, b in enumerate(x.broadcastable))


def shape_vector(x: Any) -> Variable:
    """`x.shape` (Theano's): the int64 vector of the sizes, a MakeVector of `shape(x)`;
    indexing it with ints gives those sizes back without a node."""
    sizes = shape(x)
    return MakeVector("int64")(*sizes) if sizes else constant(np.zeros(0, "int64"))


def size_list(v: Any) -> list[Any] | None:
    """The entries of a shape given as a tuple/list, `x.shape` or a constant vector; None for a
    vector whose length is not known when the graph is built."""
    if isinstance(v, (list, tuple)):
        return list(v)
    if isinstance(v, Constant) and v.ndim == 1:
        return [int(n) for n in v.data]
    if isinstance(v, Variable) and v.owner is not None and isinstance(v.owner.op, MakeVector):
        return list(v.owner.inputs)
    return None


def shape_i(x: Any, i: int) -> Variable:
    x = as_tensor_variable(x)
    return shape(x)[i]


def _static_int(v: Any) -> int | None:
    if isinstance(v, Constant) and v.ndim == 0:
        return int(v.data)
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return int(v)
    return None


def reshape(x: Any, newshape: Any, ndim: int | None = None) -> Variable:
    """`x` with shape `newshape`: ints (one -1 allowed), symbolic 0-d ints, or an int vector
    (then `ndim` gives its length unless it is a constant)."""
    x = as_tensor_variable(x)
    if isinstance(newshape, Variable) and size_list(newshape) is not None:
        newshape = size_list(newshape)
    if isinstance(newshape, Variable) and newshape.ndim == 1 and not isinstance(newshape, Constant):
        if ndim is None:
            raise ValueError("reshape to a symbolic shape vector needs ndim=")
        return Reshape((DYNAMIC,) * ndim)(x, cast(newshape, "int64"))
    if isinstance(newshape, Constant):
        newshape = [int(v) for v in np.atleast_1d(newshape.data)]
    if isinstance(newshape, (int, np.integer, Variable)):
        newshape = (newshape,)
    entries = list(newshape)
    static = [_static_int(e) for e in entries]
    if all(s is not None for s in static):
        return Reshape(static)(x)
    sizes = stack([cast(e, "int64") if s is None else constant(np.int64(s)) for e, s in zip(entries, static)])
    return Reshape([DYNAMIC if s is None else s for s in static])(x, sizes)


def flatten(x: Any, ndim: int = 1, outdim: int | None = None) -> Variable:
    """Keep the first `ndim - 1` dims and merge the rest (`outdim`: Theano's older name)."""
    x = as_tensor_variable(x)
    ndim = outdim if outdim is not None else ndim
    if ndim < 1 or ndim > max(x.ndim, 1):
        raise ValueError(f"flatten: ndim must be in 1..{max(x.ndim, 1)}, got {ndim}")
    merged = 1 if all(x.broadcastable[ndim - 1:]) else -1  # (known 1 where every merged dim is)
    return reshape(x, tuple(shape(x)[: ndim - 1]) + (merged,))


def is_flat(var: Any, ndim: int | None = None, outdim: int | None = None) -> bool:
    """Whether `var` has `ndim` dimensions (1 by default): what `flatten(x, ndim)` gives
    (Theano's; `outdim` its older name, not both)."""
    if ndim is not None and outdim is not None:
        raise ValueError("is_flat: give ndim only (outdim is its older name)")
    return as_tensor_variable(var).ndim == (ndim if ndim is not None else outdim if outdim is not None else 1)


# ---------------------------------------------------------------------------- indexing
def _normalize_index(x: Variable, index: Any) -> list:
    items = list(index) if isinstance(index, tuple) else [index]
    if any(it is Ellipsis for it in items):
        k = items.index(Ellipsis)
        real = sum(1 for it in items if it is not None and it is not Ellipsis)
        items[k:k + 1] = [slice(None)] * (x.ndim - real)
    real = sum(1 for it in items if it is not None)
    if real > x.ndim:
        raise IndexError(f"too many indices for {x.type}: {real} given, ndim={x.ndim}")
    return items + [slice(None)] * (x.ndim - real)


def _bound(v: Any, what: str) -> int:
    if v is None:
        return NO_BOUND
    s = _static_int(v)
    if s is None:
        raise NotImplementedError(
            f"slicing with a symbolic {what} ({v}) is not supported: symbolic bounds need step 1 "
            f"(x[i:j]); a step must be a Python int")
    return s


def _is_symbolic(v: Any) -> bool:
    return isinstance(v, Variable) and _static_int(v) is None


def _slice_bound(v: Any, absent: int) -> Variable:
    """A slice bound as a 0-d int64 variable (`absent` where it is None)."""
    if v is None:
        return constant(np.int64(absent))
    v = as_tensor_variable(v)
    if v.ndim != 0 or not v.type.is_integer:
        raise TypeError(f"a slice bound must be a 0-d integer, got {v} ({v.type})")
    return cast(v, "int64")


def _integer_index(it: Any) -> Variable:
    """An integer index as a 0-d integer variable (a Python int, numpy integer or 0-d integer
    array becomes a constant; arrays of more dims went to `_advanced_subtensor`)."""
    if isinstance(it, np.ndarray) and it.ndim == 0:
        it = it[()]  # numpy treats x[np.array(2)] as x[2]
    if isinstance(it, (bool, np.bool_)):
        raise IndexError(f"boolean index {it} is not supported: use an integer, a slice, None or ...")
    if isinstance(it, (int, np.integer)):
        return constant(np.int64(it))
    if not isinstance(it, Variable) or not it.type.is_integer:
        what = it.type if isinstance(it, Variable) else type(it).__name__
        raise IndexError(f"only integers, 0-d integer variables, slices, None and ... are valid "
                         f"indices, got {it!r} ({what})")
    return it


def _is_index_array(it: Any) -> bool:
    return (isinstance(it, (list, np.ndarray)) and np.ndim(it) > 0) or (isinstance(it, Variable) and it.ndim != 0) \
        or (isinstance(it, tuple) and not it)  # (numpy reads `x[:, ()]` as `x[:, []]`)


def _index_array(it: Any) -> Variable:
    """An advanced index (an integer array, list or variable; or a scalar broadcast with them)
    as an integer variable."""
    if isinstance(it, (int, np.integer)) and not isinstance(it, (bool, np.bool_)):
        return constant(np.int64(it))
    if isinstance(it, Variable):
        v = it
    else:
        array = np.asarray(it)
        if isinstance(it, (list, tuple)) and (array.size == 0 or array.dtype.kind in "iu"):
            array = array.astype(np.int64)  # a list of Python ints (or none): int64, as numpy
        v = constant(array)
    if v.dtype == "bool":
        raise NotImplementedError(f"boolean mask indexing ({it}) is not supported: its result size depends on the "
                                  f"data; use T.switch(mask, x, 0) or integer indices")
    if not v.type.is_integer:
        raise IndexError(f"arrays used as indices must be of integer type, got {it} ({v.type})")
    return v


def _axes_first(axes: Sequence[int], ndim: int) -> list[int]:
    """The dimshuffle that moves the indexed `axes` to the front (the ops index leading axes),
    the other axes after them in order."""
    return list(axes) + [d for d in range(ndim) if d not in axes]


def _advanced_subtensor(x: Variable, items: list) -> Variable:
    """numpy's advanced indexing when every index is an integer array (or an int) or a full
    slice `:`: the arrays broadcast together; their result dims stand where the first array
    was when the arrays are adjacent, else in front (numpy's rule)."""
    if any(it is None or (isinstance(it, slice) and it != slice(None)) for it in items):
        raise NotImplementedError(f"advanced indexing combines integer arrays only with full slices ':' and "
                                  f"integers, got {tuple(items)}; index in two steps (x[a:b][ivec])")
    axes = [d for d, it in enumerate(items) if not isinstance(it, slice)]
    indices = [_index_array(items[d]) for d in axes]
    rank = max(i.ndim for i in indices)
    gathered = AdvancedSubtensor(axes)(dimshuffle(x, _axes_first(axes, x.ndim)), *(pad_left(i, rank) for i in indices))
    front = axes[0] if axes == list(range(axes[0], axes[0] + len(axes))) else 0
    return dimshuffle(gathered, [rank + k for k in range(front)] + list(range(rank))
                      + [rank + k for k in range(front, x.ndim - len(axes))])


def take(a: Any, indices: Any, axis: int | None = None, mode: str = "raise") -> Variable:
    """numpy's take: `a[..., indices, ...]` with `indices` on `axis` (of the flattened `a` when
    None); an integer array, list or scalar. `mode`: 'raise' (an index out of range fails the
    call), or numpy's 'wrap' and 'clip' (indices taken modulo the size, or clipped to it)."""
    a = as_tensor_variable(a)
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    if mode != "raise":
        size = shape(a if axis is not None else flatten(a))[axis or 0]
        idx = as_tensor_variable(indices if not isinstance(indices, list) else np.asarray(indices, "int64"))
        indices = mod(idx, size) if mode == "wrap" else minimum(maximum(idx, 0), sub(size, 1))
    if axis is None:
        a, axis = flatten(a), 0
    if not -a.ndim <= axis < a.ndim:
        raise ValueError(f"take: axis {axis} is out of range for {a.type}")
    items = [slice(None)] * a.ndim
    items[axis % a.ndim] = indices
    return subtensor(a, tuple(items))  # an array goes on to _advanced_subtensor


def subtensor(x: Any, index: Any) -> Variable:
    """`x[index]` for integers (Python ints or symbolic 0-d integers, negative ones counting
    from the end), slices of Python ints/None (negative steps too), `None` (new axis), `...`,
    and integer arrays (advanced indexing, with full slices: `_advanced_subtensor`)."""
    x = as_tensor_variable(x)
    items = _normalize_index(x, index)
    if any(_is_index_array(it) for it in items):
        return _advanced_subtensor(x, items)
    elements = size_list(x) if x.owner is not None else None
    if elements is not None and isinstance(index, (int, np.integer, slice)):  # x.shape[0], x.shape[1:]
        picked = elements[index]
        return picked if not isinstance(index, slice) else (
            MakeVector(x.dtype)(*picked) if picked else constant(np.zeros(0, x.dtype)))
    bounds: dict[int, tuple[int, int, int]] = {}
    dynamic: dict[int, tuple[Any, Any]] = {}
    axes: list[int] = []
    indices: list[Variable] = []
    pattern: list[int | str] = []
    for it in items:
        dim = len(pattern) - pattern.count("x") + len(axes)
        if it is None:
            pattern.append("x")
        elif isinstance(it, slice):
            step = 1 if it.step is None else _bound(it.step, "step")
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if _is_symbolic(it.start) or _is_symbolic(it.stop):
                if step != 1:
                    raise NotImplementedError(f"slicing with symbolic bounds ({it}) needs step 1")
                dynamic[dim] = (it.start, it.stop)
            else:
                start, stop = _bound(it.start, "start"), _bound(it.stop, "stop")
                if (start, stop, step) != (NO_BOUND, NO_BOUND, 1):
                    bounds[dim] = (start, stop, step)
            pattern.append(dim - len(axes))  # its place once the indexed axes are dropped
        else:
            axes.append(dim)
            indices.append(_integer_index(it))
    out = subtensor_static(x, bounds) if bounds else x
    for dim, (start, stop) in dynamic.items():
        out = DynamicSubtensor(dim)(out, _slice_bound(start, 0), _slice_bound(stop, np.iinfo(np.int64).max))
    if axes:
        out = IntegerIndex(axes)(out, *indices)
    return dimshuffle(out, pattern)


def subtensor_static(x: Variable, bounds: dict[int, tuple[int, int, int]],
                     keep_ones: Sequence[int] = ()) -> Variable:
    """`x` sliced along some dims by static (start, stop, step); `keep_ones` are dims known to
    have one element in the result."""
    starts = [bounds.get(d, (NO_BOUND, NO_BOUND, 1))[0] for d in range(x.ndim)]
    stops = [bounds.get(d, (NO_BOUND, NO_BOUND, 1))[1] for d in range(x.ndim)]
    steps = [bounds.get(d, (NO_BOUND, NO_BOUND, 1))[2] for d in range(x.ndim)]
    return Subtensor(starts, stops, steps, keep_ones)(x)


def _unwind_subtensor(sub: Variable) -> tuple[Variable, Apply | None, Apply | None, DimShuffle | None]:
    """`x[index]` taken apart: (x, its slice node, its integer-index node, the final dimshuffle)."""
    node, ds = sub.owner, None
    if node is not None and isinstance(node.op, DimShuffle):
        ds, node = node.op, node.inputs[0].owner
    indexed = sliced = None
    if node is not None and isinstance(node.op, IntegerIndex):
        indexed, node = node, node.inputs[0].owner
    if node is not None and isinstance(node.op, Subtensor):
        sliced = node
    if indexed is None and sliced is None:
        raise TypeError("set_subtensor/inc_subtensor take the result of indexing, e.g. x[1:3] or x[i]")
    x = (sliced or indexed).inputs[0]
    return x, sliced, indexed, ds


def _unwind_advanced(sub: Variable) -> tuple[Variable, Apply, DimShuffle | None, list[int]] | None:
    """`x[arrays]` taken apart: (x, the AdvancedSubtensor node, the final dimshuffle, the
    dimshuffle of x that put the indexed axes first), or None."""
    node, ds = sub.owner, None
    if node is not None and isinstance(node.op, DimShuffle):
        ds, node = node.op, node.inputs[0].owner
    if node is None or not isinstance(node.op, AdvancedSubtensor):
        return None
    moved = node.inputs[0]
    order = _axes_first(node.op.source_axes, moved.ndim)
    if order == list(range(moved.ndim)):
        return moved, node, ds, order
    if moved.owner is None or not isinstance(moved.owner.op, DimShuffle):
        return None  # not built by `subtensor`: nothing to undo
    return moved.owner.inputs[0], node, ds, order


def _advanced_inc_subtensor(sub: Variable, y: Any, set_instead_of_inc: bool) -> Variable | None:
    """set_subtensor/inc_subtensor of `x[arrays]`: one scatter (repeated indices accumulate
    for inc, the last write wins for set); None if `sub` is not advanced indexing."""
    unwound = _unwind_advanced(sub)
    if unwound is None:
        return None
    x, node, ds, order = unwound
    y = cast(as_tensor_variable(y), x.dtype)
    if y.ndim > sub.ndim:
        raise ValueError(f"{'set' if set_instead_of_inc else 'inc'}_subtensor: the value ({y.type}) has more "
                         f"dims than x[indices] ({sub.type})")
    if y.ndim < sub.ndim or any(b and not s for b, s in zip(y.broadcastable, sub.broadcastable)):
        # broadcast to the sizes of x[indices] (not to the gather itself: it would stay alive)
        y = AllocShape()(pad_left(y, sub.ndim), *shape(sub))
    gathered = node.outputs[0]
    if ds is not None:
        y = dimshuffle(y, _inverse_pattern(ds.new_order, gathered.ndim))
    moved = AdvancedIncSubtensor(set_instead_of_inc)(node.inputs[0], y, *node.inputs[1:])
    return dimshuffle(moved, _inverse_pattern(order, x.ndim))


def set_subtensor(sub: Variable, y: Any, inplace: bool = False) -> Variable:
    """`x` with `x[idx]` replaced by `y` (broadcast to the indexed part), where `sub` is `x[idx]`."""
    advanced = _advanced_inc_subtensor(sub, y, set_instead_of_inc=True)
    if advanced is not None:
        return advanced
    x, sliced, indexed, ds = _unwind_subtensor(sub)
    y = cast(as_tensor_variable(y), x.dtype)
    y = fill(sub, y) if y.ndim <= sub.ndim else y
    if ds is not None:  # take back the new axes the final dimshuffle made
        inner = (indexed or sliced).outputs[0]
        y = dimshuffle(y, _inverse_pattern(ds.new_order, inner.ndim))
    if indexed is not None:
        y = SetIntegerIndex(indexed.op.axes)(indexed.inputs[0], y, *indexed.inputs[1:])
    if sliced is not None:
        op = sliced.op
        y = IncSubtensor(op.starts, op.stops, op.steps)(x, y)
    return y


def _inverse_pattern(new_order: Sequence[int | str], ndim: int) -> list:
    where = {p: k for k, p in enumerate(new_order) if p != "x"}
    return [where[d] for d in range(ndim)]


def inc_subtensor(sub: Variable, y: Any, inplace: bool = False, set_instead_of_inc: bool = False,
                  tolerate_inplace_aliasing: bool = False) -> Variable:
    """`x` with `y` added to `x[idx]`, where `sub` is `x[idx]` (repeated integer-array indices
    accumulate, as numpy's `np.add.at`); Theano's `set_instead_of_inc=True` is set_subtensor."""
    if set_instead_of_inc:
        return set_subtensor(sub, y)
    advanced = _advanced_inc_subtensor(sub, y, set_instead_of_inc=False)
    return advanced if advanced is not None else set_subtensor(sub, add(sub, y))


# ---------------------------------------------------------------------------- joins and fills
def concatenate(tensors: Sequence[Any], axis: int = 0) -> Variable:
    ts = [as_tensor_variable(t) for t in tensors]
    if not ts:
        raise ValueError("concatenate needs at least one tensor")
    if len({t.ndim for t in ts}) > 1:
        raise TypeError("concatenate: tensors must have the same ndim, got "
                        + ", ".join(str(t.type) for t in ts))
    if ts[0].ndim == 0:
        raise TypeError("concatenate: cannot join 0-d tensors (use stack)")
    dtype = dtypes.upcast([t.dtype for t in ts])
    ts = [cast(t, dtype) for t in ts]
    if len(ts) == 1:
        return ts[0]
    return Join(axis % ts[0].ndim)(*ts)


def join(axis: int, *tensors: Any) -> Variable:
    """Theano's spelling of `concatenate(tensors, axis)`."""
    return concatenate(tensors, axis)


def stack(tensors: Sequence[Any], axis: int = 0) -> Variable:
    """New axis `axis` holding the tensors (Python numbers allowed)."""
    items = list(tensors)
    if not items:
        raise ValueError("stack needs at least one tensor, got an empty sequence")
    strong = [t.dtype for t in items if isinstance(t, Variable)]
    weak = [dtypes.weak_kind(t) for t in items if not isinstance(t, Variable)]
    dtype = dtypes.upcast(strong, weak)
    ts = [cast(as_tensor_variable(t) if isinstance(t, Variable) else constant(np.asarray(t, dtype)), dtype)
          for t in items]
    ndim = ts[0].ndim
    axis = axis % (ndim + 1)
    pattern = list(range(ndim))
    pattern.insert(axis, "x")
    return concatenate([dimshuffle(t, pattern) for t in ts], axis)


def fill(model: Any, value: Any) -> Variable:
    """`value` broadcast against `model` (dtype of `value`): Theano's elementwise `second`, so
    either may have fewer dims or size-1 dims the other fills."""
    model = as_tensor_variable(model)
    value = as_tensor_variable(value) if isinstance(value, Variable) else constant(
        np.asarray(value, dtype=model.dtype if dtypes.is_weak(value) else None))
    ndim = max(model.ndim, value.ndim)
    model, value = pad_left(model, ndim), pad_left(value, ndim)
    if all(v or not m for m, v in zip(model.broadcastable, value.broadcastable)):
        return Alloc()(value, model)   # model's shape is the result's
    sizes = [Shape_i(d)(value) if m and not v else s
             for d, (m, v, s) in enumerate(zip(model.broadcastable, value.broadcastable, shape(model)))]
    return AllocShape()(value, *sizes)


def _filled(x: Any, v: int, dtype: str | None) -> Variable:
    x = as_tensor_variable(x)
    dtype = dtypes_name(dtype) if dtype else x.dtype
    c = constant(np.full((1,) * x.ndim, v, dtype=dtype))
    if all(x.broadcastable):
        return c
    return Alloc()(c, x)


def zeros_like(x: Any, dtype: str | None = None) -> Variable:
    return _filled(x, 0, dtype)


def ones_like(x: Any, dtype: str | None = None) -> Variable:
    return _filled(x, 1, dtype)
