"""Kernels over strided (transposed, sliced with negative steps), broadcast and 0-d operands,
fused groups with several results, float16 chains and constants: run in the emulator through
the packed ABI and compared with numpy; their PTX assembles. Tolerances: float32 rtol 1e-6,
float16 rtol 2e-3 (the emulator rounds each op to float16 as numpy does)."""
from __future__ import annotations

import numpy as np
import pytest

from irc.runtime.kernel_emulator import run_function

from gpu_helpers import check_ptx, gpu_module, needs_ptxas

MIN = -9223372036854775808

TRANSPOSED = """
func.func @f(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %t = tensor.transpose %x {permutation = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = tensor.mul %t, %y : tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}"""

SLICED = f"""
func.func @f(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {{
  %s = tensor.slice %x {{starts = array<i64: 1, {MIN}>, steps = array<i64: 2, -1>, stops = array<i64: {MIN}, {MIN}>}} : tensor<?x?xf32>
  %r = tensor.exp %s : tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}}"""

FUSED_TWO_RESULTS = """
func.func @f(%x: tensor<?x3xf32>, %r: tensor<1x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xi1>) {
  %f:2 = tensor.fused(%a = %x, %b = %r) : (tensor<?x3xf32>, tensor<1x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xi1>) {
    %e = scalar.exp %a : f32
    %m = scalar.mul %e, %b : f32
    %t = scalar.tanh %m : f32
    %c = scalar.gt %t, %b : (f32, f32) -> i1
    scalar.yield %t, %c : f32, i1
  }
  func.return %f#0, %f#1 : tensor<?x3xf32>, tensor<?x3xi1>
}"""

HALF_CHAIN = """
func.func @f(%x: tensor<?xf16>, %y: tensor<?xf16>) -> tensor<?xf16> {
  %f = tensor.fused(%a = %x, %b = %y) : (tensor<?xf16>, tensor<?xf16>) -> tensor<?xf16> {
    %s = scalar.sigmoid %a : f16
    %m = scalar.mul %s, %b : f16
    %l = scalar.log1p %m : f16
    scalar.yield %l : f16
  }
  func.return %f : tensor<?xf16>
}"""

SCALAR_RESULT = """
func.func @f(%x: tensor<f32>, %y: tensor<?xf32>) -> (tensor<f32>, tensor<?xf32>) {
  %s = tensor.mul %x, %x : tensor<f32>
  %b = tensor.dimshuffle %s {pattern = array<i64: -1>} : (tensor<f32>) -> tensor<1xf32>
  %r = tensor.add %b, %y : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %s, %r : tensor<f32>, tensor<?xf32>
}"""

CONSTANT = """
func.func @f(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %c = tensor.constant {value = dense<[[1.0, -2.0, 0.5]]> : tensor<1x3xf32>} : tensor<1x3xf32>
  %r = tensor.add %x, %c : (tensor<?x3xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
  func.return %r : tensor<?x3xf32>
}"""

rng = np.random.default_rng(7)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


CASES = {
    "transposed": (TRANSPOSED, lambda: [f32(9, 13), f32(13, 9)], lambda x, y: [x.T * y]),
    "sliced": (SLICED, lambda: [f32(11, 6)], lambda x: [np.exp(x[1::2, ::-1])]),
    "fused_two_results": (FUSED_TWO_RESULTS, lambda: [f32(1001, 3), f32(1, 3)],
                          lambda x, r: [np.tanh(np.exp(x) * r), np.tanh(np.exp(x) * r) > r]),
    "half_chain": (HALF_CHAIN, lambda: [f32(1027).astype(np.float16), np.abs(f32(1027)).astype(np.float16)],
                   lambda x, y: [np.log1p((1 / (1 + np.exp(-x.astype(np.float32)))) * y)]),
    "scalar_result": (SCALAR_RESULT, lambda: [np.array(1.5, np.float32), f32(10)],
                      lambda x, y: [x * x, x * x + y]),
    "constant": (CONSTANT, lambda: [f32(7, 3)], lambda x: [x + np.array([[1.0, -2.0, 0.5]], np.float32)]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_emulated_kernels_match_numpy(case):
    text, make, ref = CASES[case]
    xs = make()
    got = run_function(gpu_module(text), xs)
    for g, r in zip(got, ref(*xs)):
        r = np.asarray(r)
        assert g.shape == r.shape
        if r.dtype == bool:
            np.testing.assert_array_equal(g, r)
        else:
            rtol = 2e-3 if g.dtype == np.float16 else 1e-6
            np.testing.assert_allclose(g.astype(np.float64), r.astype(np.float64), rtol=rtol, atol=1e-6)


@needs_ptxas
@pytest.mark.parametrize("case", list(CASES))
def test_ptx_assembles(case):
    check_ptx(gpu_module(CASES[case][0]))


@needs_ptxas
def test_contiguous_operands_use_16_byte_vector_accesses():
    ptx = check_ptx(gpu_module(HALF_CHAIN.replace("f16", "f32")))["sm_90"]
    assert "ld.global.nc.v4.b32" in ptx and "st.global.v4.b32" in ptx, ptx
