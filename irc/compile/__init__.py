"""`irc.compile` (Theano's `theano.compile`): `function`, `In`, `Out`, `shared`, the modes, `ops.as_op`."""
from __future__ import annotations

from ..frontend.function import In, Out, UnusedInputError, function
from ..frontend.shared import shared
from . import mode, ops
from .mode import Mode, ProfileMode, get_default_mode

__all__ = ["In", "Mode", "Out", "ProfileMode", "function", "UnusedInputError", "get_default_mode", "mode", "ops", "shared"]
