"""A random draw's generator state as a shared variable: the int64 vector `[key0, key1, draw]`
of Philox4x32-10 (`irc/dialects/philox.py`), seen by the user as a `RandomState`.

Theano keeps a numpy `RandomState` in the shared variable; irc keeps the Philox state, since
the compiled code draws the numbers. `get_value()` returns it as a `RandomState` (an int64
array of 3 with numpy's `seed`, `get_state`, `set_state`), so the tutorial's
`r = v.rng.get_value(borrow=True); r.seed(1); v.rng.set_value(r, borrow=True)` and saving then
restoring `get_state()` work, and restoring a state replays its numbers exactly."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..dialects.philox import MASK32, philox4x32
from ..dialects.tensor_random import STATE_SIZE
from .shared import SharedVariable
from .tensor_type import TensorType

STATE_TYPE = TensorType("int64", (False,))
_SEED_DOMAIN = 0x5EED  # the 4th counter word of key derivation: apart from any draw's counter


def state_for_seed(seed: Any, stream: int = 0) -> np.ndarray:
    """The state of draw number `stream` of a generator seeded `seed` (an int in [0, 2^64)):
    its key is Philox's block of (key = seed, counter = (stream, 0, 0, _SEED_DOMAIN)), so every
    draw of every seed has its own key; the draw counter starts at 0."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"a seed must be an integer, got {type(seed).__name__} {seed!r}")
    seed = int(seed)
    if not 0 <= seed < 1 << 64:
        raise ValueError(f"a seed must be in [0, 2**64), got {seed}")
    words = philox4x32((seed & MASK32, seed >> 32), (stream, 0, 0, _SEED_DOMAIN))
    return np.array([int(words[0]), int(words[1]), 0], dtype=np.int64)


def fresh_seed() -> int:
    """A seed from the operating system's entropy (RandomStreams(seed=None))."""
    return int(np.random.SeedSequence().entropy) & ((1 << 64) - 1)


class RandomState(np.ndarray):
    """A Philox state `[key0, key1, draw]` with numpy RandomState's seeding methods; methods
    change the array in place (a view from `get_value(borrow=True)` changes the variable)."""

    def seed(self, seed: Any = None) -> None:
        self[...] = state_for_seed(fresh_seed() if seed is None else seed)

    def get_state(self) -> np.ndarray:
        return np.array(self, dtype=np.int64)

    def set_state(self, state: Any) -> None:
        self[...] = check_state(state)


def check_state(value: Any) -> np.ndarray:
    """`value` as a plain int64 state array, or a ValueError saying what a state is."""
    arr = np.asarray(value)
    if arr.shape != (STATE_SIZE,) or arr.dtype.kind not in "iu":
        raise ValueError(f"a generator state is an integer array [key0, key1, draw] of {STATE_SIZE}, got "
                         f"{arr.dtype} of shape {arr.shape}")
    if not (0 <= int(arr[0]) <= MASK32 and 0 <= int(arr[1]) <= MASK32 and int(arr[2]) >= 0):
        raise ValueError(f"a generator state has keys in [0, 2**32) and a draw count >= 0, got {arr.tolist()}")
    return np.array(arr, dtype=np.int64)


class RandomStateSharedVariable(SharedVariable):
    """The shared variable of one draw's generator state (Theano's name)."""

    def __init__(self, state: np.ndarray, name: str | None = None):
        super().__init__(STATE_TYPE, check_state(state), name)

    def get_value(self, borrow: bool = False, return_internal_type: bool = False) -> Any:
        value = super().get_value(borrow, return_internal_type)
        return value.view(RandomState) if isinstance(value, np.ndarray) else value

    def set_value(self, value: Any, borrow: bool = False) -> None:
        super().set_value(check_state(value), borrow=True)  # check_state made a fresh array
