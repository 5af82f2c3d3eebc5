"""Python operators and methods on symbolic tensors (`x + y`, `x.T`, `x.sum()`, `x[1:]`).

A mixin of `Variable`; every method builds graph nodes through the `T.*` functions. Those
sit above the graph in the layering (they build ops, whose outputs are Variables), so they are
bound here when they load (`bind_api`, called by irc/frontend/__init__.py) rather than
imported."""
from __future__ import annotations

from types import ModuleType
from typing import Any

from ..ir.diagnostics import Diagnostic
from ..ir.location import FileLineColLoc

_API: dict[str, ModuleType] = {}


def bind_api(basic: ModuleType, mathops: ModuleType, function: ModuleType, methods: ModuleType) -> None:
    """Give the operators the modules of `T.*` functions (and `irc.function`) they call."""
    _API.update(basic=basic, mathops=mathops, function=function, methods=methods)


def _b() -> ModuleType:
    return _API["basic"]


def _m() -> ModuleType:
    return _API["mathops"]


def _x() -> ModuleType:
    return _API["methods"]


class TensorOperators:
    """Theano's `_tensor_py_operators`: arithmetic, comparisons, shape and reduction methods."""

    # -- arithmetic (Python scalars adopt the tensor's dtype: see irc/frontend/dtypes.py)
    def __add__(self, o: Any): return _b().add(self, o)
    def __radd__(self, o: Any): return _b().add(o, self)
    def __sub__(self, o: Any): return _b().sub(self, o)
    def __rsub__(self, o: Any): return _b().sub(o, self)
    def __mul__(self, o: Any): return _b().mul(self, o)
    def __rmul__(self, o: Any): return _b().mul(o, self)
    def __truediv__(self, o: Any): return _b().true_div(self, o)
    def __rtruediv__(self, o: Any): return _b().true_div(o, self)
    def __floordiv__(self, o: Any): return _b().int_div(self, o)
    def __rfloordiv__(self, o: Any): return _b().int_div(o, self)
    def __mod__(self, o: Any): return _b().mod(self, o)
    def __rmod__(self, o: Any): return _b().mod(o, self)
    def __pow__(self, o: Any): return _b().pow(self, o)
    def __rpow__(self, o: Any): return _b().pow(o, self)
    def __neg__(self): return _b().neg(self)
    def __pos__(self): return self
    def __abs__(self): return _b().abs_(self)

    # -- comparisons (== and != stay identity, as in Theano: use T.eq / T.neq). The result of
    # `<`, `<=`, `>`, `>=` written as an operator refuses a truth value (see __bool__).
    def __lt__(self, o: Any): return _comparison_result(_b().lt(self, o), "<")
    def __le__(self, o: Any): return _comparison_result(_b().le(self, o), "<=")
    def __gt__(self, o: Any): return _comparison_result(_b().gt(self, o), ">")
    def __ge__(self, o: Any): return _comparison_result(_b().ge(self, o), ">=")

    # -- bitwise / logical (bool and integer tensors)
    def __and__(self, o: Any): return _b().and_(self, o)
    def __rand__(self, o: Any): return _b().and_(o, self)
    def __or__(self, o: Any): return _b().or_(self, o)
    def __ror__(self, o: Any): return _b().or_(o, self)
    def __xor__(self, o: Any): return _b().xor(self, o)
    def __rxor__(self, o: Any): return _b().xor(o, self)
    def __invert__(self): return _b().invert(self)

    def __bool__(self) -> bool:
        """Theano's rule (`_is_nonzero` in theano/tensor/var.py): a variable is truthy, so
        `if not W:` tests that an argument was given; only the result of an operator
        comparison raises, so that `a < b < c` (Python's `(a < b) and (b < c)`) and
        `if a < b:` fail loudly instead of silently dropping a comparison."""
        operator = getattr(self, "_comparison_operator", None)
        if operator is None:
            return True
        location = getattr(getattr(self, "owner", None), "location", None)
        message = (f"the symbolic comparison `{operator}` has no truth value when the graph is "
                   f"built: a chained comparison (a < b < c) or `if`/`and`/`or`/`not` on it cannot "
                   f"be computed; use T.and_(T.lt(a, b), T.lt(b, c)), T.switch or "
                   f"irc.ifelse.ifelse")
        if isinstance(location, FileLineColLoc):
            message = Diagnostic(message, location).render()
        raise TypeError(message)

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __len__(self):
        """The length of a vector known when the graph is built (`x.shape`, a constant)."""
        entries = _b().size_list(self) if getattr(self, "ndim", None) == 1 else None
        if entries is None:
            raise TypeError("a symbolic variable has no len() (its length is unknown when the graph "
                            "is built); use x.shape[0]")
        return len(entries)

    # -- shape
    @property
    def T(self): return _b().transpose(self)
    def transpose(self, *axes): return _b().transpose(self, axes[0] if len(axes) == 1 and
                                                      isinstance(axes[0], (tuple, list)) else axes or None)
    @property
    def shape(self): return _b().shape_vector(self)
    @property
    def size(self):  # a 0-d value's is 1, read from it (Theano's Shape(x) keeps x in the graph)
        return _m().prod(_b().shape(self)) if self.ndim else _b().Alloc()(_b().constant(1, dtype="int64"), self)
    def dimshuffle(self, *pattern):
        if len(pattern) == 1 and isinstance(pattern[0], (tuple, list)):
            pattern = tuple(pattern[0])
        return _b().dimshuffle(self, pattern)
    def reshape(self, shape, ndim=None): return _b().reshape(self, shape, ndim)
    def flatten(self, ndim=1): return _b().flatten(self, ndim)
    def __getitem__(self, index): return _b().subtensor(self, index)
    def astype(self, dtype): return _b().cast(self, dtype)

    # -- reductions
    def sum(self, axis=None, dtype=None, keepdims=False): return _m().sum(self, axis, dtype, keepdims)
    def prod(self, axis=None, dtype=None, keepdims=False): return _m().prod(self, axis, dtype, keepdims)
    def mean(self, axis=None, dtype=None, keepdims=False): return _m().mean(self, axis, dtype, keepdims)
    def max(self, axis=None, keepdims=False): return _m().max(self, axis, keepdims)
    def min(self, axis=None, keepdims=False): return _m().min(self, axis, keepdims)
    def argmax(self, axis=None, keepdims=False): return _m().argmax(self, axis, keepdims)
    def argmin(self, axis=None, keepdims=False): return _m().argmin(self, axis, keepdims)
    def var(self, axis=None, ddof=0, keepdims=False, corrected=False):
        return _m().var(self, axis, ddof, keepdims, corrected)
    def std(self, axis=None, ddof=0, keepdims=False, corrected=False):
        return _m().std(self, axis, ddof, keepdims, corrected)
    def any(self, axis=None, keepdims=False): return _m().any(self, axis, keepdims)
    def all(self, axis=None, keepdims=False): return _m().all(self, axis, keepdims)
    def dot(self, o): return _m().dot(self, o)
    def __matmul__(self, o): return _m().dot(self, o)
    def __rmatmul__(self, o): return _m().dot(o, self)
    def clip(self, lo, hi): return _m().clip(self, lo, hi)
    def norm(self, L=2, axis=None): return _m().norm(self, L, axis)
    def ptp(self, axis=None): return _m().ptp(self, axis)

    # -- Theano's other array methods
    def squeeze(self): return _x().squeeze(self)
    def swapaxes(self, axis1, axis2): return _x().swapaxes(self, axis1, axis2)
    def searchsorted(self, v, side="left", sorter=None): return _x().searchsorted(self, v, side, sorter)
    def compress(self, a, axis=None): return _x().compress(self, a, axis)  # (Theano's: self is the condition)
    def cumsum(self, axis=None): return _x().cumsum(self, axis)
    def cumprod(self, axis=None): return _x().cumprod(self, axis)
    def sort(self, axis=-1, kind="quicksort", order=None): return _x().sort(self, axis, kind, order)
    def argsort(self, axis=-1, kind="quicksort", order=None): return _x().argsort(self, axis, kind, order)
    def repeat(self, repeats, axis=None): return _x().repeat(self, repeats, axis)
    def round(self, mode=None): return _b().round(self) if mode is None else _b().round(self, mode)
    def take(self, indices, axis=None, mode="raise"): return _b().take(self, indices, axis, mode)
    def zeros_like(self, dtype=None): return _b().zeros_like(self, dtype)
    def ones_like(self, dtype=None): return _b().ones_like(self, dtype)
    def fill(self, value): return _b().fill(self, value)
    def copy(self, name=None): return _x().copy(self, name)
    def ravel(self): return _b().flatten(self)
    def nonzero(self, return_matrix=False): return _x().nonzero(self, return_matrix)
    def nonzero_values(self): return _x().nonzero_values(self)

    # -- complex numbers (Theano's `x.real`, `x.imag`, `x.conj()`)
    real = property(lambda self: _x().real(self))
    imag = property(lambda self: _x().imag(self))
    def conj(self): return _x().conj(self)
    def conjugate(self): return _x().conj(self)

    # -- evaluation
    def eval(self, inputs_to_values: dict | None = None):
        """The value of this variable given `{input: value}` (Python numbers and lists are
        converted as `irc.function` does); compiled natively once per set of inputs."""
        return _API["function"].eval_variable(self, inputs_to_values or {})


def _comparison_result(result: Any, operator: str) -> Any:
    """Mark the result of a comparison operator: its truth value is asked for only by a chained
    comparison or an `if` on it, both mistakes (Theano sets `_is_nonzero = False` likewise)."""
    result._comparison_operator = operator
    return result
