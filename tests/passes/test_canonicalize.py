"""Tests of the canonicalize pass beyond the FileCheck file: cast exactness, statistics, fixpoint."""
from __future__ import annotations

from irc.ir import f16, f32, f64, i1, i8, i16, i32, i64, index
from irc.ir.parser import parse_module
from irc.ir.pass_manager import PassManager, lookup_pass
from irc.ir.printer import print_op
from irc.passes.canonicalize import CANONICALIZE_PATTERNS, Canonicalize, is_exact_conversion


def test_exact_conversions():
    exact = [(f16, f32), (f32, f64), (f16, f64), (i8, i16), (i32, i64), (i64, index), (i1, f16),
             (i1, i8), (i8, f16), (i16, f32), (i32, f64), (f32, f32)]
    inexact = [(f64, f32), (f32, f16), (i64, i32), (i16, f16), (i32, f32), (i64, f64), (f32, i64),
               (i8, i1), (f32, i1)]
    assert all(is_exact_conversion(a, b) for a, b in exact)
    assert not any(is_exact_conversion(a, b) for a, b in inexact)


def test_pass_is_registered_with_statistics():
    assert lookup_pass("canonicalize") is Canonicalize
    text = """
    func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
      %one = tensor.constant {value = dense<1.0> : tensor<1xf32>} : tensor<1xf32>
      %e1 = tensor.exp %x : tensor<?xf32>
      %e2 = tensor.exp %x : tensor<?xf32>
      %d = tensor.sub %e1, %e2 : tensor<?xf32>
      %m = tensor.mul %d, %one : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
      func.return %m : tensor<?xf32>
    }
    """
    module = parse_module(text, "canon.mlir")
    pm = PassManager.parse("canonicalize")
    pm.run(module)
    stats = pm.passes[0].stats
    assert stats["MulByOne"] == 1 and stats["cse"] == 1 and stats["did not converge"] == 0
    out = print_op(module)
    assert "tensor.mul" not in out and out.count("tensor.exp") == 1
    assert "tensor.sub" in out  # x - x stays for floats (inf - inf is nan)


def test_patterns_have_names_and_roots():
    names = [p.name for p in CANONICALIZE_PATTERNS]
    assert len(set(names)) == len(names)
    assert all(p.root and p.root.startswith("tensor.") for p in CANONICALIZE_PATTERNS)
