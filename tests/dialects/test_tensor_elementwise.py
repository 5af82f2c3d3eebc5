"""Elementwise `tensor` ops: generated per row, Theano's broadcasting, dtype and placement rules."""
import pytest

from irc.dialects import tensor
from irc.dialects.builtin import TensorType
from irc.dialects.elementwise import TABLE_ROWS
from irc.dialects.op_base import InferError
from irc.ir.attributes import TypeAttr
from irc.ir.core import OP_REGISTRY, Block, Commutative, ElementwiseTrait
from irc.ir.diagnostics import VerifyError
from irc.ir.types import ScalarType, f32, i32


def T(spec: str, device=None) -> TensorType:
    *dims, el = spec.split("x")
    return TensorType(tuple(None if d == "?" else int(d) for d in dims), ScalarType(el), device)


def args(*types):
    return Block(types).args


def infer(name, *types, **attrs):
    return OP_REGISTRY[name].build(list(args(*types)), attrs).result_types[0]


def test_one_tensor_op_per_row():
    for row in TABLE_ROWS:
        cls = OP_REGISTRY[f"tensor.{row.name}"]
        assert cls is tensor.ELEMENTWISE_OPS[row.name] and cls.fn is row
        assert cls.assembly == "short" and cls.has_trait_cls(ElementwiseTrait)
        assert cls.has_trait_cls(Commutative) == row.commutative
        assert hasattr(cls, "materialize_constant")


@pytest.mark.parametrize("a, b, out", [
    ("3xf32", "3xf32", "3xf32"),
    ("?x3xf32", "1x3xf32", "?x3xf32"),
    ("?x1xf32", "1x?xf32", "?x?xf32"),
    ("1x1xf32", "1x1xf32", "1x1xf32"),
    ("?xf32", "5xf32", "5xf32"),
    ("1xf32", "?xf32", "?xf32"),
    ("f32", "f32", "f32"),
])
def test_broadcasting(a, b, out):
    assert infer("tensor.add", T(a), T(b)) == T(out)


def test_comparison_and_select():
    assert infer("tensor.lt", T("?xi32"), T("1xi32")) == T("?xi1")
    assert infer("tensor.select", T("?x1xi1"), T("1x4xf32"), T("?x4xf32")) == T("?x4xf32")
    with pytest.raises(InferError, match="condition must have element type i1"):
        infer("tensor.select", T("4xf32"), T("4xf32"), T("4xf32"))


def test_shape_errors_name_both_shapes():
    with pytest.raises(InferError, match=r"incompatible shapes tensor<2x3xf32> and tensor<4x3xf32> "
                                         r"\(dim 0: 2 vs 4\)"):
        infer("tensor.mul", T("2x3xf32"), T("4x3xf32"))
    with pytest.raises(InferError, match=r"same rank .* tensor<3xf32> and tensor<2x3xf32>"):
        infer("tensor.add", T("3xf32"), T("2x3xf32"))


def test_dtype_errors():
    with pytest.raises(InferError, match=r"same element type, got f32, i32 \(tensor<3xf32>, tensor<3xi32>\)"):
        infer("tensor.add", T("3xf32"), T("3xi32"))
    with pytest.raises(InferError, match="'tensor.log' op needs float or complex operands, got i32"):
        infer("tensor.log", T("3xi32"))
    with pytest.raises(InferError, match="needs i1 operands"):
        infer("tensor.logical_not", T("3xf32"))


def test_placement():
    assert infer("tensor.exp", T("?xf32", "cuda")) == T("?xf32", "cuda")
    with pytest.raises(InferError, match=r'tensor<3xf32> is on the host but tensor<3xf32, "cuda"> '
                                         r'is on "cuda"; this needs a transfer'):
        infer("tensor.add", T("3xf32"), T("3xf32", "cuda"))
    a, b = args(T("3xf32", "cuda"), T("3xf32", "cuda"))
    op = tensor.ELEMENTWISE_OPS["add"]([a, b], [T("3xf32")])
    with pytest.raises(VerifyError, match=r'mixes placements: tensor<3xf32, "cuda"> is on "cuda" but '
                                          r'tensor<3xf32> is on the host'):
        op.verify_()


def test_verify_accepts_refined_but_not_wrong_result():
    a, b = args(T("?xf32"), T("?xf32"))
    tensor.ELEMENTWISE_OPS["add"]([a, b], [T("8xf32")]).verify_()
    with pytest.raises(VerifyError, match="result #0"):
        tensor.ELEMENTWISE_OPS["add"]([a, b], [T("?x1xf32")]).verify_()
    (s,) = args(f32)
    with pytest.raises(VerifyError, match="operand #0 must be a tensor, got f32"):
        tensor.ELEMENTWISE_OPS["exp"]([s], [f32]).verify_()


def test_cast():
    assert infer("tensor.cast", T("?x2xf32"), to=TypeAttr(i32)) == T("?x2xi32")
    assert infer("tensor.cast", T("2xi1", "cuda"), to=TypeAttr(f32)) == T("2xf32", "cuda")
    with pytest.raises(InferError, match="'to' attribute"):
        infer("tensor.cast", T("2xf32"))
