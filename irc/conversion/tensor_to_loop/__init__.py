"""The tensor-to-loop lowering (`lower-to-loops`): a tensor-level function bufferized into a
loop-dialect function.

Three layers, each importing only the ones below it:

* `context.py`: `FuncLowering` (the state of one function being lowered and the helpers every
  pattern shares) and the tables the patterns register into;
* the patterns, one module per family of tensor ops (`elementwise.py`, `shapes.py`, `reduce.py`,
  `linalg.py`, ...), with the kernels and helpers they share (`gemm.py`, `gemv.py`,
  `column_sums.py`, `linalg_common.py`, `reduction_kinds.py`, `index_trace.py`, `simd.py`);
* `lower_to_loops.py`: the pass, which imports every pattern module, so that going through it
  (the pass, `lower_function`) finds them all registered. `memory_profile.py` replays what it
  allocates.
"""
