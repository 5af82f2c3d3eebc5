"""`irc.sandbox.cuda.basic_ops`: the transfers, `gpu_contiguous` and `as_cuda_ndarray_variable`
under Theano's module path."""
from ...frontend.gpu_variables import as_cuda_ndarray_variable, gpu_contiguous
from ...frontend.transfers import GpuFromHost, HostFromGpu, gpu_from_host, host_from_gpu

__all__ = ["GpuFromHost", "HostFromGpu", "as_cuda_ndarray_variable", "gpu_contiguous", "gpu_from_host",
           "host_from_gpu"]
