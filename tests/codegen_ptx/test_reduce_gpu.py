"""Reduction kernels (`device_reduce.py`) from the tensor level: every kind and dtype, a fused
body with an elementwise result, in the emulator against numpy with two grid sizes giving the
same bits; their PTX assembles for sm_80 and sm_90. Tolerances: float32 rtol 1e-5, float16
(summed in float32, rounded once) rtol 1e-3."""
from __future__ import annotations

import numpy as np
import pytest

from irc.runtime.kernel_emulator import run_function

from gpu_helpers import check_ptx, gpu_module, needs_ptxas


def reduce_module(kind: str, axes: tuple[int, ...], dtype: str, result: str) -> str:
    kept = "x".join("?" for a in range(2) if a not in axes)
    out = f"tensor<{kept + 'x' if kept else ''}{result}>"
    return f"""
func.func @f(%x: tensor<?x?x{dtype}>) -> {out} {{
  %r = tensor.reduce %x {{kind = "{kind}", axes = array<i64: {', '.join(map(str, axes))}>}} : (tensor<?x?x{dtype}>) -> {out}
  func.return %r : {out}
}}"""


FUSED = """
func.func @f(%x: tensor<?x?xf32>, %b: tensor<1x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %r:2 = tensor.fused_reduce(%a = %x, %c = %b) {kind = "max", axes = array<i64: 1>} : (tensor<?x?xf32>, tensor<1x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
    %s = scalar.add %a, %c : f32
    %e = scalar.tanh %s : f32
    scalar.yield %e, %e : f32, f32
  }
  func.return %r#0, %r#1 : tensor<?x?xf32>, tensor<?xf32>
}"""

NUMPY = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "argmax": np.argmax,
         "argmin": np.argmin}


def same_bits_on_two_grids(module, inputs):
    a, b = run_function(module, inputs, sm_count=1), run_function(module, inputs, sm_count=5)
    for x, y in zip(a, b):
        assert x.tobytes() == y.tobytes()
    return a


@pytest.mark.parametrize("dtype", ["f16", "f32", "f64", "i32"])
@pytest.mark.parametrize("kind", ["sum", "prod", "max", "min", "argmax", "argmin"])
@pytest.mark.parametrize("axes", [(0,), (1,), (0, 1)])
def test_kinds_dtypes_and_axes(kind, axes, dtype):
    if kind.startswith("arg") and len(axes) > 1:
        pytest.skip("argmax/argmin reduce one axis (the frontend flattens first)")
    result = "i64" if kind.startswith("arg") else dtype
    module = gpu_module(reduce_module(kind, axes, dtype, result))
    np_dtype = {"f16": "float16", "f32": "float32", "f64": "float64", "i32": "int32"}[dtype]
    rng = np.random.RandomState(len(kind))
    x = (np.exp(rng.uniform(-0.02, 0.02, (37, 129))) if dtype[0] == "f" else rng.randint(-2, 3, (37, 129)))
    x = x.astype(np_dtype)
    (got,) = same_bits_on_two_grids(module, [x])
    axis = axes[0] if len(axes) == 1 else None
    wide = x.astype("float64") if dtype[0] == "f" else x.astype("int64")
    want = NUMPY[kind](wide, axis=axis)
    if kind.startswith("arg") or dtype == "i32":
        np.testing.assert_array_equal(got, want.astype(got.dtype))
    else:
        np.testing.assert_allclose(got.astype("float64"), want, rtol=1e-3 if dtype == "f16" else 1e-5)


def test_fused_body_and_its_elementwise_result():
    module = gpu_module(FUSED)
    x, b = np.random.RandomState(0).randn(45, 300).astype("float32"), np.random.RandomState(1).randn(1, 300).astype("float32")
    e, m = same_bits_on_two_grids(module, [x, b])
    np.testing.assert_allclose(e, np.tanh(x + b), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(m, e.max(axis=1))


@needs_ptxas
@pytest.mark.parametrize("text", [reduce_module("sum", (0,), "f16", "f16"), reduce_module("argmin", (1,), "f64", "i64"),
                                  reduce_module("max", (0, 1), "f32", "f32"), FUSED])
def test_ptx_assembles(text):
    ptx = check_ptx(gpu_module(text))
    assert ".entry" in ptx["sm_90"]
