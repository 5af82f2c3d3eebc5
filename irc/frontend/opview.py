"""The op classes Theano users test for in `f.maker.fgraph.toposort()`, and the ONE table
that maps a tensor-dialect op to them.

`isinstance(node.op, T.Elemwise)` is how the tutorials tell the cpu from the gpu, so the
classes here are the ones `irc.tensor` exports. A view op wraps the IR op it stands for."""
from __future__ import annotations

from typing import Any

from ..dialects.tensor_custom import user_op_label
from ..ir.core import ElementwiseTrait, Operation
from . import blas as front_blas, join as front_join, reduce as front_reduce
from . import advanced_index as front_advanced, shape_ops as front_shape, subtensor as front_subtensor
from .elemwise import THEANO_NAMES, Cast, Elemwise as FrontElemwise
from .ifelse_op import IfElse as IfElseOp
from .tensor_type import TensorType


class ViewOp:
    """Base of the read-only op objects of the toposort view; `ir` is the tensor-dialect op."""

    def __init__(self, ir: Operation | None = None):
        self.ir = ir

    @property
    def ir_name(self) -> str:
        return self.ir.op_name if self.ir is not None else ""

    @property
    def scalar_name(self) -> str:
        """`exp` for `tensor.exp`: what Theano prints between braces."""
        return self.ir_name.split(".", 1)[-1]

    def __str__(self) -> str:
        return type(self).__name__

    __repr__ = __str__


class _ScalarOpView(ViewOp):
    def __str__(self) -> str:
        inplace = "inplace" if self.ir is not None and "inplace" in self.ir.attributes else "no_inplace"
        return f"{type(self).__name__}{{{self.scalar_name},{inplace}}}"


class Elemwise(_ScalarOpView):
    """An elementwise op on the host (`Elemwise{exp,no_inplace}`); a fused group prints as
    Theano's `Elemwise{Composite{...}}`, its body written over the inputs i0, i1, ..."""

    def __str__(self) -> str:
        if self.ir is None or self.ir.op_name != "tensor.fused":
            return super().__str__()
        return f"Elemwise{{Composite{{{composite_text(self.ir)}}}}}"


# Theano's pprint of scalar arithmetic (theano/scalar/basic.py): infix, every one in parentheses
_INFIX = {"add": " + ", "mul": " * ", "sub": " - ", "div": " / ", "floordiv": " // ", "pow": " ** ",
          "mod": " % "}


def composite_text(fused: Operation) -> str:
    """The body of a `tensor.fused` as one expression per result (comma-separated), as Theano
    names a Composite: arithmetic infix in parentheses (`(log(i0) * i0)`, `(-i0)`), the rest as
    functions."""
    block = fused.regions[0].blocks[0]
    text: dict[Any, str] = {a: f"i{k}" for k, a in enumerate(block.args)}
    for op in block.ops[:-1]:
        name = op.op_name.split(".", 1)[-1]
        args = [text.get(v, "?") for v in op.operands]
        if name == "constant":
            text[op.results[0]] = str(op.attributes["value"].value)
        elif name in _INFIX and len(args) >= 2:
            text[op.results[0]] = "(" + _INFIX[name].join(args) + ")"
        elif name == "neg" and len(args) == 1:
            text[op.results[0]] = f"(-{args[0]})"
        else:
            text[op.results[0]] = f"{THEANO_NAMES.get(name, name)}({', '.join(args)})"
    return ", ".join(text.get(v, "?") for v in block.ops[-1].operands)


class GpuElemwise(_ScalarOpView):
    """An elementwise op whose result lives on the device. Not an `Elemwise`, as in Theano
    (the tutorial's gpu check relies on that)."""


class DimShuffle(ViewOp):
    """`DimShuffle{x,0}`: the new order of the dims ('x' for a new broadcastable one)."""

    def __str__(self) -> str:
        attrs = self.ir.attributes if self.ir is not None else {}
        order = attrs.get("pattern") or attrs.get("permutation")
        name = "InplaceDimShuffle" if type(self).__name__ == "DimShuffle" else type(self).__name__
        if order is None:
            return name
        return f"{name}{{{','.join('x' if p == -1 else str(p) for p in order.value)}}}"


class GpuDimShuffle(DimShuffle):
    """A view on the device. Not a `T.DimShuffle` (the frontend's class, which only the host
    view is merged with), as in Theano's old backend; it prints like one."""


class CAReduce(ViewOp):
    def __str__(self) -> str:
        kind = self.ir.attributes.get("kind") if self.ir is not None else None
        kind_text = getattr(kind, "value", kind)
        return f"{type(self).__name__}{{{kind_text}}}" if kind_text else type(self).__name__


class GpuCAReduce(CAReduce):
    pass


class Dot(ViewOp):
    pass


class Gemv(ViewOp):
    pass


class CGemv(Gemv):
    """gemv on the cpu (Theano's C implementation class name)."""


class Gemm(ViewOp):
    pass


class CGemm(Gemm):
    """gemm on the cpu."""


class Softmax(ViewOp):
    pass


