"""`gpu`: kernels and their launches, the level between loops over device buffers and PTX.

A `gpu.func` is a kernel: a symbol, typed arguments (device memrefs, indices, scalars) and one
body run by every thread of the grid; it reads and writes only device memory. The host function
starts it with `gpu.launch @kernel(args) work %n`, where `work` is the number of iteration
points the kernel covers: what the runtime needs to size the grid (`irc.codegen_ptx.abi`).
`gpu.gemm` is the other device work a host function starts: a matrix product done by the
device's BLAS library (cuBLAS), as MLIR's `gpu.spmm` is one done by cuSPARSE.
Inside a kernel, `gpu.thread_id` / `gpu.block_id` / `gpu.block_dim` / `gpu.grid_dim` read the
x coordinates of the CUDA grid as indices, and `gpu.barrier` synchronizes a block;
`gpu.shuffle_xor` trades values between the lanes of a warp (in device loop nests too, before
they are outlined: see its doc).
"""
from __future__ import annotations

from typing import Sequence

from ..ir.attributes import FloatAttr, IntegerAttr, SymbolRefAttr
from ..ir.core import Operation, Value
from ..ir.types import ScalarType, Type, i1, index
from .builtin import MemRefType, ModuleOp
from .func import FuncOp, ReturnOp as FuncReturnOp, types_text
from .loop import IndexOp


WARP_SIZE = 32  # threads that run in lockstep and trade registers (`gpu.shuffle_xor`)


def is_device_memref(t: Type) -> bool:
    return isinstance(t, MemRefType) and t.device is not None


def kernel_arg_error(t: Type) -> str | None:
    """Why `t` cannot be a kernel argument (None: it can)."""
    if isinstance(t, MemRefType):
        return None if t.device is not None else f"{t} is in host memory, which a kernel cannot read"
    if isinstance(t, ScalarType):
        return None
    return f"{t} is neither a device memref, an index nor a scalar"


class GpuFuncOp(FuncOp):
    """`gpu.func @k(%a: memref<?xf32, "cuda">, %n: index) { ... gpu.return }`: a kernel.

    The attribute `items_per_thread = 4` (set by `outline-kernels`) says that one thread
    handles up to that many consecutive work items per step of its grid-stride loop, which
    the grid size follows (`abi.launch_dims`)."""

    name = "gpu.func"

    @property
    def items_per_thread(self) -> int:
        attr = self.attributes.get("items_per_thread")
        return attr.value if isinstance(attr, IntegerAttr) else 1

    def verify_(self) -> None:
        super().verify_()
        ft = self.function_type
        if ft.results:
            raise self.error("a kernel returns nothing (it writes device buffers)")
        for i, t in enumerate(ft.inputs):
            why = kernel_arg_error(t)
            if why is not None:
                raise self.error(f"argument {i}: {why}")
        if not isinstance(self.body.terminator, ReturnOp):
            raise self.error("body must end with 'gpu.return'")
        for op in self.walk():
            for v in (*op.operands, *op.results):
                if isinstance(v.type, MemRefType) and v.type.device is None:
                    raise op.error(f"kernel '{self.sym_name}' touches host memory ({v.type}); "
                                   f"a kernel reads and writes device buffers only")


class ReturnOp(FuncReturnOp):
    """`gpu.return`: ends a kernel body (a kernel returns nothing)."""

    name = "gpu.return"
    function_class = GpuFuncOp


class LaunchOp(Operation):
    """`gpu.launch @k(%a, %n) work %w : (memref<?xf32, "cuda">, index)`: run kernel @k over
    `work` iteration points (operand 0), passing the remaining operands as its arguments."""

    name = "gpu.launch"

    @staticmethod
    def create(kernel: str, work: Value, args: Sequence[Value]) -> "LaunchOp":
        return LaunchOp([work, *args], [], {"kernel": SymbolRefAttr(kernel)})

    @property
    def kernel(self) -> str:
        return self.attributes["kernel"].name  # type: ignore[attr-defined]

    @property
    def work(self) -> Value:
        return self.operand(0)

    @property
    def args(self) -> tuple[Value, ...]:
        return self.operands[1:]

    def print_custom(self, printer) -> bool | None:
        if not isinstance(self.attributes.get("kernel"), SymbolRefAttr) or not self.operands:
            return False
        printer.write(" ", str(self.attributes["kernel"]), "(", printer.names(self.args), ") work ",
                      printer.name(self.work), printer.attr_dict(self.attributes, ("kernel",)),
                      " : (", printer.types([v.type for v in self.args]), ")")
        return None

    @classmethod
    def parse_custom(cls, parser) -> "LaunchOp":
        kernel = parser.parse_symbol()
        parser.expect("(")
        refs = parser.parse_operand_refs()
        parser.expect(")", "')' or ','")
        parser.expect("work", "'work' and the number of work items")
        work = parser.parse_operand_refs()
        if len(work) != 1:
            raise parser.error("expected one 'work' operand")
        attrs = parser.parse_optional_attr_dict()
        parser.expect(":", "':' and the argument types")
        parser.expect("(")
        types: list[Type] = []
        if not parser.accept(")"):
            types = parser.parse_type_list()
            parser.expect(")", "')' after the argument types")
        attrs["kernel"] = SymbolRefAttr(kernel)
        operands = parser.resolve_operands(work + refs, [index] + types)
        return parser.create(cls, operands, [], attrs)

    def kernel_op(self) -> GpuFuncOp | None:
        """The launched `gpu.func`, looked up in the enclosing module."""
        module = self.enclosing(ModuleOp)
        kernel = module.lookup_symbol(self.kernel) if module is not None else None
        return kernel if isinstance(kernel, GpuFuncOp) else None

    def verify_(self) -> None:
        if not isinstance(self.attributes.get("kernel"), SymbolRefAttr) or not self.operands:
            raise self.error("needs a 'kernel' symbol and a 'work' operand")
        if self.work.type != index or self.results:
            raise self.error("'work' must be an index and the launch has no results")
        if isinstance(self.parent_op, GpuFuncOp):
            raise self.error("a kernel cannot launch another kernel")
        kernel = self.kernel_op()
        if kernel is None:
            raise self.error(f"no 'gpu.func' named @{self.kernel} in the module")
        expected = kernel.function_type.inputs
        got = tuple(v.type for v in self.args)
        if got != expected:
            raise self.error(f"passes {types_text(got)} but @{self.kernel} takes {types_text(expected)}")


