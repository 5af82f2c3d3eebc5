"""Graph ops of 2-d convolution under Theano's names — `AbstractConv2d` and its gradients
`AbstractConv2d_gradInputs`, `AbstractConv2d_gradWeights` — lowering to `tensor.conv2d`,
`tensor.conv2d_grad_input` and `tensor.conv2d_grad_filters`. Each gradient op is linear in
its first two inputs, so their own gradients are the other two ops: T.grad of T.grad works.
The user's function is `conv2d` (irc/frontend/conv.py)."""
from __future__ import annotations

from typing import Sequence

from ..dialects.conv_semantics import conv_attributes
from ..ir.attributes import Attribute, DenseArrayAttr
from .graph import Apply, Op, Variable, infer_via_dialect


def _hint(shape: Sequence[int | None] | None) -> tuple[int, ...] | None:
    return None if shape is None else tuple(-1 if d is None else int(d) for d in shape)


class _ConvBase(Op):
    """What the three ops share: the geometry (strides, pads, dilation, flip) and the user's
    shape hints (checked against the data where they run)."""

    __props__ = ("subsample", "pads", "filter_dilation", "filter_flip", "imshp", "kshp")
    arity = 2

    def __init__(self, subsample=(1, 1), pads=(0, 0), filter_dilation=(1, 1), filter_flip: bool = True,
                 imshp: Sequence[int | None] | None = None, kshp: Sequence[int | None] | None = None):
        self.subsample = tuple(int(s) for s in subsample)
        self.pads = tuple(int(p) for p in pads)
        self.filter_dilation = tuple(int(d) for d in filter_dilation)
        self.filter_flip = bool(filter_flip)
        self.imshp = _hint(imshp)
        self.kshp = _hint(kshp)

    def geometry(self) -> dict:
        """The same geometry and hints (what the gradient ops take: their lowering then knows
        the sizes the hints give)."""
        return {"subsample": self.subsample, "pads": self.pads, "filter_dilation": self.filter_dilation,
                "filter_flip": self.filter_flip, "imshp": self.imshp, "kshp": self.kshp}

    def ir_attributes(self) -> dict[str, Attribute]:
        attrs = conv_attributes(self.subsample, self.pads, self.filter_dilation, self.filter_flip)
        if self.imshp is not None:
            attrs["input_shape"] = DenseArrayAttr(self.imshp)
        if self.kshp is not None:
            attrs["filter_shape"] = DenseArrayAttr(self.kshp)
        return attrs

    def make_node(self, *inputs: Variable) -> Apply:  # type: ignore[override]
        xs = list(inputs)
        if len(xs) != self.arity or not all(isinstance(x, Variable) for x in xs):
            raise TypeError(f"{type(self).__name__}: expects {self.arity} symbolic inputs, got {xs}")
        types = infer_via_dialect(self.ir_name, [x.type for x in xs], self.ir_attributes())
        assert types is not None, f"the tensor dialect has no {self.ir_name}"
        return Apply(self, xs, [Variable(types[0])])

    def __str__(self) -> str:
        return f"{type(self).__name__}{{subsample={self.subsample}, pads={self.pads}, " \
               f"filter_dilation={self.filter_dilation}, filter_flip={self.filter_flip}}}"


class AbstractConv2d(_ConvBase):
    """conv2d(images, filters): images N×C×H×W, filters F×C×kh×kw → N×F×OH×OW."""

    ir_name = "tensor.conv2d"

    def grad(self, inputs, outputs, output_grads):
        x, w = inputs
        gy = output_grads[0]
        if gy is None:
            return [None, None]
        return [AbstractConv2d_gradInputs(**self.geometry())(gy, w, x),
                AbstractConv2d_gradWeights(**self.geometry())(x, gy, w)]


class AbstractConv2d_gradInputs(_ConvBase):  # noqa: N801  (Theano's name)
    """(gy, filters, images) → the gradient at the images (only the images' shape is read)."""

    ir_name = "tensor.conv2d_grad_input"
    arity = 3

    def grad(self, inputs, outputs, output_grads):
        gy, w, x = inputs
        gg = output_grads[0]
        if gg is None:
            return [None, None, None]
        # <gg, convᵀ(gy, w)> = <conv(gg, w), gy>
        return [AbstractConv2d(**self.geometry())(gg, w), AbstractConv2d_gradWeights(**self.geometry())(gg, gy, w),
                None]


class AbstractConv2d_gradWeights(_ConvBase):  # noqa: N801  (Theano's name)
    """(images, gy, filters) → the gradient at the filters (only the filters' shape is read)."""

    ir_name = "tensor.conv2d_grad_filters"
    arity = 3

    def grad(self, inputs, outputs, output_grads):
        x, gy, w = inputs
        gg = output_grads[0]
        if gg is None:
            return [None, None, None]
        # <gg, gW(x, gy)> = <conv(x, gg), gy>
        return [AbstractConv2d_gradInputs(**self.geometry())(gy, gg, x), AbstractConv2d(**self.geometry())(x, gg),
                None]
