"""`irc.CudaKernelOp`: irc's declarative GPU op — a kernel and what irc needs to launch it,
instead of a `make_thunk` written by hand.

    class Axpb(irc.CudaKernelOp):
        __props__ = ("a", "b")
        kernel_name = "axpb"
        source = '''__global__ void axpb(const float *x, float *y, float a, float b, long n) {...}'''

        def kernel_args(self, shapes):            # after the input and output pointers
            return (numpy.float32(self.a), numpy.float32(self.b), numpy.int64(shapes.size))

A subclass gives the kernel as CUDA C (`source`, compiled once with PyCUDA's compiler and
cached on disk with irc's other compiled code; nvcc needed) or as PTX (`ptx`, loaded by the
driver), its `kernel_name`, and may override:

* `output_types(input_types)`: the outputs' types (default: one output of input 0's type);
  `input_dtypes` lists the dtypes the kernel is written for (checked when the op is applied);
* `infer_shape(node, input_shapes)`: the outputs' shapes from the inputs' (tuples of ints, at
  run time; default: input 0's shape);
* `block(shapes)` and `grid(shapes)`: the launch configuration (default: 256 threads a block,
  enough blocks for `shapes.size`, the elements of output 0);
* `kernel_args(shapes)`: the scalars passed after the pointers of the inputs then of the
  outputs (default: `numpy.int64(shapes.size)`).

It is then a GPU op like one with a hand-written `make_thunk` (`tensor.custom {device =
"cuda"}`, run between device parts on irc's stream); `_f16_ok` and `__props__` mean what they
mean for any op. The kernel is compiled when the function first runs."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..runtime.cuda.user_arrays import current_stream, empty
from ..runtime.cuda.user_kernels import load_kernel
from .basic import as_tensor_variable
from .graph import Apply, Variable, user_location
from .tensor_type import TensorType
from .user_op import UserOp, UserOpError


@dataclass(frozen=True)
class KernelShapes:
    """What a launch configuration is computed from: the inputs' and outputs' shapes."""

    inputs: tuple[tuple[int, ...], ...]
    outputs: tuple[tuple[int, ...], ...]

    @property
    def size(self) -> int:
        """The number of elements of output 0."""
        return int(np.prod(self.outputs[0], dtype=np.int64)) if self.outputs else 0


class CudaKernelOp(UserOp):
    """See the module docstring."""

    __props__: tuple[str, ...] | None = ()
    source: str | None = None
    ptx: str | None = None
    kernel_name: str = ""
    no_extern_c = False            # PyCUDA's: the CUDA C source is wrapped in extern "C" unless set
    nvcc_options: tuple[str, ...] = ()
    input_dtypes: tuple[str, ...] | None = None
    threads_per_block = 256

    # -- what a subclass may override
    def output_types(self, input_types: Sequence[TensorType]) -> list[TensorType]:
        return [input_types[0]]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple[int, ...]]) -> list:  # type: ignore[override]
        return [tuple(input_shapes[0])]

    def block(self, shapes: KernelShapes) -> tuple[int, ...]:
        return (self.threads_per_block, 1, 1)

    def grid(self, shapes: KernelShapes) -> tuple[int, ...]:
        return (max(1, -(-shapes.size // self.threads_per_block)), 1)

    def kernel_args(self, shapes: KernelShapes) -> tuple:
        return (np.int64(shapes.size),)

    # -- the op
    def make_node(self, *inputs: Any) -> Apply:
        variables: list[Variable] = [as_tensor_variable(v) for v in inputs]
        if self.input_dtypes is not None:
            for i, v in enumerate(variables):
                allowed = self.input_dtypes[min(i, len(self.input_dtypes) - 1)]
                if v.dtype != allowed:
                    raise UserOpError(f"{self} (at {user_location()}): input #{i} is {v.dtype}, but the kernel '{self.kernel_name}' "
                                      f"is written for {allowed} (input_dtypes = {self.input_dtypes}); cast it")
        types = self.output_types([v.type for v in variables])
        return Apply(self, variables, [t() for t in types])

    def make_thunk(self, node: Apply, storage_map: dict, compute_map: dict, no_recycling: list) -> Any:
        what = f"{self} (a CudaKernelOp, kernel '{self.kernel_name}')"
        kernel = load_kernel(what, self.kernel_name, source=self.source, ptx=self.ptx,
                             no_extern_c=self.no_extern_c, options=self.nvcc_options)
        ins = [storage_map[v] for v in node.inputs]
        outs = [storage_map[v] for v in node.outputs]
        declared = [v.type for v in node.outputs]
        dtypes = [t.dtype for t in declared]

        def thunk() -> None:
            in_shapes = tuple(tuple(int(d) for d in cell[0].shape) for cell in ins)
            out_shapes = tuple(tuple(int(d) for d in s) for s in self.infer_shape(node, in_shapes))
            if len(out_shapes) != len(outs):
                raise ValueError(f"{self}.infer_shape gave {len(out_shapes)} shape(s) for {len(outs)} output(s)")
            for k, (s, t) in enumerate(zip(out_shapes, declared)):  # checked before the kernel writes
                if len(s) != t.ndim or any(b and n != 1 for n, b in zip(s, t.broadcastable)):
                    raise ValueError(f"{self}.infer_shape gave shape {s} for output #{k}, but output_types "
                                     f"declared {t} ({t.ndim} dimension(s), broadcastable {t.broadcastable})")
            arrays = [empty(s, dt) for s, dt in zip(out_shapes, dtypes)]
            for cell, a in zip(outs, arrays):
                cell[0] = a
            shapes = KernelShapes(in_shapes, out_shapes)
            if shapes.size == 0:
                return  # nothing to compute (CUDA refuses an empty grid)
            kernel(*[cell[0] for cell in ins], *arrays, *self.kernel_args(shapes),
                   block=tuple(self.block(shapes)), grid=tuple(self.grid(shapes)), stream=current_stream())
        return thunk
