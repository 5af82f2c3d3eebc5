"""`irc.tensor.shared_randomstreams` (`T.shared_randomstreams`; Theano's
`theano.tensor.shared_randomstreams`): `RandomStreams` and the shared variable holding a
stream's state, `RandomStateSharedVariable` (the code is irc/frontend/random_streams.py and
random_state.py)."""
from __future__ import annotations

from ..frontend.random_state import RandomStateSharedVariable
from ..frontend.random_streams import RandomStreams

__all__ = ["RandomStateSharedVariable", "RandomStreams"]
