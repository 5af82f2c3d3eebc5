"""Complex types and constants through text: `c64`/`c128`, `dense<(re, im)>` (special values,
splats), a complex `scalar.constant` (a 0-d dense) in a fused body: print, parse, print is the
identity, and the values come back bit for bit."""
import numpy as np

from irc.dialects import load_all
from irc.dialects.builtin import DenseAttr, TensorType
from irc.dialects.scalar import attr_scalar_type, attr_value, scalar_attr
from irc.ir.parser import parse_module
from irc.ir.printer import print_op
from irc.ir.types import ScalarType, c64, c128, f32, f64, scalar_from_numpy

load_all()


def test_complex_scalar_types():
    assert scalar_from_numpy("complex64") == c64 and scalar_from_numpy("complex128") == c128
    assert c64.is_complex and not c64.is_float and not c64.is_integer
    assert (c64.component, c128.component, f32.component) == (f32, f64, f32)
    assert (c64.bitwidth, c128.numpy_name) == (64, "complex128")
    assert ScalarType("c128") == c128


def test_dense_complex_values_roundtrip():
    values = np.array([complex(np.nan, np.inf), complex(-np.inf, -0.0), 1e-300 + 2.5j, 0j], "complex128")
    attr = DenseAttr.from_array(values)
    assert str(attr) == "dense<[(nan, inf), (-inf, -0.0), (1.0e-300, 2.5), (0.0, 0.0)]> : tensor<4xc128>"
    text = (f"func.func @f() -> tensor<4xc128> {{\n  %c = tensor.constant {{value = {attr}}} : tensor<4xc128>\n"
            f"  func.return %c : tensor<4xc128>\n}}\n")
    module = parse_module(text)
    again = print_op(module)
    assert print_op(parse_module(again)) == again
    const = next(op for op in module.walk() if op.op_name == "tensor.constant")
    np.testing.assert_array_equal(const.attributes["value"].array.view(np.uint64), values.view(np.uint64))


def test_splat_and_scalar_constants():
    splat = DenseAttr.splat(1 - 2j, TensorType((3, 5), c64))
    assert str(splat) == "dense<(1.0, -2.0)> : tensor<3x5xc64>"
    one = scalar_attr(0.5 - 1j, c64)
    assert attr_scalar_type(one) == c64 and attr_value(one) == np.complex64(0.5 - 1j)
    text = ("func.func @f(%x: tensor<?xc64>) -> tensor<?xc64> {\n"
            "  %r = tensor.fused(%a = %x) : (tensor<?xc64>) -> tensor<?xc64> {\n"
            f"    %k = scalar.constant {{value = {one}}} : c64\n"
            "    %m = scalar.mul %a, %k : c64\n"
            "    scalar.yield %m : c64\n"
            "  }\n"
            "  func.return %r : tensor<?xc64>\n}\n")
    printed = print_op(parse_module(text))
    assert "dense<(0.5, -1.0)> : tensor<c64>" in printed
    assert print_op(parse_module(printed)) == printed
