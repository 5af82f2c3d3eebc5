"""`f.maker.fgraph`: a thin read-only view of the optimized tensor-level function, shaped like
Theano's FunctionGraph so `toposort()` inspections in user code keep working."""
from __future__ import annotations

from typing import Any

from ..ir.core import Operation, Value
from .opview import view_op
from .tensor_type import TensorType


class ViewVariable:
    """A value of the function: `.type` (the IR type), `.owner` (a node or None), `.name`."""

    def __init__(self, value: Value, owner: "ViewNode | None", index: int = 0):
        self.value = value
        self.owner = owner
        self.index = index
        self.name = value.name_hint

    @property
    def type(self) -> Any:
        return self.value.type

    @property
    def dtype(self) -> str:
        return self.value.type.element.numpy_name

    @property
    def ndim(self) -> int:
        return self.value.type.rank

    def __str__(self) -> str:
        if self.name:
            return self.name
        if self.owner is not None:
            return f"{self.owner.op}.{self.index}"
        try:
            text = str(TensorType.from_ir(self.value.type))
        except Exception:
            return f"<{self.value.type}>"
        if getattr(self.value.type, "device", None):  # Theano's name for a device tensor type
            text = text.replace("TensorType", "CudaNdarrayType", 1)
        return f"<{text}>"

    __repr__ = __str__


class ViewConstant(ViewVariable):
    """A `tensor.constant`: Theano shows constants as variables, not as nodes."""

    def __init__(self, value: Value):
        super().__init__(value, None)

    @property
    def data(self) -> Any:
        return self.value.owner.attributes["value"].array

    def __str__(self) -> str:
        import numpy as np
        d = self.data
        text = np.array2string(d, threshold=6) if d.size > 1 else str(d.reshape(()).item() if d.size else d)
        return f"TensorConstant{{{text}}}"

    __repr__ = __str__


class ViewNode:
    """One op: `.op` (an instance of a Theano-named class), `.inputs`, `.outputs`, `.ir`."""

    def __init__(self, ir: Operation, op: Any, inputs: list[ViewVariable]):
        self.ir = ir
        self.op = op
        self.inputs = inputs
        self.outputs = [ViewVariable(r, self, i) for i, r in enumerate(ir.results)]

    @property
    def location(self) -> Any:
        return self.ir.location

    def __str__(self) -> str:
        return f"{self.op}({', '.join(map(str, self.inputs))})"

    __repr__ = __str__


class FunctionGraphView:
    """Nodes in execution order (constants are variables), built once from a `func.func`."""

    def __init__(self, func: Operation):
        body = func.regions[0].blocks[0]
        vars_: dict[Value, ViewVariable] = {}
        self.inputs = [ViewVariable(a, None) for a in body.args]
        for a, v in zip(body.args, self.inputs):
            vars_[a] = v
        self._nodes: list[ViewNode] = []
        ret = body.ops[-1] if body.ops else None
        for op in body.ops[:-1]:
            if op.op_name == "tensor.constant":  # constants are variables, as in Theano
                vars_[op.results[0]] = ViewConstant(op.results[0])
                continue
            node = ViewNode(op, view_op(op), [vars_[v] for v in op.operands])
            for r, out in zip(op.results, node.outputs):
                vars_[r] = out
            self._nodes.append(node)
        self.outputs = [vars_[v] for v in ret.operands] if ret is not None else []

    def toposort(self) -> list[ViewNode]:
        return list(self._nodes)

    @property
    def apply_nodes(self) -> list[ViewNode]:
        return list(self._nodes)

    @property
    def variables(self) -> list[ViewVariable]:
        return self.inputs + [o for n in self._nodes for o in n.outputs]

