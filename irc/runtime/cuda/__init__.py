"""The CUDA runtime: PyCUDA's primary-context device, device arrays, and the executor that runs
compiled kernels. PyCUDA is imported only when a GPU is first used."""
