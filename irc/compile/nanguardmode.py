"""`irc.compile.nanguardmode` (Theano's `theano.compile.nanguardmode`): `NanGuardMode`."""
from __future__ import annotations

from ..frontend.nanguard import BIG, NanGuardMode

__all__ = ["BIG", "NanGuardMode"]
