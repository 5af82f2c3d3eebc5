"""The values a compiled function keeps for its inputs (Theano's containers): an input's
default (`In(x, value=...)`), and the state an `In(x, value=..., update=...)` carries from one
call to the next. `f[x]`, `f['name']`, `f.value[x]` read a value; `f[x] = v` sets it;
`f.container[x]` is the cell itself, which another function may take as its input's value
(`In(s, value=f.container[s])`) so that both read and update one state."""
from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

from .errors import InputError


class InputContainer:
    """One input's cell: `storage` is a one-element list (Theano's layout), `value` its
    content, None while the input has no value of its own. Setting `value` checks it against
    the input's type (a Python number becomes an array of the input's dtype)."""

    def __init__(self, type: Any, value: Any = None, allow_downcast: bool | None = None):
        self.type = type
        self.allow_downcast = allow_downcast
        self.storage: list[Any] = [None]
        if value is not None:
            self.value = value

    @property
    def value(self) -> Any:
        return self.storage[0]

    @value.setter
    def value(self, value: Any) -> None:
        try:
            self.storage[0] = self.type.filter(value, strict=False, allow_downcast=self.allow_downcast)
        except TypeError as e:
            raise InputError(f"cannot store {value!r} as the value of an input of type {self.type}: {e}") from None

    @property
    def data(self) -> Any:  # Theano's other spelling
        return self.storage[0]

    def __repr__(self) -> str:
        return f"InputContainer({self.storage[0]!r})"


class InputLookup:
    """`f.container` (`cells=True`) or `f.value`: an input's cell or value by its variable, its
    name or its position among the function's inputs."""

    def __init__(self, specs: Sequence[Any], where: Callable[[], str], cells: bool):
        self._specs = specs
        self._where = where
        self._cells = cells

    def spec(self, key: Any) -> Any:
        """The input `key` stands for; a KeyError naming the inputs when there is none."""
        if isinstance(key, int) and not isinstance(key, bool):
            if -len(self._specs) <= key < len(self._specs):
                return self._specs[key]
        else:
            found = [s for s in self._specs if s.variable is key]
            if not found and isinstance(key, str):
                found = [s for s in self._specs if s.name == key]
                if len(found) > 1:
                    raise KeyError(f"{self._where()}: {len(found)} inputs are named {key!r}; "
                                   f"use the variable itself as the key")
            if found:
                return found[0]
        names = ", ".join(str(s.name or s.variable) for s in self._specs) or "none"
        raise KeyError(f"{self._where()} has no input {key!r} (its inputs: {names})")

    def __getitem__(self, key: Any) -> Any:
        cell = self.spec(key).container
        return cell if self._cells else cell.value

    def __setitem__(self, key: Any, value: Any) -> None:
        if self._cells:
            raise TypeError(f"{self._where()}: a container cannot be replaced; set its value "
                            f"(f[x] = value or f.container[x].value = value)")
        self.spec(key).container.value = value

    def __contains__(self, key: Any) -> bool:
        try:
            self.spec(key)
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[Any]:
        return iter(s.variable for s in self._specs)

    def __len__(self) -> int:
        return len(self._specs)
