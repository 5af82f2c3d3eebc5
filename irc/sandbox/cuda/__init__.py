"""`irc.sandbox.cuda`: Theano's `theano.sandbox.cuda` path (aliases, see `irc.sandbox`) and what
users' GPU ops allocate with (`CudaNdarray.zeros`, `empty`, `zeros`, `current_stream`)."""
from ...runtime.cuda.user_arrays import CudaNdarray, current_stream, empty, zeros
from . import basic_ops
from .basic_ops import as_cuda_ndarray_variable, gpu_contiguous, gpu_from_host, host_from_gpu

__all__ = ["CudaNdarray", "as_cuda_ndarray_variable", "basic_ops", "current_stream", "empty", "gpu_contiguous",
           "gpu_from_host", "host_from_gpu", "zeros"]
