"""The emulator runs a launch's blocks all at once (one array entry per thread of the grid), and
block by block where a view's parameters come from the block: the same bits either way."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.dialects.gpu import GpuFuncOp
from irc.ir.parser import parse_module
from irc.runtime import kernel_emulator
from irc.runtime.kernel_emulator import run_function, views_depend_on_block
from test_cuda_path_emulated import cuda_emulated, rand  # noqa: F401  (the fixture)

# Each block copies its own 256 elements through views offset by block_id * block_dim.
BLOCK_VIEWS = """
gpu.func @copy(%x: memref<?xf32, "cuda">, %y: memref<?xf32, "cuda">) attributes {items_per_thread = 1 : index} {
  %c1 = loop.constant {value = 1 : index} : index
  %t = gpu.thread_id : index
  %b = gpu.block_id : index
  %d = gpu.block_dim : index
  %off = loop.mul %b, %d : index
  %xs = loop.subview %x, %off, %d, %c1 : (memref<?xf32, "cuda">, index, index, index) -> memref<?xf32, strided<[?], offset: ?>, "cuda">
  %ys = loop.subview %y, %off, %d, %c1 : (memref<?xf32, "cuda">, index, index, index) -> memref<?xf32, strided<[?], offset: ?>, "cuda">
  %v = loop.load %xs[%t] : memref<?xf32, strided<[?], offset: ?>, "cuda">
  loop.store %v, %ys[%t] : memref<?xf32, strided<[?], offset: ?>, "cuda">
  gpu.return
}

func.func @host(%x: memref<?xf32, "cuda">, %y: memref<?xf32, "cuda">) -> memref<?xf32, "cuda"> {
  %n = loop.dim %x {axis = 0} : (memref<?xf32, "cuda">) -> index
  gpu.launch @copy(%x, %y) work %n : (memref<?xf32, "cuda">, memref<?xf32, "cuda">)
  func.return %y : memref<?xf32, "cuda">
}
"""


def kernels_of(module) -> list[GpuFuncOp]:
    return [op for op in module.body.ops if isinstance(op, GpuFuncOp)]


def test_a_view_offset_by_the_block_runs_block_by_block():
    module = parse_module(BLOCK_VIEWS)
    assert [views_depend_on_block(k) for k in kernels_of(module)] == [True]
    x = np.arange(768, dtype="float32")
    (y,) = run_function(module, [x, np.zeros(768, "float32")])
    np.testing.assert_array_equal(y, x)


def test_reductions_give_the_same_bits_over_the_grid_and_block_by_block(cuda_emulated, monkeypatch):
    x = T.fmatrix("x")
    f = irc.function([x], [T.sum(x, axis=0), T.max(x, axis=1), T.argmin(x, axis=1), T.sum(x)])
    xv = rand(300, 700, seed=2) * np.float32(1e3)
    module = cuda_emulated[-1]
    assert not any(views_depend_on_block(k) for k in kernels_of(module))
    whole_grid = run_function(module, [xv], sm_count=3)
    monkeypatch.setattr(kernel_emulator, "views_depend_on_block", lambda kernel: True)
    by_block = run_function(module, [xv], sm_count=3)
    for a, b in zip(whole_grid, by_block):
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes()
    for a, b in zip(f(xv), whole_grid):
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes()


@pytest.mark.parametrize("n", [257, 513])
def test_out_of_bounds_names_the_thread_and_its_block(n):
    text = """
gpu.func @k(%x: memref<?xf32, "cuda">) attributes {items_per_thread = 1 : index} {
  %t = gpu.thread_id : index
  %b = gpu.block_id : index
  %d = gpu.block_dim : index
  %bd = loop.mul %b, %d : index
  %i = loop.add %bd, %t : index
  %v = loop.load %x[%i] : memref<?xf32, "cuda">
  loop.store %v, %x[%i] : memref<?xf32, "cuda">
  gpu.return
}

func.func @host(%x: memref<?xf32, "cuda">) {
  %n = loop.dim %x {axis = 0} : (memref<?xf32, "cuda">) -> index
  gpu.launch @k(%x) work %n : (memref<?xf32, "cuda">)
  func.return
}
"""
    x = np.zeros(n, "float32")
    # the last block's threads past n read outside x: the first of them, with its block
    with pytest.raises(kernel_emulator.EmulatorError, match=f"out of bounds \\(thread 1 of block {n // 256},"):
        run_function(parse_module(text), [x])
