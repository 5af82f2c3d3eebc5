"""The LLVM layer both code generators share: scalar ops to LLVM instructions with numpy's
semantics, the inline math library, and memref descriptors as SSA values. It knows llvmlite and
the loop/scalar dialects, nothing of a target: `codegen_cpu` and `codegen_ptx` build on it."""
