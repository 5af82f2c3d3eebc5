"""`irc.tensor.opt` (Theano's `theano.tensor.opt`, the module of its graph rewrites): of it,
irc has the `Assert` op users build graphs with (irc's rewrites are passes over the IR:
irc/passes/)."""
from __future__ import annotations

from ..frontend.assert_op import Assert, assert_op

__all__ = ["Assert", "assert_op"]
