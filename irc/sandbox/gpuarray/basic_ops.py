"""`irc.sandbox.gpuarray.basic_ops`: the transfers under Theano's module path."""
from ...frontend.transfers import GpuFromHost, HostFromGpu, gpu_from_host, host_from_gpu

__all__ = ["GpuFromHost", "HostFromGpu", "gpu_from_host", "host_from_gpu"]
