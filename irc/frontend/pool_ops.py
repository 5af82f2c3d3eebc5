"""Graph ops of 2-d pooling under Theano's names — `Pool`, `MaxPoolGrad`, `AveragePoolGrad` —
lowering to `tensor.pool2d` and `tensor.pool2d_grad` (over the last two axes; leading axes
are a batch). The user's function is `pool_2d` (irc/frontend/pool.py)."""
from __future__ import annotations

from ..dialects.conv_semantics import pool_attributes
from ..ir.attributes import Attribute
from .graph import Apply, Op, Variable, infer_via_dialect


class _PoolBase(Op):
    __props__ = ("ws", "ignore_border", "stride", "pad", "mode")

    def __init__(self, ws, ignore_border: bool = False, stride=None, pad=(0, 0), mode: str = "max"):
        self.ws = tuple(int(w) for w in ws)
        self.stride = tuple(int(s) for s in (stride if stride is not None else ws))
        self.pad = tuple(int(p) for p in pad)
        self.ignore_border = bool(ignore_border)
        self.mode = mode

    def ir_attributes(self) -> dict[str, Attribute]:
        return pool_attributes(self.mode, self.ws, self.stride, self.pad, self.ignore_border)

    def _node(self, xs: list) -> Apply:
        if not all(isinstance(x, Variable) for x in xs):
            raise TypeError(f"{self}: inputs must be symbolic, got {xs}")
        types = infer_via_dialect(self.ir_name, [x.type for x in xs], self.ir_attributes())
        assert types is not None, f"the tensor dialect has no {self.ir_name}"
        return Apply(self, xs, [Variable(types[0])])

    def settings(self) -> dict:
        return {"ws": self.ws, "ignore_border": self.ignore_border, "stride": self.stride, "pad": self.pad,
                "mode": self.mode}


class Pool(_PoolBase):
    """max, sum or average of each window of the last two axes."""

    ir_name = "tensor.pool2d"

    def make_node(self, x: Variable) -> Apply:  # type: ignore[override]
        return self._node([x])

    def grad(self, inputs, outputs, output_grads):
        gz = output_grads[0]
        if gz is None:
            return [None]
        if self.mode == "max":
            return [MaxPoolGrad(**self.settings())(inputs[0], outputs[0], gz)]
        return [AveragePoolGrad(**self.settings())(inputs[0], gz)]


class MaxPoolGrad(_PoolBase):
    """(x, maxout, gz) → gz routed to the elements equal to their window's max."""

    ir_name = "tensor.pool2d_grad"

    def make_node(self, x: Variable, maxout: Variable, gz: Variable) -> Apply:  # type: ignore[override]
        return self._node([x, maxout, gz])

    def grad(self, inputs, outputs, output_grads):
        raise NotImplementedError("the gradient of MaxPoolGrad (a second derivative of max pooling) is not "
                                  "implemented")


class AveragePoolGrad(_PoolBase):
    """(x, gz) → gz spread over each window (divided as the forward; sum: not divided)."""

    ir_name = "tensor.pool2d_grad"

    def make_node(self, x: Variable, gz: Variable) -> Apply:  # type: ignore[override]
        return self._node([x, gz])

    def grad(self, inputs, outputs, output_grads):
        gg = output_grads[0]
        if gg is None:
            return [None, None]
        return [None, Pool(**self.settings())(gg)]  # linear in gz; x gives only its shape
