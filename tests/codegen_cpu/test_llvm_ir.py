"""What the generated LLVM IR must (not) contain: no `llvm.exp`/`llvm.log` intrinsics or libm
calls, vectorized loops, `reassoc` reductions, `noalias` buffers; the numpy-object entry and the
flat entry agree."""
from __future__ import annotations

import ctypes
import re

import numpy as np

from native_helpers import rand

MATH = ["exp", "log", "log1p", "expm1", "tanh", "sigmoid", "softplus", "sin", "cos", "sqrt"]


def _module(body: str, args: str = "%x: tensor<?xf32>", result: str = "tensor<?xf32>"):
    from irc.ir.parser import parse_module
    return parse_module(f"func.func @f({args}) -> {result} {{\n{body}\n}}")


def _math_module(t: str):
    lines = [f"  %r0 = tensor.neg %x : tensor<?x{t}>"]
    for k, op in enumerate(MATH):
        lines.append(f"  %r{k + 1} = tensor.{op} %r{k} : tensor<?x{t}>")
    lines.append(f"  %p = tensor.pow %r{len(MATH)}, %x : tensor<?x{t}>")
    lines.append(f"  func.return %p : tensor<?x{t}>")
    return _module("\n".join(lines), f"%x: tensor<?x{t}>", f"tensor<?x{t}>")


def test_no_libm_intrinsics_or_calls():
    from irc.codegen_cpu.emit import emit_llvm_ir, emit_llvm_ir_unoptimized
    for t in ("f32", "f64"):
        m = _math_module(t)
        for text in (emit_llvm_ir_unoptimized(m), emit_llvm_ir(m)):
            assert not re.search(r"@llvm\.(exp|exp2|log|log2|log10|pow|sin|cos|tanh)\.", text)
            assert not re.search(r"@(expf?|logf?|powf?|sinf?|cosf?|tanhf?|log1pf?|expm1f?)\(", text)


def test_exp_is_vectorized_and_buffers_noalias():
    from irc.codegen_cpu.emit import emit_llvm_ir
    text = emit_llvm_ir(_module("  %r = tensor.exp %x : tensor<?xf32>\n  func.return %r : tensor<?xf32>"))
    assert re.search(r"<(4|8|16) x float>", text)
    assert re.search(r"define .*@irc\.f\(ptr noalias", text)


def test_sum_accumulates_with_reassoc_and_vectorizes():
    from irc.codegen_cpu.emit import emit_llvm_ir, emit_llvm_ir_unoptimized
    m = _module('  %s = tensor.reduce %x {axes = array<i64: 0>, kind = "sum"}'
                ' : (tensor<?xf32>) -> tensor<f32>\n'
                "  func.return %s : tensor<f32>", result="tensor<f32>")
    assert "fadd reassoc" in emit_llvm_ir_unoptimized(m)
    assert re.search(r"fadd reassoc nsz <(4|8|16) x float>", emit_llvm_ir(m))


def test_asm_target():
    from irc.codegen_cpu.emit import emit_asm
    asm = emit_asm(_module("  %r = tensor.exp %x : tensor<?xf32>\n  func.return %r : tensor<?xf32>"))
    assert "irc.f" in asm


def test_flat_abi_call():
    """The documented flat entry: data pointer, sizes, byte strides per input; output pointers."""
    from irc.runtime.native import compile_cpu, load_object, build_object, lower_module
    m = _module("  %r = tensor.sqrt %x : tensor<?x?xf64>\n  func.return %r : tensor<?x?xf64>",
                "%x: tensor<?x?xf64>", "tensor<?x?xf64>")
    engine = load_object(build_object(lower_module(m)))
    fn = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, *[ctypes.c_int64] * 4, ctypes.c_void_p)(
        engine.get_function_address("irc.f"))
    x = rand(6, 8, dtype="float64", low=0.0, high=4.0)[::2, ::-1]
    out = np.empty(x.shape)
    assert fn(x.ctypes.data, *x.shape, *x.strides, out.ctypes.data) == 0
    np.testing.assert_allclose(out, np.sqrt(x))
    np.testing.assert_allclose(compile_cpu(m)(x)[0], np.sqrt(x))
