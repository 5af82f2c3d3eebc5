"""`get_scalar_constant_value` (Theano's `T.get_scalar_constant_value`): the value of a
variable the graph fixes, found when the graph is built, without compiling anything.

A constant's data; a node whose inputs all have such values, computed by the reference
evaluator (elementwise math, casts, dimshuffles, indexing of a constant, shapes known from
the type); and an element picked by a constant index out of a `stack` of scalars, though
others of them are not constant (Theano looks through MakeVector/Join the same way). Shared
variables, inputs, random draws and users' ops are not constant."""
from __future__ import annotations

from typing import Any

import numpy as np

from .assert_op import constant_conditions_hold, is_assert
from .evaluate import evaluate
from .graph import Constant, Variable
from .integer_index import IntegerIndex
from .join import Join
from .creation_ops import AllocShape
from .shape_ops import Alloc, DimShuffle
from .shared import SharedVariable
from .user_op import UserOp
from .random_op import RandomDraw


class NotScalarConstantError(Exception):
    """The variable's value is not a scalar the graph fixes (Theano's error)."""


class EmptyConstantError(NotScalarConstantError):
    """The constant holds no element (Theano's error)."""


def _scalar(data: Any) -> np.ndarray:
    data = np.asarray(data)
    if data.size == 0:
        raise EmptyConstantError(f"an empty constant (shape {data.shape}) has no scalar value")
    if data.size != 1:
        raise NotScalarConstantError(f"a constant of shape {data.shape} is not a scalar")
    return data.reshape(()).copy()


def _picked_from_stack(v: Variable) -> Variable | None:
    """`stack([a, b, c])[k]` with a constant k: the k-th stacked scalar."""
    node = v.owner
    if not isinstance(node.op, IntegerIndex) or node.op.axes != (0,) or len(node.inputs) != 2:
        return None
    joined, index = node.inputs
    if not isinstance(index, Constant) or joined.owner is None or not isinstance(joined.owner.op, Join) \
            or joined.owner.op.axis != 0:
        return None
    pieces = joined.owner.inputs
    k = int(index.data)
    if not -len(pieces) <= k < len(pieces):
        return None
    piece = pieces[k]
    if piece.owner is not None and isinstance(piece.owner.op, DimShuffle) and piece.ndim == 1 \
            and piece.owner.inputs[0].ndim == 0:
        return piece.owner.inputs[0]
    return None


def _value(v: Variable, elemwise: bool, depth: int) -> np.ndarray | None:
    if isinstance(v, Constant):
        return np.asarray(v.data)
    if isinstance(v, SharedVariable) or v.owner is None or depth <= 0:
        return None
    picked = _picked_from_stack(v)
    if picked is not None:
        return _value(picked, elemwise, depth - 1)
    node = v.owner
    if is_assert(v):  # the value, when every condition is a constant that holds (Theano's)
        holds = constant_conditions_hold(node, lambda c: _value(c, elemwise, depth - 1))
        return _value(node.inputs[0], elemwise, depth - 1) if holds else None
    if isinstance(node.op, (Alloc, AllocShape)):  # every element is the value (Theano's fill/second)
        value = _value(node.inputs[0], elemwise, depth - 1)
        return None if value is None or value.size != 1 else value
    if isinstance(node.op, (UserOp, RandomDraw)) or hasattr(node.op, "inner_graph"):
        return None
    if not elemwise and type(node.op).__name__ == "Elemwise":
        return None
    values = {}
    for i in node.inputs:
        value = _value(i, elemwise, depth - 1)
        if value is None:
            return None
        values[i] = value
    return np.asarray(evaluate(v, values))


def get_scalar_constant_value(v: Any, elemwise: bool = True, only_process_constants: bool = False,
                              max_recur: int = 10) -> np.ndarray:
    """The 0-d value of `v` (a number, an array, a variable) when the graph fixes it; else
    `NotScalarConstantError` (`EmptyConstantError` for a constant without elements)."""
    if v is None:
        raise NotScalarConstantError("None is not a constant")
    if not isinstance(v, Variable):
        return _scalar(v)
    if only_process_constants:
        if not isinstance(v, Constant):
            raise NotScalarConstantError(f"{v} is not a constant")
        return _scalar(v.data)
    value = _value(v, elemwise, 4 * max_recur)
    if value is None:
        raise NotScalarConstantError(f"{v} ({v.type}) is not a constant the graph fixes")
    return _scalar(value)
