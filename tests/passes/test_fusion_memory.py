"""Memory planning: reuse by liveness, `allow_gc=False` workspaces, the peak known at compile
time (`irc.peak_bytes`, `memory_profile`)."""
from __future__ import annotations

import numpy as np

from irc.dialects import load_all
from irc.dialects.builtin import ModuleOp
from irc.ir.parser import parse_module
from irc.ir.pass_manager import PassManager
from irc.conversion.tensor_to_loop.lower_to_loops import lower_function
from irc.conversion.tensor_to_loop.memory_profile import memory_profile

load_all()

CHAIN = """
func.func @f(%x: tensor<?xf32>, %A: tensor<?x?xf32>) -> tensor<?xf32> {
  %a = tensor.exp %x : tensor<?xf32>
  %g = tensor.gemv %A, %a {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %b = tensor.tanh %g : tensor<?xf32>
  %h = tensor.gemv %A, %b {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %c = tensor.neg %h : tensor<?xf32>
  %k = tensor.gemv %A, %c {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %k : tensor<?xf32>
}
"""


def _module(pipeline: str) -> ModuleOp:
    m = parse_module(CHAIN)
    if pipeline:
        PassManager.parse(pipeline).run(m)
    return m


def test_memory_profile_inplace_and_reuse() -> None:
    n = 1000
    prof = memory_profile(_module("fuse-elementwise,inplace"), [(n,), (n, n)])
    assert prof["output_bytes"] == 4 * n
    # in place, two vectors are live at most: the one a gemv reads and the one it writes
    # (sizes asserted equal let x's buffer be reused for A's rows); without, a third
    assert prof["peak_bytes"] == 2 * 4 * n
    assert prof["peak_bytes_no_inplace"] == 3 * 4 * n
    assert prof["workspace_bytes_no_gc"] == 2 * 4 * n
    assert prof["peak_bytes_no_gc"] == prof["workspace_bytes_no_gc"] + prof["output_bytes"]


def test_peak_bytes_attribute_static_and_formula() -> None:
    func = lower_function(_module("inplace").body.ops[0])
    assert "x.shape[0]" in func.attributes["irc.peak_bytes"].value
    static = parse_module(CHAIN.replace("?x?x", "8x8x").replace("?x", "8x"))
    func = lower_function(static.body.ops[0])
    assert func.attributes["irc.peak_bytes"].value == memory_profile(static, [(8,), (8, 8)])["peak_bytes"]


def test_allow_gc_false_runs_and_keeps_workspace_across_shapes() -> None:
    from irc.runtime.native import compile_cpu
    func = lower_function(_module("fuse-elementwise,inplace").body.ops[0], allow_gc=False)
    assert not [op for op in func.body.ops if op.op_name == "loop.dealloc"]
    assert [op for op in func.body.ops if "irc.workspace" in op.attributes]
    fn = compile_cpu(ModuleOp.create([func]), use_cache=False)
    rng = np.random.default_rng(0)
    for n in (5, 300, 17):  # grows, then reuses the bigger buffer
        x, A = rng.standard_normal(n).astype(np.float32), rng.standard_normal((n, n)).astype(np.float32) / n
        want = A @ -(A @ np.tanh(A @ np.exp(x)))
        np.testing.assert_allclose(fn(x, A)[0], want, rtol=1e-4, atol=1e-5)
