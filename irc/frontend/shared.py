"""Shared variables: symbolic leaves with a value that persists across calls (`irc.shared`).

A compiled function receives a shared variable as an argument (`irc.shared = "name"` in the
IR signature) and may return its new value (`updates`). The value lives in `container`, so
the runtime can keep it on the device and swap it without the user's copy being touched."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..base.config import config
from ..runtime.targets import TARGETS, active, resolve
from .graph import Variable, ancestors
from .tensor_type import TensorType, floatX


class Container:
    """The storage cell of a shared variable; `value` is a numpy array, or a runtime's device
    array (anything numpy can convert with `np.asarray`). As in Theano, the cell is the
    one-element list `storage` and `value` reads and writes `storage[0]`."""

    def __init__(self, value: Any):
        self.storage = [value]

    @property
    def value(self) -> Any:
        return self.storage[0]

    @value.setter
    def value(self, value: Any) -> None:
        self.storage[0] = value

    def __repr__(self) -> str:
        return f"Container({self.value!r})"


class SharedVariable(Variable):
    """A leaf of the graph holding a value (`get_value`/`set_value`)."""

    default_update: Variable | None = None  # what `del sv.default_update` leaves
    strict = False  # set_value takes only arrays of the type's dtype (Theano's container rule)
    allow_downcast: bool | None = None  # set_value may round a value to the dtype

    def __init__(self, type: TensorType, value: np.ndarray, name: str | None = None, strict: bool = False,
                 allow_downcast: bool | None = None):
        super().__init__(type, None, None, name)
        host = type.filter(value, strict=strict, allow_downcast=allow_downcast)
        self.strict, self.allow_downcast = bool(strict), allow_downcast
        self._to_storage = active(config).to_storage  # where the value lives, for good
        self.container = Container(self._to_storage(host))
        self.default_update: Variable | None = None

    def test_value_for_printing(self) -> Any:
        return self.get_value()

    def get_value(self, borrow: bool = False, return_internal_type: bool = False) -> Any:
        """The value (a copy unless `borrow`); a device value comes back as numpy unless
        `return_internal_type`."""
        v = self.container.value
        if not isinstance(v, np.ndarray) and not return_internal_type:
            return np.asarray(v)
        return v if borrow else v.copy()

    def set_value(self, value: Any, borrow: bool = False) -> None:
        """Replace the value (copied unless `borrow`); dtype and rank must fit the type, by the
        `strict` and `allow_downcast` it was made with. A value kept on a device is overwritten
        in place when shape and dtype match."""
        arr = self.type.filter(value, strict=self.strict, allow_downcast=self.allow_downcast)
        old = self.container.value
        if isinstance(old, np.ndarray):
            if not borrow and arr is value:
                arr = np.array(arr, copy=True)
            self.container.value = arr
        elif old.shape == arr.shape and old.dtype == arr.dtype:
            # a device array: copied over, same buffer (`ascontiguousarray` would make a 0-d one 1-d)
            old.set(arr if arr.flags.c_contiguous else np.ascontiguousarray(arr))
        else:
            self.container.value = self._to_storage(arr)  # on its device, whatever is active now

    def __getstate__(self) -> dict:
        """Pickled (and deep-copied) with its value on the host and its device by target name:
        a device array does not pickle, and the loading machine may have no GPU."""
        state = dict(self.__dict__)
        state["container"] = Container(self.get_value(borrow=True))
        state["_to_storage"] = _storage_name(self._to_storage)
        return state

    def __setstate__(self, state: dict) -> None:
        """Back on the device it was on, or on the cpu where that device cannot be used
        (`config.device`'s fallback: one warning, `DeviceUnavailable` with `force_device`)."""
        where = state.pop("_to_storage")
        if isinstance(where, str):
            where = resolve(where, config.force_device).to_storage
        self.__dict__.update(state)
        self._to_storage = where
        self.container = Container(where(state["container"].value))

    @property
    def value(self) -> Any:
        return self.get_value(borrow=True)

    def clone(self) -> "SharedVariable":
        return self  # a shared variable is one storage cell: never duplicated

    def __str__(self) -> str:
        return self.name if self.name is not None else f"<{self.type}>"


def _storage_name(to_storage: Any) -> Any:
    """The name of the target keeping values with `to_storage`, else `to_storage` itself."""
    for target in TARGETS.values():
        if target.to_storage is to_storage:
            return target.name
    return to_storage


def default_updates(roots: Any, given: Sequence[tuple[Any, Any]], skip: Sequence[Any] = (),
                    blockers: Sequence[Any] = ()) -> list[tuple[Any, Any]]:
    """Theano's `default_update`: (shared variable, its default update) for each shared variable
    the graph of `roots` reads (down to `blockers`) that carries one, unless `given` updates it
    or it is in `skip` — also those that the default updates found read, as Theano chains them."""
    taken = {id(v) for v, _ in given} | {id(v) for v in skip}
    found: list[tuple[Any, Any]] = []
    frontier = list(roots)
    while frontier:  # a default update may read shared variables with default updates of their own
        new = [(v, v.default_update) for v in ancestors(frontier, blockers=blockers)  # (each once)
               if isinstance(v, SharedVariable) and v.default_update is not None and id(v) not in taken]
        taken |= {id(v) for v, _ in new}
        found += new
        frontier = [update for _, update in new]
    return found


def shared(value: Any, name: str | None = None, strict: bool = False, allow_downcast: bool | None = None,
           borrow: bool = False, broadcastable: Sequence[bool] | None = None) -> SharedVariable:
    """A shared variable holding `value` (copied unless `borrow`).

    numpy arrays and scalars keep their dtype; a Python float becomes floatX, a Python int
    int64, a bool bool. No dimension is broadcastable unless `broadcastable=` says so (the
    value may later change shape)."""
    if isinstance(value, Variable):
        raise TypeError("shared() takes a value (a numpy array or a number), not a symbolic variable")
    if isinstance(value, np.ndarray):
        arr = value if borrow else value.copy()
    elif isinstance(value, np.generic):
        arr = np.asarray(value)
    elif isinstance(value, bool):
        arr = np.asarray(value, dtype="bool")
    elif isinstance(value, int):
        arr = np.asarray(value, dtype="int64")
    elif isinstance(value, float):
        arr = np.asarray(value, dtype=floatX())
    else:
        arr = np.asarray(value)
        if arr.dtype.kind == "f":
            arr = arr.astype(floatX())
    if arr.dtype.kind == "O":
        raise TypeError(f"shared() cannot hold a {type(value).__name__}")
    bcast = tuple(broadcastable) if broadcastable is not None else (False,) * arr.ndim
    if len(bcast) != arr.ndim:
        raise ValueError(f"broadcastable {bcast} does not match a value of ndim {arr.ndim}")
    return SharedVariable(TensorType(arr.dtype.name, bcast), arr, name=name, strict=strict,
                          allow_downcast=allow_downcast)
