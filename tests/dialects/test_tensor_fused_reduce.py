"""`tensor.fused_reduce` with several results: text round trip, the verifier's checks, and its
reference semantics against numpy."""
import numpy as np
import pytest

from irc.dialects import load_all
from irc.dialects.tensor_eval import evaluate
from irc.ir.diagnostics import VerifyError
from irc.ir.parser import parse_module
from irc.ir.printer import print_op
from irc.ir.verifier import verify

load_all()

TEXT = """func.func @f(%x: tensor<?x?xf32>, %y: tensor<1x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xi1>, tensor<?xf32>, tensor<?xf32>) {
  %0:4 = tensor.fused_reduce(%a = %x, %b = %y) {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32>, tensor<1x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xi1>, tensor<?xf32>, tensor<?xf32>) {
    %s = scalar.add %a, %b : f32
    %e = scalar.exp %s : f32
    %c = scalar.constant {value = 1.0 : f32} : f32
    %m = scalar.lt %e, %c : (f32, f32) -> i1
    scalar.yield %e, %m, %e, %s : f32, i1, f32, f32
  }
  func.return %0#0, %0#1, %0#2, %0#3 : tensor<?x?xf32>, tensor<?x?xi1>, tensor<?xf32>, tensor<?xf32>
}
"""


def _op(text: str):
    return parse_module(text).body.ops[0].body.ops[0]


# the op alone (its results unused), so a wrong result type reaches the op's verifier
BARE = (TEXT.replace(") -> (tensor<?x?xf32>, tensor<?x?xi1>, tensor<?xf32>, tensor<?xf32>) {\n  %0", ") {\n  %0")
        .replace("func.return %0#0, %0#1, %0#2, %0#3 : tensor<?x?xf32>, tensor<?x?xi1>, tensor<?xf32>, "
                 "tensor<?xf32>", "func.return"))


def _bad(old: str, new: str) -> str:
    assert old in BARE
    return BARE.replace(old, new)


def test_multi_result_text_roundtrips_both_forms():
    verify(parse_module(BARE))
    m = parse_module(TEXT)
    verify(m)
    text = print_op(m)
    assert print_op(parse_module(text)) == text
    generic = print_op(m, generic=True)
    assert '"tensor.fused_reduce"' in generic
    assert print_op(parse_module(generic)) == text
    op = m.body.ops[0].body.ops[0]
    assert op.num_elementwise == 2
    assert [r.index for r in op.reduced_results] == [2, 3]


@pytest.mark.parametrize("old, new, message", [
    ("-> (tensor<?x?xf32>, tensor<?x?xi1>, tensor<?xf32>, tensor<?xf32>) {",
     "-> (tensor<?x?xf32>, tensor<?x?xi1>, tensor<?x?xf32>, tensor<?x?xf32>) {",
     "needs at least one reduced result"),
    ("-> (tensor<?x?xf32>, tensor<?x?xi1>, tensor<?xf32>, tensor<?xf32>) {",
     "-> (tensor<?xf32>, tensor<?x?xi1>, tensor<?xf32>, tensor<?x?xf32>) {",
     r"result #0 has type tensor<\?xf32>, but the operands and body give tensor<\?x\?xf32> "
     r"\(elementwise, the 2 first result\(s\)\)"),
    ("-> (tensor<?x?xf32>, tensor<?x?xi1>, tensor<?xf32>, tensor<?xf32>) {",
     "-> (tensor<?x?xf32>, tensor<?x?xi1>, tensor<?xf32>, tensor<?xf64>) {",
     r"result #3 has type tensor<\?xf64>, but the operands and body give tensor<\?xf32> "
     r"\(reduced over axes \[1\], the 2 last result\(s\)\)"),
    ("scalar.yield %e, %m, %e, %s : f32, i1, f32, f32", "scalar.yield %e, %m, %m, %s : f32, i1, i1, f32",
     r"sum of i1 is not defined \(result #2\)"),
    ("scalar.yield %e, %m, %e, %s : f32, i1, f32, f32", "scalar.yield %e, %m, %e : f32, i1, f32",
     r"body yields 3 value\(s\) but the op has 4 result\(s\)"),
    ("axes = array<i64: 1>", "axes = array<i64: 2>", r"axes \[2\] must be sorted, unique, non-empty and < 2"),
    ('kind = "sum"', 'kind = "argmax"', "needs kind = one of sum, prod, max, min"),
])
def test_verifier_checks(old: str, new: str, message: str):
    with pytest.raises(VerifyError, match=message):
        verify(parse_module(_bad(old, new)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind, axes", [("sum", (1,)), ("max", (0,)), ("prod", (0, 1)), ("min", (1,))])
def test_reference_semantics(dtype, kind: str, axes: tuple):
    el = "f32" if dtype == np.float32 else "f64"
    kept = "tensor<?xELx>".replace("ELx", el) if len(axes) == 1 else f"tensor<{el}>"
    text = (TEXT.replace("f32", el).replace("tensor<?x" + el + ">", kept)
            .replace('kind = "sum"', f'kind = "{kind}"')
            .replace("axes = array<i64: 1>", "axes = array<i64: " + ", ".join(map(str, axes)) + ">"))
    op = _op(text)
    verify(op.parent_op)
    rng = np.random.default_rng(7)
    x = rng.uniform(-1, 1, (5, 7)).astype(dtype)
    y = rng.uniform(-1, 1, (1, 7)).astype(dtype)
    e, m, r_e, r_s = evaluate(op, [x, y])
    want = {"sum": np.sum, "max": np.max, "prod": np.prod, "min": np.min}[kind]
    np.testing.assert_allclose(e, np.exp(x + y), rtol=1e-6)
    np.testing.assert_array_equal(m, np.exp(x + y) < 1)
    np.testing.assert_allclose(r_e, want(np.exp(x + y), axis=axes), rtol=1e-5)
    np.testing.assert_allclose(r_s, want(x + y, axis=axes), rtol=1e-5, atol=1e-7)
    assert e.dtype == dtype and r_e.dtype == dtype and r_e.shape == want(x, axis=axes).shape
