"""`irc.compile.mode` (Theano's `theano.compile.mode`): `Mode`, `ProfileMode`,
`get_default_mode`, and the mode names as strings (irc/frontend/modes.py)."""
from __future__ import annotations

from ..frontend.modes import FAST_COMPILE, FAST_RUN, Mode, ProfileMode, get_default_mode, get_mode

__all__ = ["FAST_COMPILE", "FAST_RUN", "Mode", "ProfileMode", "get_default_mode", "get_mode"]