class _GridValue(IndexOp):
    """An index read from the CUDA grid (x only)."""

    def verify_(self) -> None:
        if self.operands or len(self.results) != 1 or self.result.type != index:
            raise self.error("takes no operands and gives one index")
        if self.enclosing(GpuFuncOp) is None:
            raise self.error("can only be used inside a 'gpu.func'")


class ThreadIdOp(_GridValue):
    """`%t = gpu.thread_id : index`: the thread's x index in its block."""
    name = "gpu.thread_id"


class BlockIdOp(_GridValue):
    """`%b = gpu.block_id : index`: the block's x index in the grid."""
    name = "gpu.block_id"


class BlockDimOp(_GridValue):
    """`%n = gpu.block_dim : index`: threads per block."""
    name = "gpu.block_dim"


class GridDimOp(_GridValue):
    """`%g = gpu.grid_dim : index`: blocks in the grid."""
    name = "gpu.grid_dim"


class BarrierOp(Operation):
    """`gpu.barrier`: every thread of the block waits here until all have arrived."""

    name = "gpu.barrier"

    def print_custom(self, printer) -> bool | None:
        if self.operands or self.results:
            return False
        printer.write(printer.attr_dict(self.attributes))
        return None

    @classmethod
    def parse_custom(cls, parser) -> "BarrierOp":
        return parser.create(cls, [], [], parser.parse_optional_attr_dict())

    def verify_(self) -> None:
        if self.operands or self.results:
            raise self.error("takes no operands and has no results")
        if self.enclosing(GpuFuncOp) is None:
            raise self.error("can only be used inside a 'gpu.func'")


class ShuffleXorOp(Operation):
    """`%r = gpu.shuffle_xor %v, %offset : (f32, index) -> f32`: inside a device `loop.parallel`
    nest whose iterations run in warps of 32 consecutive linear indices, the value `%v` held by
    the iteration whose lane (linear index mod 32) is this one's xor `%offset` (MLIR's
    `gpu.shuffle xor`). Every iteration of the nest must reach it (top level of the nest's body,
    a multiple of 32 iterations: `outline-kernels` keeps one iteration per thread there), so a
    butterfly of them combines a warp's values in registers without memory or atomics."""

    name = "gpu.shuffle_xor"
    assembly = "short"

    def verify_(self) -> None:
        if self.num_operands != 2 or len(self.results) != 1 or self.operand(1).type != index:
            raise self.error("takes a value and an index offset and gives one value")
        if not isinstance(self.operand(0).type, ScalarType) or self.result.type != self.operand(0).type:
            raise self.error(f"shuffles a scalar into the same type, got {self.operand(0).type} -> "
                             f"{self.result.type}")
        holder = self.parent_op
        in_nest = holder is not None and holder.op_name == "loop.parallel"
        in_kernel = holder is not None and holder.op_name == "loop.for" and isinstance(holder.parent_op, GpuFuncOp)
        if not (in_nest or in_kernel):
            raise self.error("must sit at the top level of a device loop nest (every lane of a warp "
                             "reaches it), not inside a branch")


