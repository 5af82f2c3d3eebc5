"""`scalar`: one op per table row, type inference and verification, constants, casts, folding."""
import pytest

from irc.dialects import scalar
from irc.dialects.elementwise import TABLE_ROWS
from irc.dialects.op_base import InferError
from irc.ir.attributes import BoolAttr, FloatAttr, IntegerAttr, TypeAttr
from irc.ir.core import OP_REGISTRY, Block, Commutative, ElementwiseTrait, Pure, Terminator
from irc.ir.diagnostics import VerifyError
from irc.ir.types import f32, f64, i1, i32


def args(*types):
    return Block(types).args


def const(attr):
    return scalar.ConstantOp.build([], {"value": attr})


def test_one_scalar_op_per_row():
    for row in TABLE_ROWS:
        cls = OP_REGISTRY[f"scalar.{row.name}"]
        assert cls is scalar.SCALAR_OPS[row.name]
        assert cls.fn is row and cls.assembly == "short"
        assert cls.has_trait_cls(Pure) and cls.has_trait_cls(ElementwiseTrait)
        assert cls.has_trait_cls(Commutative) == row.commutative


def test_inference_and_verify():
    a, b = args(f32, f32)
    op = scalar.ScalarAddOp.build([a, b])
    assert op.result_types == [f32]
    op.verify_()
    c = args(f32, f32)
    assert scalar.ScalarLtOp.build(list(c)).result_types == [i1]
    cond, x, y = args(i1, f64, f64)
    assert scalar.ScalarSelectOp.build([cond, x, y]).result_types == [f64]


def test_inference_errors():
    a, b = args(f32, i32)
    with pytest.raises(InferError, match="'scalar.add' op operands must have the same element type, "
                                         "got f32, i32"):
        scalar.ScalarAddOp.build([a, b])
    (n,) = args(i32)
    with pytest.raises(InferError, match="'scalar.exp' op needs float or complex operands, got i32"):
        scalar.ScalarExpOp.build([n])
    with pytest.raises(InferError, match="expects 2 operand"):
        scalar.ScalarAddOp.build([n])


def test_verify_wrong_result_type():
    a, b = args(f32, f32)
    op = scalar.ScalarAddOp([a, b], [f64])
    with pytest.raises(VerifyError, match="result #0 has type f64, but the operands give f32"):
        op.verify_()
    op = scalar.ScalarMulOp([a, b], [f32, f32])
    with pytest.raises(VerifyError, match="has 2 result"):
        op.verify_()


def test_constant_and_cast():
    c = const(FloatAttr(1.5, f32))
    assert c.result_types == [f32]
    assert const(BoolAttr(True)).result_types == [i1]
    assert const(IntegerAttr(3, i32)).result_types == [i32]
    with pytest.raises(InferError, match="requires a scalar 'value'"):
        scalar.ConstantOp.build([], {})
    cast = scalar.CastOp.build([c.result], {"to": TypeAttr(i32)})
    assert cast.result_types == [i32]
    assert cast.fold() == [IntegerAttr(1, i32)]
    with pytest.raises(InferError, match="'to' attribute"):
        scalar.CastOp.build([c.result], {})


def test_fold_on_constants():
    x = const(FloatAttr(2.0, f32))
    y = const(FloatAttr(3.0, f32))
    assert scalar.ScalarMulOp.build([x.result, y.result]).fold() == [FloatAttr(6.0, f32)]
    assert scalar.ScalarLtOp.build([x.result, y.result]).fold() == [BoolAttr(True)]
    n = const(IntegerAttr(7, i32))
    m = const(IntegerAttr(-2, i32))
    assert scalar.ScalarFloordivOp.build([n.result, m.result]).fold() == [IntegerAttr(-4, i32)]
    (a,) = args(f32)
    assert scalar.ScalarMulOp.build([a, y.result]).fold() is None
    assert x.fold() is None
    made = scalar.ScalarAddOp.materialize_constant(FloatAttr(6.0, f32), f32, x.location)
    assert isinstance(made, scalar.ConstantOp) and made.result_types == [f32]
    assert scalar.ScalarAddOp.materialize_constant(FloatAttr(6.0, f32), f64, x.location) is None


def test_yield():
    assert scalar.YieldOp.has_trait_cls(Terminator)
    (a,) = args(f32)
    scalar.YieldOp([a]).verify_()


def test_integer_pow_with_negative_exponent_is_not_folded():
    """numpy raises for 2 ** -1 on integers, and so does the table's reference: the error
    stays one for run time (no fold)."""
    two = const(IntegerAttr(2, i32))
    neg = const(IntegerAttr(-1, i32))
    assert scalar.ScalarPowOp.build([two.result, neg.result]).fold() is None
