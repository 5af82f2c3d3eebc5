"""`gpu.shuffle_xor`: a device nest's lanes trade values (what a device reduction's warp pass
combines its lanes with). The emulator swaps values between xor partners and refuses a warp
that reaches the shuffle in part; the PTX (`shfl.sync.bfly`, 64-bit values in two halves,
narrow ones widened) assembles; the verifier keeps the op out of branches and inner loops."""
from __future__ import annotations

import numpy as np
import pytest

from irc.ir.diagnostics import IRError
from irc.ir.parser import parse_module
from irc.ir.pass_manager import PassManager
from irc.ir.pass_pipeline import parse_pipeline
from irc.ir.verifier import verify
from irc.runtime.kernel_emulator import EmulatorError, run_function

from gpu_helpers import check_ptx, needs_ptxas


def swap_module(element: str, offset: int = 16):
    text = f"""
func.func @f(%x: memref<?x{element}, "cuda">, %y: memref<?x{element}, "cuda">) -> memref<?x{element}, "cuda"> {{
  %c0 = loop.constant {{value = 0 : index}} : index
  %c1 = loop.constant {{value = 1 : index}} : index
  %off = loop.constant {{value = {offset} : index}} : index
  %n = loop.dim %x {{axis = 0}} : (memref<?x{element}, "cuda">) -> index
  loop.parallel (%i) = (%c0) to (%n) step (%c1) {{
    %v = loop.load %x[%i] : memref<?x{element}, "cuda">
    %w = gpu.shuffle_xor %v, %off : ({element}, index) -> {element}
    loop.store %w, %y[%i] : memref<?x{element}, "cuda">
    loop.yield
  }}
  func.return %y : memref<?x{element}, "cuda">
}}"""
    module = parse_module(text)
    PassManager(parse_pipeline("outline-kernels")).run(module)
    return module


@pytest.mark.parametrize("offset", [1, 16])
def test_lanes_swap_with_their_xor_partner(offset):
    x = np.arange(64, dtype="float32")
    (y,) = run_function(swap_module("f32", offset), [x, np.zeros(64, "float32")])
    np.testing.assert_array_equal(y, x[np.arange(64) ^ offset])


def test_a_warp_reaching_a_shuffle_in_part_is_an_error():
    x = np.arange(40, dtype="float32")  # the second warp has 8 lanes with work, 24 without
    with pytest.raises(EmulatorError, match="reached by part of a warp"):
        run_function(swap_module("f32"), [x, np.zeros(40, "float32")])


@needs_ptxas
@pytest.mark.parametrize("element", ["f32", "f64", "i64", "i32", "i8", "i1"])
def test_ptx_assembles_for_every_width(element):
    ptx = check_ptx(swap_module(element))
    assert all("shfl.sync.bfly.b32" in text for text in ptx.values())


def test_a_shuffle_inside_an_inner_loop_is_refused():
    text = """
func.func @f(%x: memref<?xf32, "cuda">) {
  %c0 = loop.constant {value = 0 : index} : index
  %c1 = loop.constant {value = 1 : index} : index
  %n = loop.dim %x {axis = 0} : (memref<?xf32, "cuda">) -> index
  loop.parallel (%i) = (%c0) to (%n) step (%c1) {
    loop.for %k = %c0 to %n step %c1 {
      %v = loop.load %x[%k] : memref<?xf32, "cuda">
      %w = gpu.shuffle_xor %v, %c1 : (f32, index) -> f32
      loop.store %w, %x[%k] : memref<?xf32, "cuda">
      loop.yield
    }
    loop.yield
  }
  func.return
}"""
    with pytest.raises(IRError, match="top level of a device loop nest"):
        verify(parse_module(text))
