"""`irc.compile.ops` (Theano's `theano.compile.ops`): `as_op`, a numpy function as an op."""
from __future__ import annotations

from ..frontend.as_op import FromFunctionOp, as_op

__all__ = ["FromFunctionOp", "as_op"]
