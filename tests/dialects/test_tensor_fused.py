"""`tensor.fused`: building from a body, inferred result types, and the verifier's checks."""
import numpy as np
import pytest

from irc.dialects import scalar, tensor
from irc.dialects.builtin import TensorType
from irc.dialects.tensor_eval import evaluate
from irc.ir.attributes import FloatAttr
from irc.ir.core import Block, Region
from irc.ir.diagnostics import VerifyError
from irc.ir.types import ScalarType, f32, f64


def T(spec: str, device=None) -> TensorType:
    *dims, el = spec.split("x")
    return TensorType(tuple(None if d == "?" else int(d) for d in dims), ScalarType(el), device)


def body(b, xs):
    s = b.create("scalar.add", xs).result
    one = b.create("scalar.constant", [], {"value": FloatAttr(1.0, f32)}).result
    e = b.create("scalar.exp", [s]).result
    m = b.create("scalar.lt", [e, one]).result
    return [e, m]


def make(*types):
    return tensor.FusedOp.create(list(Block(types).args), body)


def test_fused_types_and_eval():
    op = make(T("?x3xf32"), T("1x3xf32"))
    assert op.result_types == [T("?x3xf32"), T("?x3xi1")]
    op.verify_()
    a = np.arange(6, dtype=np.float32).reshape(2, 3) - 3
    b = np.array([[0.5, -1.0, 2.0]], dtype=np.float32)
    e, m = evaluate(op, [a, b])
    assert e.dtype == np.float32 and m.dtype == np.bool_
    np.testing.assert_allclose(e, np.exp(a + b), rtol=1e-6)
    np.testing.assert_array_equal(m, np.exp(a + b) < 1)


def test_fused_verify_errors():
    op = make(T("3xf32"), T("3xf32"))
    op.body.args[0].type = f64
    with pytest.raises(VerifyError, match=r"body argument #0 has type f64 but operand #0 is tensor<3xf32>"):
        op.verify_()
    op = make(T("3xf32"), T("3xf32"))
    op.results[1].type = T("3xf32")
    with pytest.raises(VerifyError, match=r"result #1 has type tensor<3xf32>, "
                                          r"but the operands and body give tensor<3xi1>"):
        op.verify_()
    with pytest.raises(VerifyError, match="incompatible shapes"):
        make(T("3xf32"), T("4xf32"))
    op = make(T("3xf32"), T("3xf32"))
    op.body.ops[-1].erase()
    with pytest.raises(VerifyError, match="must end in 'scalar.yield'"):
        op.verify_()


def test_fused_body_is_isolated():
    outer = Block([f32, T("3xf32")])
    inner = Block([f32])
    inner.append(scalar.ScalarAddOp.build([inner.args[0], outer.args[0]]))
    inner.append(scalar.YieldOp([inner.ops[0].result]))
    op = tensor.FusedOp.build([outer.args[1]], regions=[Region([inner])])
    with pytest.raises(VerifyError, match="uses a value defined outside the body"):
        op.verify_()
