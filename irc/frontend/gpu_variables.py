"""`as_cuda_ndarray_variable` and `gpu_contiguous`, which the tutorial's GPU ops call in
`make_node`: placement hints in irc. The frontend's graph is a host graph; `insert-transfers`
puts a GPU op's inputs on the device, where irc's arrays are always dense and row-major, so
"contiguous" holds already."""
from __future__ import annotations

from typing import Any

from .basic import as_tensor_variable
from .graph import Variable
from .transfers import gpu_from_host


def as_cuda_ndarray_variable(x: Any) -> Variable:
    """`x` as a variable meant for the device (float32, as the old backend's arrays)."""
    v = as_tensor_variable(x)
    if v.dtype != "float32":
        raise TypeError(f"as_cuda_ndarray_variable: the old GPU backend holds float32 only, got {v.type} "
                        f"(cast it, or use any dtype with irc's own GPU ops)")
    return gpu_from_host(v)


def gpu_contiguous(x: Any) -> Variable:
    """`x` itself: irc's device arrays are always C-contiguous."""
    return as_tensor_variable(x)
