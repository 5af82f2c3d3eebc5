"""Views and copies: dimshuffle, transpose, broadcast, slice (negative steps too), insert_slice,
concat, reshape (of contiguous and strided buffers), dim; results that are views or arguments."""
from __future__ import annotations

import numpy as np
import pytest

from native_helpers import check, rand

NB = -9223372036854775808


def test_dimshuffle_then_add():
    text = """
func.func @f(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %t = tensor.dimshuffle %x {pattern = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %bb = tensor.dimshuffle %b {pattern = array<i64: -1, 0>} : (tensor<?xf32>) -> tensor<1x?xf32>
  %r = tensor.add %t, %bb : (tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}"""
    check(text, rand(5, 3), rand(5, seed=1))


def test_transpose_result_is_copied_out():
    text = """
func.func @f(%x: tensor<?x?x?xf64>) -> (tensor<?x?x?xf64>, tensor<?x?x?xf64>) {
  %t = tensor.transpose %x {permutation = array<i64: 2, 0, 1>} : (tensor<?x?x?xf64>) -> tensor<?x?x?xf64>
  func.return %t, %x : tensor<?x?x?xf64>, tensor<?x?x?xf64>
}"""
    got = check(text, rand(2, 3, 4, dtype="float64"))
    assert all(g.flags.c_contiguous for g in got)


def test_broadcast_to_like():
    text = """
func.func @f(%x: tensor<1x?xf32>, %like: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = tensor.broadcast %x, %like : (tensor<1x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}"""
    check(text, rand(1, 4), rand(3, 4))


@pytest.mark.parametrize("start,stop,step", [(1, NB, 1), (NB, NB, -1), (-3, NB, 1), (NB, -2, 2),
                                             (5, 1, -2), (2, 100, 3), (-100, 3, 1), (7, 2, 1)])
def test_slice(start, stop, step):
    text = f"""
func.func @f(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {{
  %s = tensor.slice %x {{starts = array<i64: {start}, 0>, stops = array<i64: {stop}, {NB}>, steps = array<i64: {step}, 1>}} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = tensor.exp %s : tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}}"""
    check(text, rand(9, 4), rtol=1e-6)
    check(text, rand(4, 9).T, rtol=1e-6)


def test_insert_slice():
    text = f"""
func.func @f(%d: tensor<?xf32>, %s: tensor<?xf32>) -> tensor<?xf32> {{
  %r = tensor.insert_slice %d, %s {{starts = array<i64: 1>, stops = array<i64: {NB}>, steps = array<i64: 3>}} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}}"""
    check(text, rand(10), rand(3, seed=3))


def test_concat():
    text = """
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = tensor.concat %a, %b, %c {axis = 1} : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}"""
    check(text, rand(3, 2), rand(3, 5, seed=1), rand(6, 4, seed=2)[::2])


def test_reshape_contiguous_and_strided():
    text = """
func.func @f(%x: tensor<?x?xf32>) -> (tensor<?x3xf32>, tensor<?xf32>) {
  %a = tensor.reshape %x {shape = array<i64: -1, 3>} : (tensor<?x?xf32>) -> tensor<?x3xf32>
  %e = tensor.exp %x : tensor<?x?xf32>
  %b = tensor.reshape %e {shape = array<i64: -1>} : (tensor<?x?xf32>) -> tensor<?xf32>
  func.return %a, %b : tensor<?x3xf32>, tensor<?xf32>
}"""
    check(text, rand(4, 6), rtol=1e-6)
    check(text, rand(6, 4).T, rtol=1e-6)


def test_dim():
    text = """
func.func @f(%x: tensor<?x?xf32>) -> tensor<i64> {
  %d = tensor.dim %x {axis = 1} : (tensor<?x?xf32>) -> tensor<i64>
  func.return %d : tensor<i64>
}"""
    check(text, rand(4, 7))


def test_same_value_returned_twice():
    text = """
func.func @f(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %e = tensor.exp %x : tensor<?xf32>
  func.return %e, %e : tensor<?xf32>, tensor<?xf32>
}"""
    a, b = check(text, rand(5), rtol=1e-6)
    assert a is not b and not np.shares_memory(a, b)


def test_buffers_are_reused():
    from irc.ir.parser import parse_module
    from irc.ir.printer import print_op
    from irc.runtime.native import lower_module
    text = """
func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = tensor.exp %x : tensor<?xf32>
  %b = tensor.neg %a : tensor<?xf32>
  %c = tensor.exp %b : tensor<?xf32>
  %d = tensor.neg %c : tensor<?xf32>
  func.return %d : tensor<?xf32>
}"""
    ir = print_op(lower_module(parse_module(text)))
    assert ir.count("loop.alloc") == 3  # a and c share a buffer
    assert ir.count("loop.dealloc") == 2
    check(text, rand(100), rtol=1e-6)


def test_empty_and_zero_dimensional():
    text = """
func.func @f(%x: tensor<?x?xf32>, %s: tensor<f32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %d = tensor.dimshuffle %s {pattern = array<i64: -1, -1>} : (tensor<f32>) -> tensor<1x1xf32>
  %m = tensor.mul %x, %d : (tensor<?x?xf32>, tensor<1x1xf32>) -> tensor<?x?xf32>
  %r = tensor.reduce %x {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32>) -> tensor<?xf32>
  func.return %m, %r : tensor<?x?xf32>, tensor<?xf32>
}"""
    check(text, rand(3, 4), np.float32(2.5))
    check(text, np.zeros((0, 4), np.float32), np.float32(2.5))
    check(text, np.zeros((3, 0), np.float32), 1.5)  # a Python float for a 0-d input
