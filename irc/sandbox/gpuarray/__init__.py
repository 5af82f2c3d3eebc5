"""`irc.sandbox.gpuarray`: Theano's `theano.sandbox.gpuarray` path (aliases, see `irc.sandbox`)."""
from . import basic_ops
from .basic_ops import gpu_from_host, host_from_gpu

__all__ = ["basic_ops", "gpu_from_host", "host_from_gpu"]
