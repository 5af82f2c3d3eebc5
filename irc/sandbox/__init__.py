"""`irc.sandbox`: the module paths Theano's GPU tutorials import from
(`sandbox.cuda.basic_ops.gpu_from_host`, `sandbox.gpuarray.basic_ops.gpu_from_host`,
`sandbox.rng_mrg.MRG_RandomStreams`): aliases of the frontend's transfers and random streams."""
from . import cuda, gpuarray, rng_mrg

__all__ = ["cuda", "gpuarray", "rng_mrg"]
