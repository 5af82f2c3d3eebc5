"""`theano.sandbox`: only `rng_mrg`."""
from . import rng_mrg  # noqa: F401
