"""`irc.tensor.signal` (Theano's `theano.tensor.signal`): the package of pooling, `pool`, which
irc does not have yet (`from irc.tensor.signal import pool` says so; see docs/frontend.md)."""
