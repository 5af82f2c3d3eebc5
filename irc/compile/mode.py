"""`irc.compile.mode` (Theano's `theano.compile.mode`): `Mode`, `ProfileMode`,
`get_default_mode`, and the mode names as strings."""
from __future__ import annotations

from ..frontend.modes import Mode, ProfileMode, get_default_mode

FAST_RUN = "FAST_RUN"
FAST_COMPILE = "FAST_COMPILE"

__all__ = ["FAST_COMPILE", "FAST_RUN", "Mode", "ProfileMode", "get_default_mode"]
