"""`tensor.fused_matvec`: text round trip (custom and generic forms), the verifier's checks, and
its reference semantics against numpy."""
import numpy as np
import pytest

from irc.dialects import load_all
from irc.dialects.tensor_eval import EvalError, evaluate
from irc.ir.diagnostics import VerifyError
from irc.ir.parser import parse_module
from irc.ir.printer import print_op
from irc.ir.verifier import verify

load_all()

RESULTS = "tensor<?xi1>, tensor<?xf32>, tensor<f32>, tensor<?xf32>"


def _text(A="tensor<?x?xf32>", x="tensor<?xf32>", y2="tensor<?xf32>", b="tensor<1xf32>", t="tensor<?xf32>",
          results=RESULTS, attrs='alpha = 0.5, beta = 2.0, kind = "sum"',
          yields="%p, %s, %g, %g : i1, f32, f32, f32", returned=True, el="f32") -> str:
    """A function around one fused_matvec: p = sigmoid(z + b) > 0.5, s = z + b, sum(g), out, with
    g = sigmoid(z + b) - t."""
    args = ", ".join([A, x, y2, b, t])
    n = results.count("tensor<")
    ret = f"func.return {', '.join(f'%0#{i}' for i in range(n))} : {results}" if returned else "func.return"
    sig = f" -> ({results})" if returned else ""
    return f"""func.func @f(%A: {A}, %x: {x}, %y2: {y2}, %b: {b}, %t: {t}){sig} {{
  %0:{n} = tensor.fused_matvec %A, %x, %y2 (%z, %c = %b, %u = %t) {{{attrs}}} : ({args}) -> ({results}) {{
    %s = scalar.add %z, %c : {el}
    %e = scalar.sigmoid %s : {el}
    %h = scalar.constant {{value = 0.5 : {el}}} : {el}
    %p = scalar.gt %e, %h : ({el}, {el}) -> i1
    %g = scalar.sub %e, %u : {el}
    scalar.yield {yields}
  }}
  {ret}
}}
"""


def test_text_roundtrips_both_forms():
    m = parse_module(_text())
    verify(m)
    text = print_op(m)
    assert "tensor.fused_matvec %A, %x, %y2 (%z, %c = %b, %u = %t)" in text
    assert print_op(parse_module(text)) == text
    generic = print_op(m, generic=True)
    assert '"tensor.fused_matvec"(%A, %x, %y2, %b, %t)' in generic
    assert print_op(parse_module(generic)) == text
    op = m.body.ops[0].body.ops[0]
    assert (op.num_elementwise, op.num_rows, op.kind, op.alpha, op.beta) == (2, 2, "sum", 0.5, 2.0)
    assert op.acc is op.operand(2) and op.row_operands == list(op.operands[3:])
    assert [r.index for r in op.reduced_results] == [2] and op.out is op.results[3]


def test_without_accumulator_or_reductions():
    text = (_text(results="tensor<?xf32>, tensor<?xf32>", attrs="alpha = 1.0", yields="%s, %g : f32, f32")
            .replace("%A, %x, %y2 (", "%A, %x (").replace("(tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<1x",
                                                           "(tensor<?x?xf32>, tensor<?xf32>, tensor<1x"))
    m = parse_module(text)
    verify(m)
    op = m.body.ops[0].body.ops[0]
    assert op.acc is None and op.kind is None and op.num_elementwise == 1 and not op.reduced_results
    assert print_op(parse_module(print_op(m, generic=True))) == print_op(m)


