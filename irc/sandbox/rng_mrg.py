"""`irc.sandbox.rng_mrg` (Theano's `theano.sandbox.rng_mrg`): `MRG_RandomStreams`
(irc/frontend/mrg_random_streams.py)."""
from ..frontend.mrg_random_streams import MRG_RandomStreams

__all__ = ["MRG_RandomStreams"]
