"""The user's elementwise functions (`T.add`, `T.exp`, ...) as objects that print as Theano's ops
do (`str(T.add) == "Elemwise{add,no_inplace}"`): in Theano each of these names *is* an Elemwise
op, and programs (Theano's own tests among them) name things after that text. Calling one
builds the graph exactly as the plain function would."""
from __future__ import annotations

import functools
import sys
from typing import Any, Callable

from .elemwise import THEANO_NAMES


class ElemwiseFunction:
    """A callable that builds table row `row`'s op and prints as Theano's op of that name."""

    def __init__(self, build: Callable[..., Any], row: str, name: str | None = None):
        functools.update_wrapper(self, build)
        self._build = build
        self.row = row
        self.__name__ = name or build.__name__
        self.__qualname__ = self.__name__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._build(*args, **kwargs)

    def __str__(self) -> str:
        return f"Elemwise{{{THEANO_NAMES.get(self.row, self.row)},no_inplace}}"

    __repr__ = __str__

    def __reduce__(self) -> str:
        """Pickled by reference, as a function is: the name its module binds it to."""
        module = sys.modules[self.__module__]
        return next((name for name, value in vars(module).items() if value is self), self.__name__)


def elemwise_function(row: str) -> Callable[[Callable[..., Any]], ElemwiseFunction]:
    """Decorator: `build` (a function of irc/frontend/basic.py) as the `ElemwiseFunction` of `row`."""
    def wrap(build: Callable[..., Any]) -> ElemwiseFunction:
        return ElemwiseFunction(build, row)
    return wrap
