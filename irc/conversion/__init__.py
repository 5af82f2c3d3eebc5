"""Conversions: passes that take a program from one level of dialects to the next one down.

As in MLIR, where `Conversion/` sits beside `Transforms/`: a pass in `irc/passes/` rewrites a
program within one level (tensor ops into better tensor ops, loops into better loops), a
conversion here changes the level itself:

* `tensor_to_loop/` (`lower-to-loops`): tensor-level functions, bufferized into loops over memrefs;
* `loop_to_gpu.py` (`outline-kernels`): loop nests over device buffers into `gpu.func` kernels.

Conversions sit above the passes and may use them (`lower-to-loops` plans its buffers with
`passes/plan_buffers.py`); the passes never import a conversion. Importing this package
registers its passes in `PASS_REGISTRY` (the composition point, `irc/plugins.py`, loads it with
`irc.passes`).
"""
from __future__ import annotations

from . import loop_to_gpu  # noqa: F401  (registers outline-kernels)
from .tensor_to_loop import lower_to_loops  # noqa: F401  (registers lower-to-loops)
