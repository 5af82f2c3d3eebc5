"""`irc.ifelse` (Theano's `theano.ifelse`): `ifelse`, the lazy conditional, and its op `IfElse`
(the builder is `irc/frontend/ifelse.py`)."""
from .frontend.ifelse import ifelse
from .frontend.ifelse_op import IfElse

__all__ = ["IfElse", "ifelse"]
