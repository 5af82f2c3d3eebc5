"""`irc.tensor.signal` (Theano's `theano.tensor.signal`): the package of pooling, `pool`."""
