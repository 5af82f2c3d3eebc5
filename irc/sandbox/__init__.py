"""`irc.sandbox`: the module paths Theano's GPU tutorials import from
(`sandbox.cuda.basic_ops.gpu_from_host`, `sandbox.gpuarray.basic_ops.gpu_from_host`).
Aliases of the frontend's transfers (`irc/frontend/transfers.py`), nothing more."""
from . import cuda, gpuarray

__all__ = ["cuda", "gpuarray"]