class LogSoftmax(ViewOp):
    pass


class SoftmaxGrad(ViewOp):
    pass


class GpuSoftmax(ViewOp):
    """`tensor.softmax` on the device (Theano's GpuSoftmax)."""


class GpuLogSoftmax(ViewOp):
    """`tensor.log_softmax` on the device (Theano ran it through cuDNN's GpuDnnSoftmax)."""


class GpuSoftmaxGrad(ViewOp):
    """`tensor.softmax_grad` on the device (Theano: GpuDnnSoftmaxGrad)."""


class GpuGemv(ViewOp):
    pass


class GpuGemm(ViewOp):
    pass


class Reshape(ViewOp):
    pass


class Subtensor(ViewOp):
    pass


class Join(ViewOp):
    pass


class GpuJoin(Join):
    """`tensor.concat` on the device (a subclass of Join, as Theano's was)."""


class CumOp(ViewOp):
    """`tensor.cumulative`: Theano's `extra_ops.CumOp` (cumsum, cumprod)."""


class SortOp(ViewOp):
    """`tensor.sort` (sort and argsort)."""


class GpuIncSubtensor(ViewOp):
    """`tensor.insert_slice` / `insert_index` on the device."""


class RandomFunction(ViewOp):
    """A random draw (`RandomFunction{uniform}`, Theano's class and print)."""

    def __str__(self) -> str:
        distribution = self.ir.attributes["distribution"].value if self.ir is not None else ""
        return f"RandomFunction{{{distribution}}}"


class IncSubtensor(ViewOp):
    pass


class AdvancedSubtensor1(ViewOp):
    """`tensor.gather` with one index vector (Theano's class for `x[ivec]`)."""


class AdvancedSubtensor(ViewOp):
    pass


class AdvancedIncSubtensor1(ViewOp):
    """`tensor.scatter` with one index vector: `AdvancedIncSubtensor1{inc}` / `{set}`."""

    def __str__(self) -> str:
        mode = self.ir.attributes["mode"].value if self.ir is not None else "inc"
        return f"{type(self).__name__}{{{'inc' if mode == 'add' else 'set'}}}"


class AdvancedIncSubtensor(AdvancedIncSubtensor1):
    pass


class GpuAdvancedSubtensor1(AdvancedSubtensor1):
    """`tensor.gather` with one index vector, on the device (a subclass, as Theano's was)."""


class GpuAdvancedSubtensor(AdvancedSubtensor):
    pass


class GpuAdvancedIncSubtensor1(AdvancedIncSubtensor1):
    """`tensor.scatter` with one index vector, on the device: `GpuAdvancedIncSubtensor1{inc}`."""


class GpuAdvancedIncSubtensor(AdvancedIncSubtensor1):
    pass


def _advanced_class(op: Operation) -> type[ViewOp]:
    """Theano's "1" classes for one index vector, the general ones otherwise; `Gpu...` on
    the device."""
    first = 1 if op.op_name == "tensor.gather" else 2
    one_vector = op.num_operands == first + 1 and op.operands[first].type.rank == 1
    device = _on_device(op)
    if op.op_name == "tensor.gather":
        return (GpuAdvancedSubtensor1 if one_vector else GpuAdvancedSubtensor) if device else \
            (AdvancedSubtensor1 if one_vector else AdvancedSubtensor)
    return (GpuAdvancedIncSubtensor1 if one_vector else GpuAdvancedIncSubtensor) if device else \
        (AdvancedIncSubtensor1 if one_vector else AdvancedIncSubtensor)


class Alloc(ViewOp):
    """`tensor.broadcast`: a value broadcast to a run-time shape."""


class GpuAlloc(ViewOp):
    pass


class ARange(ViewOp):
    """`tensor.iota` (Theano's `T.arange`)."""


class GpuReshape(ViewOp):
    pass


class GpuSubtensor(ViewOp):
    pass


class Shape_i(ViewOp):  # noqa: N801 (Theano's name)
    def __str__(self) -> str:
        axis = self.ir.attributes.get("axis") if self.ir is not None else None
        return f"Shape_i{{{axis.value}}}" if axis is not None else "Shape_i"


class MakeVector(ViewOp):
    def __str__(self) -> str:
        element = self.ir.results[0].type.element.numpy_name if self.ir is not None else "int64"
        return f"MakeVector{{dtype='{element}'}}"


class Constant(ViewOp):
    pass


class Fused(ViewOp):
    """`Composite` in Theano: a fused region of elementwise ops."""


class GpuFromHost(ViewOp):
    """`tensor.to_device` (the frontend's `gpu_from_host` class too, once loaded)."""


class HostFromGpu(ViewOp):
    pass


class CustomOp(ViewOp):
    """A user's op (`tensor.custom`): prints as the user's class and props (`DoubleOp{n=2}`)."""

    def __str__(self) -> str:
        return user_op_label(self.ir) if self.ir is not None else "CustomOp"


class IfElse(ViewOp):
    """`if{}`, as Theano prints its lazy IfElse (also an `irc.ifelse.IfElse`)."""

    def __str__(self) -> str:
        return "if{}"


