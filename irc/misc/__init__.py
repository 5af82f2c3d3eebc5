"""`irc.misc` (Theano's `theano.misc`): `pycuda_init`, imported for its effect."""
