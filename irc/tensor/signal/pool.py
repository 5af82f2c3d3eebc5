"""`irc.tensor.signal.pool` (Theano's `theano.tensor.signal.pool`): not supported yet.

Importing it fails with a message that names what is missing, as `irc.tensor.NOT_SUPPORTED`
does for names of `irc.tensor`, instead of a bare "no module named" error."""
raise ImportError("irc.tensor.signal.pool is not supported yet: pooling (pool_2d, max_pool_2d_same_size, "
                  "Pool) is not implemented (see docs/frontend.md)")