class GenericOp(ViewOp):
    """An op with no Theano counterpart; prints its IR name."""

    def __str__(self) -> str:
        return self.ir_name


# tensor op name -> (host class, device class)
OP_CLASSES: dict[str, tuple[type[ViewOp], type[ViewOp]]] = {
    "tensor.broadcast": (Alloc, GpuAlloc),
    "tensor.alloc": (Alloc, GpuAlloc),
    "tensor.iota": (ARange, ARange),
    "tensor.dim": (Shape_i, Shape_i),
    "tensor.from_elements": (MakeVector, MakeVector),
    "tensor.insert_slice": (IncSubtensor, GpuIncSubtensor),
    "tensor.insert_index": (IncSubtensor, GpuIncSubtensor),
    "tensor.dimshuffle": (DimShuffle, GpuDimShuffle),
    "tensor.transpose": (DimShuffle, GpuDimShuffle),
    "tensor.reduce": (CAReduce, GpuCAReduce),
    "tensor.fused_reduce": (CAReduce, GpuCAReduce),  # Theano's CAReduce over a Composite
    "tensor.dot": (Dot, GpuGemm),
    "tensor.gemv": (CGemv, GpuGemv),
    "tensor.fused_matvec": (CGemv, GpuGemv),  # A·x, a row-wise body, Aᵀ·g: gemv at heart
    "tensor.gemm": (CGemm, GpuGemm),
    "tensor.softmax": (Softmax, GpuSoftmax),
    "tensor.log_softmax": (LogSoftmax, GpuLogSoftmax),
    "tensor.softmax_grad": (SoftmaxGrad, GpuSoftmaxGrad),
    "tensor.reshape": (Reshape, GpuReshape),
    "tensor.slice": (Subtensor, GpuSubtensor),
    "tensor.index": (Subtensor, GpuSubtensor),
    "tensor.dynamic_slice": (Subtensor, GpuSubtensor),
    "tensor.random": (RandomFunction, RandomFunction),
    "tensor.subtensor": (Subtensor, Subtensor),
    "tensor.concat": (Join, GpuJoin),
    "tensor.cumulative": (CumOp, CumOp),
    "tensor.sort": (SortOp, SortOp),
    "tensor.constant": (Constant, Constant),
    "tensor.fused": (Elemwise, GpuElemwise),
    "tensor.to_device": (GpuFromHost, GpuFromHost),
    "tensor.to_host": (HostFromGpu, HostFromGpu),
    "tensor.custom": (CustomOp, CustomOp),
    "tensor.if": (IfElse, IfElse),
}


def _on_device(op: Operation) -> bool:
    return any(getattr(r.type, "device", None) for r in op.results)


def view_class(op: Operation) -> type[ViewOp]:
    """The Theano-visible class of a tensor-dialect op."""
    if op.op_name in ("tensor.gather", "tensor.scatter"):
        return _merged(_advanced_class(op))
    pair = OP_CLASSES.get(op.op_name)
    if pair is None:
        if op.has_trait(ElementwiseTrait):
            pair = (Elemwise, GpuElemwise)
        else:
            return GenericOp
    return _merged(pair[1] if _on_device(op) else pair[0])


_MERGED: dict[type, type] = {}


# the frontend's graph op class of each view class that shares its name
_FRONTEND_OPS: dict[str, type] = {c.__name__: c for c in (
    front_shape.DimShuffle, front_shape.Reshape, front_shape.Shape_i, front_shape.Alloc,
    front_reduce.CAReduce, front_blas.Dot, front_subtensor.Subtensor, front_subtensor.IncSubtensor,
    front_join.Join, IfElseOp, front_advanced.AdvancedSubtensor, front_advanced.AdvancedIncSubtensor)}


def _merged(cls: type[ViewOp]) -> type:
    """`cls`, made a subclass of the frontend's same-named op class when there is one, so
    `isinstance(node.op, T.DimShuffle)` holds for the view too. The view's methods win."""
    if cls in _MERGED:
        return _MERGED[cls]
    front = _FRONTEND_OPS.get(cls.__name__)
    if front is None:
        return cls
    merged = type(cls.__name__, (cls, front), {"__eq__": object.__eq__, "__hash__": object.__hash__,
                                               "__module__": cls.__module__})
    _MERGED[cls] = merged
    return merged


def _frontend_elemwise(op: Operation) -> Any:
    """Elementwise ops on the host are the frontend's own `Elemwise`/`Cast` ops (what
    `T.Elemwise` is), with the IR op attached as `.ir`."""
    name = op.op_name.split(".", 1)[-1]
    try:
        if name == "cast":
            view = Cast(TensorType.from_ir(op.results[0].type).dtype)
        else:
            view = FrontElemwise(name)
    except (ValueError, TypeError):
        return None
    view.ir = op
    return view


def view_op(op: Operation) -> Any:
    cls = view_class(op)
    if cls is Elemwise and op.op_name != "tensor.fused":
        front = _frontend_elemwise(op)
        if front is not None:
            return front
    return cls(op)
