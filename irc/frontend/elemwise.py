"""`Elemwise`: one op class for every row of the elementwise table, and `Cast`.

The op takes inputs that already agree (same rank, same dtype; `select`'s condition is bool):
the functions in irc/frontend/basic.py insert the dimshuffles and casts. Its gradient
(irc/frontend/gradient_rules.py) is built from the row's derivative expression."""
from __future__ import annotations

from typing import Sequence

from ..dialects.elementwise import TABLE, Elementwise as Row
from ..ir.attributes import Attribute, TypeAttr
from ..ir.types import scalar_from_numpy
from .graph import Apply, Op, Variable, infer_via_dialect
from .tensor_type import TensorType


# the table's names as Theano's scalar ops print them (Elemwise{true_div,no_inplace})
THEANO_NAMES = {"div": "true_div", "floordiv": "int_div", "ne": "neq", "abs": "abs_", "sign": "sgn",
                "square": "sqr", "reciprocal": "inv", "round": "round_half_to_even",
                "round_away": "round_half_away_from_zero", "select": "switch", "and": "and_",
                "or": "or_", "logical_not": "invert", "sigmoid": "scalar_sigmoid",
                "softplus": "scalar_softplus"}


def _check_inputs(op: Op, inputs: Sequence[Variable]) -> None:
    for v in inputs:
        if not isinstance(v, Variable):
            raise TypeError(f"{op}: inputs must be symbolic (use the functions of irc.tensor, which "
                            f"convert constants), got {type(v).__name__}")
    if len({v.ndim for v in inputs}) > 1:
        raise TypeError(f"{op}: inputs must have the same number of dimensions, got "
                        + ", ".join(f"{v.type}" for v in inputs))


class Elemwise(Op):
    """An elementwise table row (`scalar_op`, e.g. "exp") applied to tensors."""

    __props__ = ("scalar_op",)

    def __init__(self, scalar_op: str):
        if scalar_op not in TABLE:
            raise ValueError(f"no elementwise op '{scalar_op}' (see irc/dialects/elementwise.py)")
        self.scalar_op = scalar_op

    @property
    def row(self) -> Row:
        return TABLE[self.scalar_op]

    @property
    def ir_name(self) -> str:  # type: ignore[override]
        return f"tensor.{self.scalar_op}"

    def make_node(self, *inputs: Variable) -> Apply:
        if len(inputs) != self.row.arity:
            raise TypeError(f"{self} takes {self.row.arity} input(s), got {len(inputs)}")
        _check_inputs(self, inputs)
        types = infer_via_dialect(self.ir_name, [v.type for v in inputs], {})
        if types is None:  # dialect not there: same-dtype inputs, AND of broadcast patterns
            values = [inputs[i].type for i in self.row.value_operands]
            if len({t.dtype for t in values}) > 1:
                raise TypeError(f"{self}: inputs must have one dtype, got {[t.dtype for t in values]}")
            dtype = "bool" if self.row.is_comparison else values[0].dtype
            bcast = tuple(all(bs) for bs in zip(*(v.broadcastable for v in inputs)))
            types = [TensorType(dtype, bcast)]
        return Apply(self, list(inputs), [Variable(types[0])])

    def __str__(self) -> str:
        return f"Elemwise{{{THEANO_NAMES.get(self.scalar_op, self.scalar_op)},no_inplace}}"


class Cast(Elemwise):
    """`tensor.cast {to}`: converts to `dtype` (an Elemwise, as in Theano)."""

    __props__ = ("dtype",)
    ir_name = "tensor.cast"  # type: ignore[assignment]

    def __init__(self, dtype: str):
        self.dtype = TensorType(dtype, ()).dtype
        self.scalar_op = "cast"

    def ir_attributes(self) -> dict[str, Attribute]:
        return {"to": TypeAttr(scalar_from_numpy(self.dtype))}

    def make_node(self, x: Variable) -> Apply:  # type: ignore[override]
        _check_inputs(self, [x])
        types = infer_via_dialect(self.ir_name, [x.type], self.ir_attributes())
        out = types[0] if types else x.type.clone(dtype=self.dtype)
        return Apply(self, [x], [Variable(out)])

    def __str__(self) -> str:
        return f"Elemwise{{Cast{{{self.dtype}}}}}"
