"""`irc.gof` (Theano's `theano.gof`): the graph classes a user op is written with — `Op` (the
user op base: `make_node`, `perform`, `__props__`), `Apply`, `Variable`, `Constant`."""
from __future__ import annotations

from ..frontend.graph import Apply, Constant, Variable
from ..frontend.user_op import UserOp as Op
from . import op
from .op import PureOp

__all__ = ["Apply", "Constant", "Op", "PureOp", "Variable", "op"]
