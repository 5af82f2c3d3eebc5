"""The GPU backend's code generator: `gpu.func` kernels to PTX through llvmlite's NVPTX target.

Entry points: `pipeline.lower_for_gpu` (tensor module -> kernels + host functions) and
`pipeline.compile_kernels` (kernels -> PTX); `abi` is the kernel parameter contract shared
with the runtime and the emulator. Nothing here imports `irc.codegen_cpu`.
"""
