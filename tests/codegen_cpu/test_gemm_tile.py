"""`loop.gemm_tile`, the products' register tile as vector code (`codegen_cpu/gemm_tile.py`):
exact on every way a tile reads A (in place, strided, transposed and packed, partial tiles,
several slices of k, the half-width tile), integers wrapping as numpy's, small LLVM IR, and a
clear error for a bad op."""
from __future__ import annotations

import re

import numpy as np
import pytest

from irc.ir.diagnostics import VerifyError
from irc.ir.parser import parse_module
from irc.ir.verifier import verify
from irc.runtime.native import lower_module

from native_helpers import compile_text

GEMM = """
func.func @f(%A: tensor<?x?x{t}>, %B: tensor<?x?x{t}>) -> tensor<?x?x{t}> {{
  {body}
  func.return %out : tensor<?x?x{t}>
}}"""
PLAIN = "%out = tensor.dot %A, %B : (tensor<?x?x{t}>, tensor<?x?x{t}>) -> tensor<?x?x{t}>"
A_TRANSPOSED = ("%At = tensor.transpose %A {{permutation = array<i64: 1, 0>}} : (tensor<?x?x{t}>) -> tensor<?x?x{t}>\n"
                "  %out = tensor.dot %At, %B : (tensor<?x?x{t}>, tensor<?x?x{t}>) -> tensor<?x?x{t}>")


def _small_integers(rng, shape, dtype):
    """Values whose products and sums are exact in the dtype: the result must equal numpy's."""
    return rng.randint(-4, 5, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m, k, n", [(1, 1, 1), (13, 7, 33), (25, 300, 70), (40, 600, 9), (12, 32, 32)])
@pytest.mark.parametrize("a_transposed", [False, True])
def test_products_are_exact(dtype, m, k, n, a_transposed):
    """Partial tiles, k over several slices, one panel or many (a transposed A is then packed),
    n ≤ 16 (the half-width tile)."""
    t = {"float32": "f32", "float64": "f64"}[dtype]
    body = (A_TRANSPOSED if a_transposed else PLAIN).format(t=t)
    _, fn = compile_text(GEMM.format(t=t, body=body))
    rng = np.random.RandomState(m * 1000 + k + n)
    a = _small_integers(rng, (k, m) if a_transposed else (m, k), dtype)
    b = _small_integers(rng, (k, n), dtype)
    got = fn(a, b)[0]
    want = (a.T if a_transposed else a) @ b
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("t, dtype", [("i8", np.int8), ("i32", np.int32), ("i64", np.int64)])
@pytest.mark.parametrize("a_transposed", [False, True])
def test_integer_products_wrap_as_numpy(t, dtype, a_transposed):
    """Integer tiles multiply and add with wrap-around (int8 sums overflow here), as numpy."""
    body = (A_TRANSPOSED if a_transposed else PLAIN).format(t=t)
    _, fn = compile_text(GEMM.format(t=t, body=body))
    rng = np.random.RandomState(5)
    m, k, n = 27, 300, 41
    a = rng.randint(-100, 100, size=(k, m) if a_transposed else (m, k)).astype(dtype)
    b = rng.randint(-100, 100, size=(k, n)).astype(dtype)
    want = (a.T if a_transposed else a) @ b
    got = fn(a, b)[0]
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, want)


def test_strided_views_of_a_and_b():
    """A and B passed as numpy views with steps and negative strides."""
    _, fn = compile_text(GEMM.format(t="f32", body=PLAIN.format(t="f32")))
    rng = np.random.RandomState(1)
    a = _small_integers(rng, (60, 90), np.float32)[::2, ::-3]
    b = _small_integers(rng, (90, 100), np.float32)[::3, 1::2]
    np.testing.assert_array_equal(fn(a, b)[0], a @ b)


def test_random_values_match_numpy():
    _, fn = compile_text(GEMM.format(t="f32", body=PLAIN.format(t="f32")))
    rng = np.random.RandomState(2)
    a, b = rng.randn(37, 513).astype(np.float32), rng.randn(513, 45).astype(np.float32)
    np.testing.assert_allclose(fn(a, b)[0], a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_the_tile_is_one_op_and_vector_llvm_ir():
    """The loop IR holds one `loop.gemm_tile` per tile (no MR·NR scalar fmas), and its LLVM IR
    is vector fmas: a few hundred lines, not thousands."""
    from irc.codegen_cpu.convert_to_llvm import convert_to_llvm
    from irc.codegen_cpu.kernel_split import KernelSet
    module = parse_module(GEMM.format(t="f32", body=PLAIN.format(t="f32")))
    loops = lower_module(module)
    names = [op.op_name for op in loops.walk()]
    assert "loop.gemm_tile" in names and "scalar.fma" not in names
    found = KernelSet("test")
    convert_to_llvm(loops, kernels=found)
    tiles = [str(m) for m in found.modules.values() if "llvm.fma.v" in str(m)]
    assert tiles, "no vector tile among the kernels"
    for text in tiles:
        assert text.count("\n") < 400  # the scalar tile: ~3,300 lines
        assert "call <32 x float> @\"llvm.fma.v32f32\"" in text or "call <16 x float> @\"llvm.fma.v16f32\"" in text


def _tile_op(a_type: str, bp_type: str = "memref<?x?x32xf32>",
             tile_type: str = "memref<?x12x32xf32>", mr: int = 12) -> str:
    rows = ", ".join("%i, %i" for _ in range(mr))
    types = ", ".join(["index"] * (2 * mr))
    return f"""
func.func @f(%a: {a_type}, %bp: {bp_type}, %tile: {tile_type}, %i: index) {{
  loop.gemm_tile %a, {rows}, %bp, %i, %i, %i, %tile, %i {{axis = 1, mr = {mr}, nr = 32}} : ({a_type}, {types}, {bp_type}, index, index, index, {tile_type}, index) -> ()
  func.return
}}"""


@pytest.mark.parametrize("text, message", [
    (_tile_op("memref<?x?xf32>", bp_type="memref<?x?x16xf32>"), "bp must be a memref<?x?x32>"),
    (_tile_op("memref<?x?xf32>", tile_type="memref<?x8x32xf32>"), "tile must be a memref<?x12x32>"),
    (_tile_op("memref<?x?xf64>"), "bp holds f32, a holds f64"),
    (_tile_op("memref<?x?xi1>", bp_type="memref<?x?x32xi1>", tile_type="memref<?x12x32xi1>"),
     "multiplies numbers, got i1"),
    (_tile_op("memref<?x?xf32>", bp_type="memref<?x?x32xf32, strided<[?, ?, ?], offset: ?>>"),
     "bp must be contiguous"),
])
def test_a_bad_tile_op_is_named(text, message):
    with pytest.raises(VerifyError, match=re.escape(message)):
        verify(parse_module(text))


def test_a_good_tile_op_verifies_and_prints_back():
    from irc.ir.printer import print_op
    module = parse_module(_tile_op("memref<?x?xf32>"))
    verify(module)
    text = print_op(module)
    assert "{axis = 1, mr = 12, nr = 32}" in text
    assert print_op(parse_module(text)) == text
