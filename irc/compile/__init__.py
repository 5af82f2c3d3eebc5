"""`irc.compile` (Theano's `theano.compile`): `function`, `pfunc`, `In`, `Out`, `shared`, the modes
(`MonitorMode` included), `ops.as_op`."""
from __future__ import annotations

from ..frontend.function import In, Out, UnusedInputError, function
from ..frontend.shared import SharedVariable, shared
from . import mode, monitormode, ops
from .mode import Mode, ProfileMode, get_default_mode
from .monitormode import MonitorMode
from .pfunc import pfunc  # the function, as in Theano (the module stays importable)

__all__ = ["In", "Mode", "MonitorMode", "monitormode", "Out", "SharedVariable", "ProfileMode", "function", "UnusedInputError", "get_default_mode", "mode", "ops", "pfunc", "shared"]
