"""`tensor` reductions and products: reduce, dot, and the BLAS forms gemv/gemm that `specialize`
makes of `dot` (with alpha, beta and an accumulator folded in).

    %s = tensor.reduce %x {axes = array<i64: 1>, kind = "sum"} : (tensor<?x3xf32>) -> tensor<?xf32>
    %y = tensor.gemv %A, %x, %y0 {alpha = 2.0, beta = 1.0} : (...) -> tensor<?xf32>
"""
from __future__ import annotations

from ..ir.types import i64
from .builtin import TensorType
from .elementwise import TABLE
from .op_base import Bad, float_attr, int_array, str_attr
from .tensor_base import TensorOp, common_device, tensor_types

REDUCE_KINDS = ("sum", "prod", "max", "min", "argmax", "argmin")


class ReduceOp(TensorOp):
    """`tensor.reduce %x {kind = "sum", axes = array<i64: 0, 2>}`: the axes are removed.

    argmax/argmin take exactly one axis and give i64 indices (the first extremum, as numpy);
    sum/prod keep the element type (no i1: the frontend casts) and combine in
    `tensor_semantics.accumulator_type` (f32 for f16)."""

    name = "tensor.reduce"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if len(types) != 1:
            raise Bad(f"expects 1 operand, got {len(types)}")
        x = types[0]
        kind = str_attr(attributes, "kind")
        if kind not in REDUCE_KINDS:
            raise Bad(f"unknown reduction kind '{kind}' (expected one of {', '.join(REDUCE_KINDS)})")
        axes = int_array(attributes, "axes")
        if list(axes) != sorted(set(axes)):
            raise Bad(f"axes {list(axes)} must be sorted and unique")
        if axes and not (0 <= axes[0] and axes[-1] < x.rank):
            raise Bad(f"axes {list(axes)} are out of range for {x}")
        element = x.element
        if kind in ("argmax", "argmin"):
            if len(axes) != 1:
                raise Bad(f"{kind} takes exactly one axis, got {list(axes)}")
            element = i64
        elif kind in ("sum", "prod") and element.is_bool:
            raise Bad(f"{kind} of i1 is not defined; cast to an integer first ({x})")
        shape = [d for i, d in enumerate(x.shape) if i not in axes]
        return [TensorType(tuple(shape), element, x.device)]


def _same_element(types: list[TensorType], float_only: bool = False) -> None:
    first = types[0].element
    for t in types[1:]:
        if t.element != first:
            raise Bad("operands must have the same element type, got " + ", ".join(map(str, types)))
    if first.is_bool or (float_only and not first.is_float):
        raise Bad(f"needs {'float' if float_only else 'numeric'} operands, got {first}")


def _match(what: str, a, b, ta: TensorType, tb: TensorType) -> None:
    if a is not None and b is not None and a != b:
        raise Bad(f"{what} do not match: {ta} and {tb} ({a} vs {b})")


class DotOp(TensorOp):
    """`tensor.dot %a, %b`: vector·vector → 0-d, matrix·vector, vector·matrix, matrix·matrix."""

    name = "tensor.dot"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if len(types) != 2:
            raise Bad(f"expects 2 operands, got {len(types)}")
        a, b = types
        if a.rank not in (1, 2) or b.rank not in (1, 2):
            raise Bad(f"operands must be vectors or matrices, got {a} and {b}")
        _same_element(types)
        device = common_device(types)
        _match("inner dimensions", a.shape[-1], b.shape[0], a, b)
        shape = a.shape[:-1] + b.shape[1:]
        return [TensorType(shape, a.element, device)]


def _alpha_beta(attributes, n_operands: int, accumulator: str) -> None:
    float_attr(attributes, "alpha", 1.0)
    beta = float_attr(attributes, "beta", 0.0)
    if (beta != 0.0) != (n_operands == 3):
        raise Bad(f"the accumulator {accumulator} must be given exactly when beta != 0 "
                  f"(beta = {beta}, {n_operands} operands)")


class GemvOp(TensorOp):
    """`tensor.gemv %A, %x[, %y] {alpha = 1.0, beta = 0.0}`: alpha·A·x + beta·y."""

    name = "tensor.gemv"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if len(types) not in (2, 3):
            raise Bad(f"expects 2 or 3 operands (A, x[, y]), got {len(types)}")
        _alpha_beta(attributes, len(types), "y")
        A, x = types[:2]
        if A.rank != 2 or x.rank != 1:
            raise Bad(f"needs a matrix and a vector, got {A} and {x}")
        _same_element(types, float_only=True)
        device = common_device(types)
        _match("inner dimensions", A.shape[1], x.shape[0], A, x)
        rows = A.shape[0]
        if len(types) == 3:
            y = types[2]
            if y.rank != 1:
                raise Bad(f"accumulator y must be a vector, got {y}")
            _match("rows of A and y", A.shape[0], y.shape[0], A, y)
            rows = rows if rows is not None else y.shape[0]
        return [TensorType((rows,), A.element, device)]


def is_epilogue(name: str) -> bool:
    """Whether `name` is a unary float function of the elementwise table (what a gemm may apply
    to its result)."""
    row = TABLE.get(name)
    return row is not None and row.arity == 1 and "f" in row.kinds and not row.is_comparison


def epilogue_of(attributes) -> str | None:
    """The unary function a gemm applies to its result (`epilogue = "tanh"`), if any, checked."""
    if "epilogue" not in attributes:
        return None
    name = str_attr(attributes, "epilogue")
    if not is_epilogue(name):
        raise Bad(f"epilogue '{name}' is not a unary float function of the elementwise table")
    return name


class GemmOp(TensorOp):
    """`tensor.gemm %A, %B[, %C] {alpha = 1.0, beta = 0.0[, epilogue = "tanh"]}`:
    f(alpha·A·B + beta·C), f the identity without an epilogue. C may broadcast along a
    static-1 dim (a bias row: `h·W + b` with b as a 1×n row), and an epilogue is any unary
    float function of the elementwise table — what `specialize` folds into the product so
    that it is applied while the output is still in cache."""

    name = "tensor.gemm"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if len(types) not in (2, 3):
            raise Bad(f"expects 2 or 3 operands (A, B[, C]), got {len(types)}")
        _alpha_beta(attributes, len(types), "C")
        epilogue_of(attributes)
        A, B = types[:2]
        if A.rank != 2 or B.rank != 2:
            raise Bad(f"needs two matrices, got {A} and {B}")
        _same_element(types, float_only=True)
        device = common_device(types)
        _match("inner dimensions", A.shape[1], B.shape[0], A, B)
        shape = [A.shape[0], B.shape[1]]
        if len(types) == 3:
            C = types[2]
            if C.rank != 2:
                raise Bad(f"accumulator C must be a matrix, got {C}")
            for axis in range(2):
                if C.shape[axis] == 1 and shape[axis] != 1:
                    continue  # C broadcasts along this dim
                _match(f"dim {axis} of the product and C", shape[axis], C.shape[axis],
                       A if axis == 0 else B, C)
                shape[axis] = shape[axis] if shape[axis] is not None else C.shape[axis]
        return [TensorType(tuple(shape), A.element, device)]