@pytest.mark.parametrize("kw, message", [
    (dict(attrs='alpha = 0.5, beta = 0.0, kind = "sum"'),
     r"the accumulator y2 must be given exactly when beta != 0 \(beta = 0.0, with y2\)"),
    (dict(yields="%p, %s, %g : i1, f32, f32"), r"body yields 3 value\(s\) but the op has 4 result\(s\)"),
    (dict(results="tensor<?xi1>, tensor<?xf32>, tensor<f32>, tensor<?xi1>", yields="%p, %s, %g, %p : i1, f32, f32, i1"),
     r"the last yielded value \(g\) must be f32, A's element type, got i1"),
    (dict(results="tensor<?xi1>, tensor<f32>, tensor<?xf32>, tensor<?xf32>"),
     r"result #2 is elementwise \(rank 1\) but follows a reduced one"),
    (dict(attrs="alpha = 0.5, beta = 2.0"), r"has 1 reduced result\(s\): needs kind = one of sum, prod, max, min"),
    (dict(results="tensor<?xi1>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>"),
     r"has a 'kind' but no reduced result"),
    (dict(results="tensor<?xi1>, tensor<?xf32>, tensor<i1>, tensor<?xf32>", yields="%p, %s, %p, %g : i1, f32, i1, f32"),
     r"sum of i1 is not defined \(result #2\)"),
    (dict(results="tensor<?xi1>, tensor<?xf32>, tensor<f32>, tensor<?x?xf32>"),
     r"result #3 has type tensor<\?x\?xf32>: expected rank 1|the last result \(alpha·Aᵀ·g \+ beta·y2\) has type"),
    (dict(results="tensor<?xi1>, tensor<?xf32>, tensor<f32>, tensor<5xf32>", A="tensor<?x4xf32>"),
     r"the last result \(alpha·Aᵀ·g \+ beta·y2\) has type tensor<5xf32>, expected tensor<4xf32>"),
    (dict(A="tensor<1x?xf32>"), r"row operand #1 \(tensor<\?xf32>\) has more rows than A's one: z would be broadcast"),
    (dict(A="tensor<?x3xf32>", x="tensor<4xf32>"), r"inner dimensions do not match"),
    (dict(A="tensor<6x?xf32>", t="tensor<5xf32>"), r"row operand #1 \(tensor<5xf32>\) does not have A's 6 rows"),
    (dict(t="tensor<?x?xf32>"), r"row operand #1 must be a vector \(length m or 1\)"),
    (dict(x="tensor<?xf64>"), r"A, x and y2 must have the same element type"),
    (dict(y2="tensor<3xf32>", A="tensor<?x4xf32>"), r"y2 must have A's 4 columns"),
])
def test_verifier_checks(kw: dict, message: str):
    with pytest.raises(VerifyError, match=message):
        verify(parse_module(_text(returned=False, **kw)))


def test_body_must_take_z_and_the_row_operands():
    generic = print_op(parse_module(_text(returned=False)), generic=True)
    assert ", %u: f32)" in generic
    text = generic.replace(", %u: f32)", ")").replace("%u)", "%z)")
    with pytest.raises(VerifyError, match=r"takes A, x\[, y2\] and 1 row operand\(s\) \(one per body "
                                          r"argument after z\), got 5 operand\(s\)"):
        verify(parse_module(text))


def _inputs(dtype, m=7, k=5, seed=3):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, s).astype(dtype) for s in ((m, k), (k,), (k,), (1,), (m,))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["sum", "prod", "max", "min"])
def test_reference_semantics(dtype, kind: str):
    el = "f32" if dtype == np.float32 else "f64"
    text = _text(attrs=f'alpha = 0.5, beta = 2.0, kind = "{kind}"', el=el,
                 yields=f"%p, %s, %s, %g : i1, {el}, {el}, {el}").replace("f32", el)
    op = parse_module(text).body.ops[0].body.ops[0]
    A, x, y2, b, t = _inputs(dtype)
    p, s, r, out = evaluate(op, [A, x, y2, b, t])
    z = A @ x
    e = 1 / (1 + np.exp(-(z + b)))
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(p, e > 0.5)
    np.testing.assert_allclose(s, z + b, **tol)
    np.testing.assert_allclose(r, {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[kind](z + b), **tol)
    np.testing.assert_allclose(out, 0.5 * A.T @ (e - t) + 2.0 * y2, **tol)
    assert {a.dtype for a in (s, r, out)} == {np.dtype(dtype)} and r.shape == () and out.shape == (5,)


def test_reference_checks_run_time_shapes():
    op = parse_module(_text()).body.ops[0].body.ops[0]
    A, x, y2, b, t = _inputs(np.float32)
    with pytest.raises(EvalError, match=r"row operand #1 has shape \(6,\), but A has 7 rows"):
        evaluate(op, [A, x, y2, b, t[:6]])
    with pytest.raises(EvalError, match=r"accumulator of shape \(4,\) does not match"):
        evaluate(op, [A, x, y2[:4], b, t])
