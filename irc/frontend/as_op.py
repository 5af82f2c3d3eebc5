"""`as_op` (Theano's `theano.compile.ops.as_op`): a numpy function of fixed input and output
types made an op in one line, `@as_op(itypes=[T.dmatrix], otypes=[T.dvector])`.

The op's identity is the function's: two decorations of one function are one op, and the IR
names it by the function's module and qualified name. A module-level decorated function
pickles by that name (the op object replaces the function there), as in Theano."""
from __future__ import annotations

import importlib
from typing import Any, Callable, Sequence

import numpy as np

from .basic import as_tensor_variable
from .graph import Apply, Variable
from .tensor_type import TensorType
from .user_op import UserOp


class FromFunctionOp(UserOp):
    """The op `as_op` makes: `perform` calls `fn(*inputs)` and stores its result(s)."""

    __props__ = None

    def __init__(self, fn: Callable, itypes: Sequence[TensorType], otypes: Sequence[TensorType],
                 infer_shape: Callable | None = None):
        for what, types in (("itypes", itypes), ("otypes", otypes)):
            for t in types:
                if not isinstance(t, TensorType):
                    raise TypeError(f"as_op({fn.__name__}): {what} must be tensor types (T.dmatrix, "
                                    f"T.fvector, ...), got {t!r}")
        self.fn = fn
        self.itypes = list(itypes)
        self.otypes = list(otypes)
        self._infer_shape = infer_shape
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.fn is other.fn  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), self.fn))

    def __str__(self) -> str:
        return f"FromFunctionOp{{{self.fn.__name__}}}"

    def ir_key_text(self) -> str:
        return f"{{fn={self.fn.__module__}.{self.fn.__qualname__}}}"

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != len(self.itypes):
            raise TypeError(f"{self} takes {len(self.itypes)} input(s), got {len(inputs)}")
        variables = [as_tensor_variable(x) for x in inputs]
        for i, (v, t) in enumerate(zip(variables, self.itypes)):
            if v.type != t:
                raise TypeError(f"{self}: input #{i} has type {v.type}, but as_op declared {t}")
        return Apply(self, variables, [t() for t in self.otypes])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list[list]) -> None:
        outs = self.fn(*inputs)
        if not isinstance(outs, (list, tuple)):
            outs = (outs,)
        if len(outs) != len(self.otypes):
            raise ValueError(f"{self}: the function returned {len(outs)} value(s), as_op declared "
                             f"{len(self.otypes)} output type(s)")
        for cell, value in zip(output_storage, outs):
            cell[0] = value

    def infer_shape(self, node: Apply, input_shapes: list) -> list:
        if self._infer_shape is None:
            raise NotImplementedError(f"{self}: as_op was given no infer_shape")
        return self._infer_shape(node, input_shapes)

    def __reduce__(self) -> tuple:
        module, name = self.fn.__module__, self.fn.__qualname__
        try:
            found = _load_by_name(module, name)
        except (ImportError, AttributeError):
            found = None
        if found is not self:
            raise TypeError(f"{self} cannot be pickled: pickle finds an as_op by its name, and "
                            f"{module}.{name} is not this op (decorate a module-level function)")
        return _load_by_name, (module, name)


def _load_by_name(module: str, qualname: str) -> Any:
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def as_op(itypes: Sequence[TensorType], otypes: Sequence[TensorType],
          infer_shape: Callable | None = None) -> Callable[[Callable], FromFunctionOp]:
    """Decorate a numpy function taking arrays of `itypes` and returning arrays of `otypes`
    (one value, or a list for several); the result is an op: call it on symbolic variables."""
    itypes = list(itypes) if isinstance(itypes, (list, tuple)) else [itypes]
    otypes = list(otypes) if isinstance(otypes, (list, tuple)) else [otypes]

    def decorate(fn: Callable) -> FromFunctionOp:
        return FromFunctionOp(fn, itypes, otypes, infer_shape)
    return decorate


__all__ = ["FromFunctionOp", "Variable", "as_op"]