class GemmOp(Operation):
    """`gpu.gemm %A, %B, %C[, %Cin] {alpha = 1.0, beta = 0.0} : (memref<..>, ...) -> ()`:
    C = alpha·A·B + beta·Cin (Cin = C itself when absent) over device buffers, by the BLAS
    library, launched from the host like a kernel. A is m×k or a k-vector (a 1×k row), B k×n
    or a k-vector (a k×1 column), C the m×n (or vector) result; with beta = 0 no accumulator
    is read. Cin, a dense buffer of C's shape, is copied into C first unless the two are one
    storage when the call runs (an in-place update of a shared variable: no copy at all). A
    and B may be transposed views; their layout is read from their strides when the call is
    planned, where it must have a unit stride along one axis (the lowering copies any other
    view first). The unit attribute `tf32` lets a float32 product use TF32 tensor cores
    (`config.allow_tf32` when it was compiled)."""

    name = "gpu.gemm"
    assembly = "short"

    @property
    def alpha(self) -> float:
        return float(self.attributes["alpha"].value)  # type: ignore[attr-defined]

    @property
    def beta(self) -> float:
        return float(self.attributes["beta"].value)  # type: ignore[attr-defined]

    @property
    def tf32(self) -> bool:
        return "tf32" in self.attributes

    def verify_(self) -> None:
        if self.num_operands not in (3, 4) or self.results:
            raise self.error("takes A, B, C (the result) and optionally Cin, and has no results")
        if self.num_operands == 4 and self.operand(3).type.shape != self.operand(2).type.shape:
            raise self.error(f"Cin ({self.operand(3).type}) must have C's shape ({self.operand(2).type})")
        for key in ("alpha", "beta"):
            if not isinstance(self.attributes.get(key), (FloatAttr, IntegerAttr)):
                raise self.error(f"needs a number '{key}'")
        a, b, c = (v.type for v in self.operands[:3])
        for what, t in zip(("A", "B", "C", "Cin"), (v.type for v in self.operands)):
            if not is_device_memref(t) or len(t.shape) not in (1, 2):
                raise self.error(f"{what} must be a device memref of rank 1 or 2, got {t}")
        if len({v.type.element for v in self.operands}) != 1 or not a.element.is_float:
            raise self.error("A, B and C must share one float element type, got "
                             + ", ".join(str(v.type) for v in self.operands))
        if a.rank == 1 and b.rank == 1:
            raise self.error("a product of two vectors is a reduction, not a gemm")
        if c.rank != (a.rank + b.rank - 2):
            raise self.error(f"C has rank {c.rank}, the product of ranks {a.rank} and {b.rank} has "
                             f"rank {a.rank + b.rank - 2}")
        if isinstance(self.parent_op, GpuFuncOp):
            raise self.error("is launched from the host, not from a kernel")


class ReadFlagOp(Operation):
    """`%f = gpu.read_flag %m : memref<i1, "cuda"> -> i1`: the host waits for the work queued
    before it and reads the boolean in device buffer `%m`. It is how a host loop whose exit the
    device decides (a scan's `until`) learns each step's condition: one small copy back and
    one synchronization per step, as Theano's GPU scan did. A host plan is recorded for the
    flags read false; the runtime switches to the plan of the path taken when one reads true
    (`runtime.host_plan`)."""

    name = "gpu.read_flag"
    assembly = "short"

    def verify_(self) -> None:
        if self.num_operands != 1 or len(self.results) != 1 or self.result.type != i1:
            raise self.error("reads one device buffer into one i1")
        t = self.operand(0).type
        if not is_device_memref(t) or t.shape != () or t.element != i1:
            raise self.error(f"reads a 0-d device buffer of i1, got {t}")
        if self.enclosing(GpuFuncOp) is not None:
            raise self.error("runs on the host, not inside a kernel")


class UploadOp(Operation):
    """`gpu.upload %src, %dst : (memref<?xf32>, memref<?xf32, "cuda">) -> ()`: the host copies
    its contiguous buffer `%src` into the device buffer `%dst` (same shape and element type),
    in order with the launches around it. It is how a host argument that only one branch of
    an `ifelse` reads crosses: when that branch is taken, not before the call."""

    name = "gpu.upload"
    assembly = "short"

    def verify_(self) -> None:
        if self.num_operands != 2 or self.results:
            raise self.error("copies one host buffer into one device buffer and has no results")
        src, dst = (v.type for v in self.operands)
        if not isinstance(src, MemRefType) or src.device is not None or not is_device_memref(dst):
            raise self.error(f"copies a host memref into a device memref, got {src} and {dst}")
        if src.element != dst.element or src.rank != dst.rank:
            raise self.error(f"source {src} and destination {dst} differ in element type or rank")
        if self.enclosing(GpuFuncOp) is not None:
            raise self.error("runs on the host, not inside a kernel")


GRID_VALUES = {c.name: c for c in (ThreadIdOp, BlockIdOp, BlockDimOp, GridDimOp)}

__all__ = ["GpuFuncOp", "ReturnOp", "LaunchOp", "ThreadIdOp", "BlockIdOp", "BlockDimOp",
           "GridDimOp", "BarrierOp", "ShuffleXorOp", "GemmOp", "ReadFlagOp", "UploadOp", "GRID_VALUES", "WARP_SIZE",
           "is_device_memref", "kernel_arg_error"]
