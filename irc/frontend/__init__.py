"""The Theano-compatible frontend: the symbolic graph (`graph`), its ops, `shared`, `grad`.
The user-facing namespace is `irc.tensor`."""
