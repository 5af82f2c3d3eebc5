"""The kernel ABI (parameter layout, packing and its checks, grid sizes), the host plan's
size checks, and the NVPTX guard that keeps a forbidden intrinsic from aborting the process."""
from __future__ import annotations

import struct

import pytest
from llvmlite import ir

from irc.codegen_ptx.abi import BLOCKS_PER_SM, DeviceView, kernel_params, launch_dims, pack_params, param_layout
from irc.codegen_ptx.target import ForbiddenIntrinsicError, check_intrinsics, emit_ptx, ptx_cache_key
from irc.ir.parser import parse_module
from irc.runtime.host_plan import record_plan
from irc.runtime.shapes import ShapeError

from gpu_helpers import gpu_module

KERNEL = """
gpu.func @k(%a: memref<?x4xf32, "cuda">, %b: memref<?x?xf16, strided<[?, 1], offset: ?>, "cuda">,
            %n: index, %s: i1, %h: f16) {
  gpu.return
}"""


def kernel():
    return parse_module(KERNEL).body.ops[0]


def test_param_layout_follows_the_types():
    params = kernel_params(kernel())
    assert [(p.arg, p.kind, p.axis) for p in params] == [
        (0, "ptr", -1), (0, "size", 0), (1, "ptr", -1), (1, "size", 0), (1, "size", 1),
        (1, "stride", 0), (2, "index", -1), (3, "scalar", -1), (4, "scalar", -1)]
    fmt, offsets = param_layout(params)
    assert offsets == [0, 8, 16, 24, 32, 40, 48, 56, 58]  # f16 aligned to 2 after the bool byte
    assert struct.calcsize(fmt) == 60


def test_pack_folds_the_offset_into_the_pointer():
    a = DeviceView(0x1000, 0, (3, 4), (4, 1), 4)
    b = DeviceView(0x2000, 5, (2, 7), (9, 1), 2)
    data = pack_params(kernel(), [a, b, 17, True, 1.5])
    fmt, _ = param_layout(kernel_params(kernel()))
    assert struct.unpack(fmt, data) == (0x1000, 3, 0x2000 + 10, 2, 7, 9, 17, 1, 1.5)


def test_pack_refuses_what_the_kernel_does_not_assume():
    b = DeviceView(0x2000, 0, (2, 7), (9, 1), 2)
    with pytest.raises(ValueError, match="dense row-major"):
        pack_params(kernel(), [DeviceView(0x1000, 0, (3, 4), (8, 1), 4), b, 1, True, 0.0])
    with pytest.raises(ValueError, match="16-byte aligned"):
        pack_params(kernel(), [DeviceView(0x1004, 0, (3, 4), (4, 1), 4), b, 1, True, 0.0])
    with pytest.raises(ValueError, match="size 5 along axis 1"):
        pack_params(kernel(), [DeviceView(0x1000, 0, (3, 5), (5, 1), 4), b, 1, True, 0.0])


def test_launch_dims():
    assert launch_dims(0, 132) == (0, 256)
    assert launch_dims(1, 132) == (1, 256)
    assert launch_dims(1024, 132, items_per_thread=4) == (1, 256)
    assert launch_dims(1025, 132, items_per_thread=4) == (2, 256)
    assert launch_dims(1 << 26, 132, items_per_thread=4) == (132 * BLOCKS_PER_SM, 256)
    assert launch_dims(1 << 30, 1, items_per_thread=4) == (BLOCKS_PER_SM, 256)  # grid-stride beyond


def test_host_plan_records_launches_and_checks_sizes():
    m = gpu_module("""
func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %r = tensor.add %x, %y : tensor<?xf32>
  func.return %r : tensor<?xf32>
}""")
    func = [op for op in m.body.ops if op.op_name == "func.func"][0]
    plan = record_plan(func, [(5000,), (5000,)], ["float32", "float32"])
    assert [(l.kernel, l.work) for l in plan.launches] == [("f_kernel0", 5000)]
    assert len(plan.allocs) == 1 and plan.results[0].slot == 2
    with pytest.raises(ShapeError, match="operands differ in size"):
        record_plan(func, [(5000,), (4999,)], ["float32", "float32"])


def test_forbidden_intrinsic_is_refused_before_llvm_sees_it():
    mod = ir.Module()
    fn = ir.Function(mod, ir.FunctionType(ir.FloatType(), [ir.FloatType()]), "k")
    b = ir.IRBuilder(fn.append_basic_block())
    exp = ir.Function(mod, ir.FunctionType(ir.FloatType(), [ir.FloatType()]), "llvm.exp.f32")
    b.ret(b.call(exp, [fn.args[0]]))
    with pytest.raises(ForbiddenIntrinsicError, match="llvm.exp.f32"):
        emit_ptx(mod, "sm_90")
    mod2 = ir.Module()
    ir.Function(mod2, ir.FunctionType(ir.FloatType(), [ir.FloatType()]), "expf")
    with pytest.raises(ForbiddenIntrinsicError, match="expf"):
        check_intrinsics(mod2)


def test_cache_key_depends_on_ir_and_arch():
    k = ptx_cache_key("gpu.func @k() {}", "sm_90")
    assert k == ptx_cache_key("gpu.func @k() {}", "sm_90")
    assert k != ptx_cache_key("gpu.func @k() {}", "sm_80")
    assert k != ptx_cache_key("gpu.func @j() {}", "sm_90")
