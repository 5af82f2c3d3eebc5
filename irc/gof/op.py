"""`irc.gof.op` (Theano's `theano.gof.op`): `Op` and `PureOp` (the same base in irc)."""
from __future__ import annotations

from ..frontend.user_op import UserOp as Op

PureOp = Op

__all__ = ["Op", "PureOp"]
