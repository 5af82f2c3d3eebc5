"""Tests of the textual IR: every construct prints, parses back, and prints the same again;
malformed text gives a located `ParseError` and nothing else."""
from __future__ import annotations

import math
import random
import re

import numpy as np
import pytest

from irc.dialects.builtin import DenseAttr, MemRefType, ModuleOp, TensorType
from irc.dialects.func import CallOp, FuncOp, ReturnOp
from irc.ir import (SOURCES, ArrayAttr, Block, BoolAttr, DenseArrayAttr, DictAttr, FileLineColLoc,
                    FloatAttr, FunctionType, IntegerAttr, NoneType, Operation, ParseError, Region, StringAttr,
                    SymbolRefAttr, TypeAttr, UNKNOWN_LOC, UnitAttr, create_op, f16, f32, f64, i1, i32, i64,
                    index)
from irc.ir.parser import parse_attribute, parse_module, parse_type, split_input_file
from irc.ir.printer import Printer, print_op

T = TensorType((None,), f32)


# ---------------------------------------------------------------------------- test ops
class ShortAddOp(Operation):
    """An op in the short form, as dialects declare them."""

    name = "ptest.add"
    assembly = "short"


class ShortConstOp(Operation):
    name = "ptest.const"
    assembly = "short"


class IsolatedOp(Operation):
    name = "ptest.isolated"
    from irc.ir import IsolatedFromAbove
    traits = (IsolatedFromAbove,)


class ScaleOp(Operation):
    """A custom form added by a 'dialect': `ptest.scale %x by 2.0 : t`."""

    name = "ptest.scale"

    def print_custom(self, p: Printer) -> None:
        p.write(" ", p.name(self.operand(0)), " by ", str(self.attributes["factor"].value),
                " : ", p.type(self.operand(0).type))

    @classmethod
    def parse_custom(cls, parser) -> "ScaleOp":
        ref = parser.parse_operand_refs()
        parser.expect("by")
        factor = parser.parse_float_literal()
        parser.expect(":")
        t = parser.parse_type()
        return parser.create(cls, parser.resolve_operands(ref, [t]), [t], {"factor": FloatAttr(factor)})


def roundtrip(text: str, generic: bool = False, debuginfo: bool = False, **kw) -> str:
    """Parse, print; parse the print and check that it prints the same again."""
    first = print_op(parse_module(text, **kw), generic=generic, debuginfo=debuginfo)
    second = print_op(parse_module(first, **kw), generic=generic, debuginfo=debuginfo)
    assert first == second
    return first


def parse_error(text: str, **kw) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_module(text, "test.mlir", **kw)
    return info.value


# ---------------------------------------------------------------------------- types
@pytest.mark.parametrize("text", [
    "f16", "f32", "f64", "i1", "i8", "i16", "i32", "i64", "index", "none",
    "(f32, i64) -> f32", "() -> ()", "(f32) -> (f32, i1)", "(f32) -> ((f32) -> f32)",
    "tensor<400x?xf32>", "tensor<f32>", 'tensor<?xf32, "cuda">', "tensor<0xi1>", "tensor<1x1x1xf64>",
    "memref<?x?xf32>", "memref<4x4xf32, strided<[4, 1]>>",
    'memref<?x?xf32, strided<[?, 1], offset: ?>, "cuda">',
    "memref<8xf32, strided<[2], offset: 3>>", 'memref<f32, "cuda">',
])
def test_type_roundtrip(text):
    t = parse_type(text)
    assert str(t) == text
    assert parse_type(str(t)) == t


def test_type_values():
    assert parse_type("tensor<400x?xf32>") == TensorType((400, None), f32)
    assert parse_type("tensor<f32>") == TensorType((), f32)
    assert parse_type('tensor<?xf32, "cuda">') == TensorType((None,), f32, "cuda")
    assert parse_type('memref<?x?xf32, strided<[?, 1], offset: ?>, "cuda">') == \
        MemRefType((None, None), f32, (None, 1), None, "cuda")
    assert parse_type("memref<4x4xf32>") == MemRefType((4, 4), f32)
    assert parse_type("(f32) -> i64") == FunctionType((f32,), (i64,))
    assert parse_type("none") == NoneType()
    for t in [TensorType((0,), f32), MemRefType((3, None), i32, (None, 1), 5), MemRefType((2,), f64, (-1,))]:
        assert parse_type(str(t)) == t


@pytest.mark.parametrize("text, message, col", [
    ("tensr<f32>", "unknown type 'tensr'", 1),
    ("tensor<?xf32", "expected '>'", 13),
    ("tensor<?x?>", "expected type", 10),
    ("tensor<4xtensor<f32>>", "expected a scalar element type", 10),
    ("(f32", "expected ')'", 5),
    ("(f32) f32", "expected '->'", 7),
    ("memref<?xf32, strided<[1, 1]>>", "expected 1 strides, got 2", 29),
    ("f32 f32", "unexpected text after the type", 5),
])
def test_type_errors(text, message, col):
    with pytest.raises(ParseError) as info:
        parse_type(text)
    diag = info.value.diagnostics[0]
    assert message in diag.message
    assert (diag.location.line, diag.location.col) == (1, col)


# ---------------------------------------------------------------------------- attributes
ATTRIBUTES = [
    IntegerAttr(42), IntegerAttr(42, i32), IntegerAttr(-7), IntegerAttr(1, i1), IntegerAttr(3, index),
    IntegerAttr(2 ** 70), FloatAttr(1.5), FloatAttr(1.5, f32), FloatAttr(-0.0), FloatAttr(1e-5),
    FloatAttr(1.7976931348623157e308), FloatAttr(5e-324), FloatAttr(0.1, f16), FloatAttr(math.nan),
    FloatAttr(math.inf), FloatAttr(-math.inf, f32), FloatAttr(123456789.0), FloatAttr(1e22),
    BoolAttr(True), BoolAttr(False), StringAttr(""), StringAttr('a"b\\c\nd\te // not a comment'),
    StringAttr("ünïcode ✓"), UnitAttr(), TypeAttr(f32), TypeAttr(TensorType((2, None), i64, "cuda")),
    TypeAttr(FunctionType((f32,), (f32, i1))), SymbolRefAttr("f"), SymbolRefAttr("a b"),
    SymbolRefAttr("main.1"), ArrayAttr(()), ArrayAttr((IntegerAttr(1), ArrayAttr((StringAttr("x"),)))),
    DictAttr(()),
    DictAttr((("a", IntegerAttr(1)), ("b c", UnitAttr()), ("z", DictAttr((("q", BoolAttr(True)),))))),
    DenseArrayAttr((1, -2, 3)), DenseArrayAttr((), i32), DenseArrayAttr((0,), i1),
    DenseAttr.from_array(np.array([[1.0, 2.5]], dtype=np.float32)),
    DenseAttr.from_array(np.zeros((4,), dtype=np.float32)),
    DenseAttr.from_array(np.array(3.0)), DenseAttr.from_array(np.array([True, False])),
    DenseAttr.from_array(np.array([1, -2, 3], dtype=np.int64)),
    DenseAttr.from_array(np.array([np.nan, np.inf, -np.inf], dtype=np.float64)),
    DenseAttr.from_array(np.zeros((2, 0), dtype=np.float32)),
    DenseAttr.from_array(np.array([[7]], dtype=np.int32)),
]


@pytest.mark.parametrize("attr", ATTRIBUTES, ids=lambda a: str(a)[:40])
def test_attribute_roundtrip(attr):
    text = str(attr)
    back = parse_attribute(text)
    assert back == attr, (text, back)
    assert str(back) == text


@pytest.mark.parametrize("text, expected", [
    ("42", IntegerAttr(42)), ("42 : i32", IntegerAttr(42, i32)), ("-1", IntegerAttr(-1)),
    ("1.5", FloatAttr(1.5)), ("1.5 : f32", FloatAttr(1.5, f32)), ("2 : f32", FloatAttr(2.0, f32)),
    ("1.0e-3", FloatAttr(1e-3)), ("1.5E+2", FloatAttr(150.0)), ("-inf", FloatAttr(-math.inf)),
    ("true", BoolAttr(True)), ('"\\41\\n"', StringAttr("A\n")), ("unit", UnitAttr()),
    ("@f", SymbolRefAttr("f")), ('@"x y"', SymbolRefAttr("x y")),
    ("{b = 1, a}", DictAttr((("a", UnitAttr()), ("b", IntegerAttr(1))))),
    ("array<i64: 1, 2>", DenseArrayAttr((1, 2))), ("array<i64>", DenseArrayAttr(())),
    ("dense<1.0> : tensor<2xf32>", DenseAttr.from_array(np.ones(2, np.float32))),
    ("tensor<?xf32>", TypeAttr(T)),
])
def test_attribute_values(text, expected):
    assert parse_attribute(text) == expected


@pytest.mark.parametrize("text, message", [
    ("{a = }", "expected attribute value"),
    ("{a = 1", "expected '}' or ','"),
    ("{a = 1, a = 2}", "duplicate key 'a'"),
    ("[1, 2", "expected ']' or ','"),
    ("array<i64: 1,>", "expected integer"),
    ("dense<[1.0, 2.0]> : tensor<3xf32>", "does not match tensor<3xf32>"),
    ("dense<[[1.0], [2.0, 3.0]]> : tensor<2x1xf32>", "invalid 'dense'"),
    ("dense<1.0> : f32", "expected a tensor type"),
    ('"abc', "expected '\"' in string literal"),
    ("$", "unexpected character '$'"),
    ("-", "expected number"),
    ("1.5 : bogus", "unknown type 'bogus'"),
])
def test_attribute_errors(text, message):
    with pytest.raises(ParseError, match=re.escape(message)):
        parse_attribute(text)


# ---------------------------------------------------------------------------- modules and functions
FUNC = """\
module {
  func.func @f(%arg0: tensor<?xf32> {irc.shared = "w"}, %arg1: f32) \
-> (tensor<?xf32> {irc.update = 2 : i64}, f32) attributes {irc.note = "n"} {
    %0 = "tensor.exp"(%arg0) : (tensor<?xf32>) -> tensor<?xf32>
    %1 = func.call @g(%0) : (tensor<?xf32>) -> tensor<?xf32>
    func.return %1, %arg1 : tensor<?xf32>, f32
  }
  func.func @g(%x: tensor<?xf32>) -> tensor<?xf32> {
    func.return %x : tensor<?xf32>
  }
  func.func @h() {
    func.return
  }
  func.func @decl(f32, i64) -> f32
}
"""


def test_func_custom_form():
    module = parse_module(FUNC, allow_unregistered=True)
    f, g, h, decl = module.body.ops
    assert isinstance(f, FuncOp) and f.sym_name == "f"
    assert f.function_type == FunctionType((T, f32), (T, f32))
    assert f.arg_attrs(0) == {"irc.shared": StringAttr("w")} and f.arg_attrs(1) == {}
    assert f.res_attrs(0) == {"irc.update": IntegerAttr(2)}
    assert f.attributes["irc.note"] == StringAttr("n")
    exp, call, ret = f.body.ops
    assert isinstance(call, CallOp) and call.callee == "g" and call.operands == (exp.result,)
    assert isinstance(ret, ReturnOp) and ret.operands == (call.result, f.args[1])
    assert g.args[0].name_hint == "x" and not h.function_type.results
    assert not decl.regions[0].blocks and decl.function_type == FunctionType((f32, i64), (f32,))
    text = roundtrip(FUNC, allow_unregistered=True)
    assert "func.func @g(%x: tensor<?xf32>) -> tensor<?xf32> {" in text
    assert "    func.return\n" in text
    assert "func.func @decl(f32, i64) -> f32\n" in text
    assert "-> (tensor<?xf32> {irc.update = 2}, f32) attributes {irc.note = \"n\"} {" in text


def test_func_built_in_python_prints_like_mlir():
    func = FuncOp.create("main", [T, f32], [T], arg_attrs=[{}, {"irc.shared": StringAttr("b")}])
    exp = create_op("test.exp", [func.args[0]], [T], allow_unregistered=True)
    func.body.append(exp)
    func.body.append(ReturnOp([exp.result]))
    text = print_op(ModuleOp.create([func]))
    assert text == (
        "module {\n"
        '  func.func @main(%arg0: tensor<?xf32>, %arg1: f32 {irc.shared = "b"}) -> tensor<?xf32> {\n'
        '    %0 = "test.exp"(%arg0) : (tensor<?xf32>) -> tensor<?xf32>\n'
        "    func.return %0 : tensor<?xf32>\n"
        "  }\n"
        "}\n")
    assert roundtrip(text, allow_unregistered=True) == text


def test_generic_form_everywhere():
    text = roundtrip(FUNC, generic=True, allow_unregistered=True)
    assert text.startswith('"builtin.module"() ({\n  "func.func"() ({\n'
                           '  ^bb0(%arg0: tensor<?xf32>, %arg1: f32):\n')
    assert '"func.call"(%0) {callee = @g} : (tensor<?xf32>) -> tensor<?xf32>' in text
    assert '"func.return"() : () -> ()' in text
    assert text.endswith("}) : () -> ()\n")
    # the generic text parses to the same IR as the custom one
    assert print_op(parse_module(text, allow_unregistered=True)) == roundtrip(FUNC, allow_unregistered=True)


def test_module_forms():
    assert roundtrip("module {\n}\n") == "module {\n}\n"
    assert roundtrip("") == "module {\n}\n"
    text = 'module @m attributes {a = 1, b} {\n  "x.y"() : () -> ()\n}\n'
    module = parse_module(text, allow_unregistered=True)
    assert module.attributes == {"sym_name": StringAttr("m"), "a": IntegerAttr(1), "b": UnitAttr()}
    assert roundtrip(text, allow_unregistered=True) == text
    assert roundtrip('builtin.module {\n}') == "module {\n}\n"


def test_top_level_ops_are_wrapped_in_a_module():
    module = parse_module('"x.a"() : () -> ()\n"x.b"() : () -> ()\n', allow_unregistered=True)
    assert isinstance(module, ModuleOp)
    assert [op.op_name for op in module.body.ops] == ["x.a", "x.b"]
    module = parse_module("module {\n}\nmodule {\n}\n")
    assert [op.op_name for op in module.body.ops] == ["builtin.module", "builtin.module"]
    explicit = parse_module("// leading comment\nmodule {\n}\n")
    assert isinstance(explicit, ModuleOp) and not explicit.body.ops


# ---------------------------------------------------------------------------- ops: generic and short forms
def test_short_form():
    text = """\
func.func @f(%a: tensor<?xf32>, %b: f32) -> tensor<?xf32> {
  %s = ptest.add %a, %a : tensor<?xf32>
  %t = ptest.add %s, %b {fast} : (tensor<?xf32>, f32) -> tensor<?xf32>
  %c = ptest.const {value = 1.0 : f32} : f32
  %n:2 = ptest.const : () -> (f32, f32)
  ptest.add %c, %b : f32
  func.return %t : tensor<?xf32>
}
"""
    module = parse_module(text)
    s, t, c, n, sink, _ = module.body.ops[0].body.ops
    assert isinstance(s, ShortAddOp) and s.result_types == [T] and s.result.name_hint == "s"
    assert t.attributes == {"fast": UnitAttr()} and t.operand(1).type == f32
    assert c.result_types == [f32] and len(n.results) == 2 and not sink.results
    out = roundtrip(text)
    assert "  %s = ptest.add %a, %a : tensor<?xf32>\n" in out
    assert "  %c = ptest.const {value = 1.0 : f32} : f32\n" in out
    assert "  %n:2 = ptest.const : f32\n" in out
    assert "  ptest.add %c, %b : f32\n" in out
    assert "ptest.add\"(%a, %a)" in print_op(module, generic=True)


def test_short_op_with_region_prints_generically():
    op = ShortAddOp([], [f32], {}, [Region([Block([f32])])])
    text = print_op(ModuleOp.create([op]))
    assert '"ptest.add"() ({\n  ^bb0(%arg0: f32):\n  }) : () -> f32' in text
    assert roundtrip(text) == text


def test_custom_form_from_a_dialect():
    text = "func.func @f(%x: f32) -> f32 {\n  %y = ptest.scale %x by 2.5 : f32\n  func.return %y : f32\n}\n"
    module = parse_module(text)
    scale = module.body.ops[0].body.ops[0]
    assert isinstance(scale, ScaleOp) and scale.attributes["factor"] == FloatAttr(2.5)
    assert roundtrip(text) == "module {\n  " + text.replace("\n", "\n  ").rstrip() + "\n}\n"
    assert '"ptest.scale"(%x) {factor = 2.5} : (f32) -> f32' in print_op(module, generic=True)


def test_multi_result_ops():
    text = """\
%0:3 = "x.three"() : () -> (f32, i64, tensor<?xf32>)
%p, %q:2 = "x.three"() : () -> (f32, i64, tensor<?xf32>)
"x.use"(%0#0, %0#2, %p, %q#1, %q) : (f32, tensor<?xf32>, f32, tensor<?xf32>, i64) -> ()
"""
    module = parse_module(text, allow_unregistered=True)
    a, b, use = module.body.ops
    assert use.operands == (a.results[0], a.results[2], b.results[0], b.results[2], b.results[1])
    out = roundtrip(text, allow_unregistered=True)
    assert '  %0:3 = "x.three"() : () -> (f32, i64, tensor<?xf32>)\n' in out
    assert '  %p:3 = "x.three"()' in out
    assert '"x.use"(%0#0, %0#2, %p#0, %p#2, %p#1)' in out


def test_regions_and_block_arguments():
    text = """\
%r = "x.loop"() ({
^bb0(%i: index, %acc: f32):
  %n = "x.inner"(%acc) ({
    "x.yield"(%acc, %i) : (f32, index) -> ()
  }, {
  }) {k = 1} : (f32) -> f32
  "x.yield"(%n) : (f32) -> ()
}, {
^bb0:
}) : () -> f32
"""
    module = parse_module(text, allow_unregistered=True)
    loop = module.body.ops[0]
    assert len(loop.regions) == 2 and not loop.regions[1].blocks[0].ops
    inner = loop.regions[0].blocks[0].ops[0]
    assert len(inner.regions[1].blocks) == 0
    assert inner.regions[0].blocks[0].ops[0].operands == tuple(loop.regions[0].blocks[0].args[::-1])
    assert roundtrip(text, allow_unregistered=True) == "module {\n" + "".join(
        "  " + line + "\n" if line else "\n" for line in text.rstrip("\n").split("\n")) + "}\n"


CFG = """\
func.func @cfg(%arg0: i1, %arg1: f32) -> f32 {
  "x.cond_br"(%arg0)[^bb1, ^bb2] : (i1) -> ()
^bb1:
  "x.br"(%late)[^bb3] : (f32) -> ()
^bb2:
  %late = "x.neg"(%arg1) : (f32) -> f32
  "x.br"(%late)[^bb3] : (f32) -> ()
^bb3(%v: f32):
  func.return %v : f32
}
"""


def test_multi_block_regions_with_forward_references():
    module = parse_module(CFG, allow_unregistered=True)
    func = module.body.ops[0]
    b0, b1, b2, b3 = func.regions[0].blocks
    assert b0.ops[0].successors == [b1, b2]
    late = b2.ops[0].result
    assert b1.ops[0].operands == (late,) and b1.ops[0].successors == [b3]
    assert [u.owner for u in late.uses] == [b1.ops[0], b2.ops[1]]
    assert b3.args[0].type == f32 and b3.ops[0].operands == (b3.args[0],)
    out = roundtrip(CFG, allow_unregistered=True)
    assert '  "x.br"(%late)[^bb3] : (f32) -> ()\n  ^bb2:\n' in out


def test_branch_to_entry_block_keeps_its_label():
    text = 'func.func @loop() {\n  "x.br"()[^bb0] : () -> ()\n}\n'
    with pytest.raises(ParseError, match="undefined block '\\^bb0'"):
        parse_module(text, allow_unregistered=True)
    body = Block()
    op = create_op("x.br", successors=[body], allow_unregistered=True)
    body.append(op)
    outer = create_op("x.region", regions=[Region([body])], allow_unregistered=True)
    text = print_op(ModuleOp.create([outer]))
    assert "^bb0:" in text
    assert roundtrip(text, allow_unregistered=True) == text


def test_isolated_regions_restart_names_and_hide_outer_values():
    text = """\
%0 = "x.a"() : () -> f32
"ptest.isolated"() ({
  %0 = "x.b"() : () -> f32
}) : () -> ()
"""
    assert roundtrip(text, allow_unregistered=True)
    bad = '%0 = "x.a"() : () -> f32\n"ptest.isolated"() ({\n  "x.b"(%0) : (f32) -> ()\n}) : () -> ()\n'
    err = parse_error(bad, allow_unregistered=True)
    assert "use of undeclared SSA value name '%0'" in str(err)
    assert (err.diagnostics[0].location.line, err.diagnostics[0].location.col) == (3, 9)
    # a non-isolated region sees the values defined around it
    ok = '%0 = "x.a"() : () -> f32\n"x.r"() ({\n  "x.b"(%0) : (f32) -> ()\n}) : () -> ()\n'
    assert roundtrip(ok, allow_unregistered=True)


# ---------------------------------------------------------------------------- names
def test_ssa_names_are_deterministic():
    func = FuncOp.create("f", [f32, f32], [])
    a, b = func.args
    b.name_hint = "x"
    ops = []
    for hint in ["x", "x", None, "y z", "arg0", "0", "x_1", None]:
        op = create_op("x.op", [a], [f32], allow_unregistered=True)
        op.results[0].name_hint = hint
        func.body.append(op)
        ops.append(op)
    func.body.append(ReturnOp([]))
    text = print_op(func)
    lines = [line.split(" = ")[0].strip() for line in text.split("\n")[1:-2]]
    assert text.startswith("func.func @f(%arg0: f32, %x: f32) {")
    assert lines == ["%x_1", "%x_2", "%0", "%1", "%2", "%3", "%x_1_1", "%4"]
    module = ModuleOp.create([func])
    assert roundtrip(print_op(module), allow_unregistered=True) == print_op(module)


def test_printing_a_nested_op_alone():
    module = parse_module(CFG, allow_unregistered=True)
    inner = module.body.ops[0].regions[0].blocks[2].ops[0]
    assert print_op(inner) == '%late = "x.neg"(%<<UNKNOWN SSA VALUE>>) : (f32) -> f32'
    assert str(module.body.ops[0]).startswith("func.func @cfg(")


# ---------------------------------------------------------------------------- locations
def test_locations_default_to_the_text_position():
    text = 'module {\n  func.func @f() {\n    %0 = "x.a"() : () -> f32\n    func.return\n  }\n}\n'
    module = parse_module(text, "file.mlir", allow_unregistered=True)
    func = module.body.ops[0]
    assert module.location == FileLineColLoc("file.mlir", 1, 1)
    assert func.location == FileLineColLoc("file.mlir", 2, 3)
    assert func.body.ops[0].location == FileLineColLoc("file.mlir", 3, 5)
    assert func.body.ops[1].location == FileLineColLoc("file.mlir", 4, 5)
    assert SOURCES.line("file.mlir", 3) == '    %0 = "x.a"() : () -> f32'


def test_debuginfo_roundtrip():
    text = ('"x.a"() : () -> () loc("model.py":12:4)\n'
            '%0 = "x.b"() : () -> f32 loc(unknown)\n'
            'func.func @f() {\n  func.return loc("a \\"b\\".py":1:2)\n} loc("f.py":3:1)\n')
    module = parse_module(text, "t.mlir", allow_unregistered=True)
    a, b, f = module.body.ops
    assert a.location == FileLineColLoc("model.py", 12, 4)
    assert b.location == UNKNOWN_LOC
    assert f.location == FileLineColLoc("f.py", 3, 1)
    assert f.body.ops[0].location == FileLineColLoc('a "b".py', 1, 2)
    out = roundtrip(text, debuginfo=True, allow_unregistered=True)
    assert out.endswith('} loc("f.py":3:1)\n} loc("<stdin>":1:1)\n')
    assert 'func.return loc("a \\"b\\".py":1:2)' in out
    generic = roundtrip(text, generic=True, debuginfo=True, allow_unregistered=True)
    assert '"x.a"() : () -> () loc("model.py":12:4)' in generic


# ---------------------------------------------------------------------------- split-input-file
def test_split_input_file_keeps_line_numbers():
    text = 'module {\n}\n// -----\n\n"x.a"() : () -> ()\n   // -----   \n%0 = "bad.op"( : () -> ()\n'
    chunks = split_input_file(text)
    assert [line for _, line in chunks] == [1, 4, 7]
    assert parse_module(chunks[0][0]).body.ops == []
    assert parse_module(chunks[1][0], allow_unregistered=True).body.ops[0].location.line == 5
    with pytest.raises(ParseError) as info:
        parse_module(chunks[2][0], "split.mlir", allow_unregistered=True)
    assert str(info.value).startswith("split.mlir:7:16: error: expected ')'")
    assert split_input_file("x") == [("x", 1)]


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize("text, message, line, col", [
    ('"x.a"(%y) : (f32) -> ()', "use of undeclared SSA value name '%y'", 1, 7),
    ("nope.op %a : f32", "unknown op 'nope.op'", 1, 1),
    ('%0 = "x.a"() : () -> ()', "expected 1 result types, got 0", 1, 16),
    ('%0:2 = "x.a"() : () -> f32', "expected 2 result types, got 1", 1, 18),
    ('%0 = "x.a"() : () -> f32\n%0 = "x.a"() : () -> f32', "redefinition of SSA value '%0'", 2, 1),
    ('%0 = "x.a"() : () -> f32\n"x.b"(%0) : (i32) -> ()', "use of value '%0' expects different type", 2, 7),
    ('%0 = "x.a"() : () -> f32\n"x.b"(%0#1) : (f32) -> ()', "invalid result number", 2, 7),
    ('"x.a"(%0, %0) : (f32, i32) -> ()\n%0 = "x.b"() : () -> f32', "expects different type", 1, 11),
    ('"x.a"(%0) : (i32) -> ()\n%0 = "x.b"() : () -> f32', "has type 'f32' but it was used as 'i32'", 1, 7),
    ('"x.a"(%0 : (f32) -> ()', "expected ')' or ','", 1, 10),
    ('"x.a"() : (f32) -> ()', "expected 0 operand types, got 1", 1, 11),
    ('"x.a"() : f32', "expected a function type", 1, 11),
    ('"x.a"()[^bb9] : () -> ()', "reference to an undefined block '^bb9'", 1, 9),
    ('"x.a"() ({\n^bb0:\n^bb0:\n}) : () -> ()', "redefinition of block '^bb0'", 3, 1),
    ('"x.a"() ({\n  "x.b"() : () -> ()\n : () -> ()', "expected operation name", 3, 2),
    ("func.func @f(%a: f32) -> f32 {\n  func.return %a : f32, f32\n}", "expected 1 operand types, got 2",
     2, 15),
    ("func.func @f(f32) {\n}", "needs named arguments", 1, 19),
    ("%r = func.call @g(%a) : (f32) -> f32", "use of undeclared SSA value name '%a'", 1, 19),
    ("%0 = func.call @g() : () -> (f32, f32)", "operation defines 2 results but was provided 1 to bind",
     1, 1),
    ('"x.a"() {a = 1} : () -> () loc("f":1)', "expected ':'", 1, 37),
    ("}", "unexpected '}'", 1, 1),
    ("%0 = 12", "expected operation name", 1, 6),
    ('"x.a"() : () -> () $', "unexpected character '$'", 1, 20),
    ('"x.a"() {s = "abc} : () -> ()', "expected '\"' in string literal", 1, 14),
    ("module {", "expected '}' to end the region", 1, 9),
])
def test_errors_are_located(text, message, line, col):
    err = parse_error(text, allow_unregistered=True)
    diag = err.diagnostics[0]
    assert message in diag.message, str(err)
    if line is not None:
        assert (diag.location.line, diag.location.col) == (line, col), str(err)
    assert str(err).startswith("test.mlir:")


def test_unregistered_ops_need_permission():
    text = '%0 = "x.a"() : () -> f32'
    with pytest.raises(ParseError, match="unknown op 'x.a'"):
        parse_module(text)
    op = parse_module(text, allow_unregistered=True).body.ops[0]
    assert type(op) is Operation and op.op_name == "x.a"


def test_error_quotes_the_source_line():
    err = parse_error('module {\n  "x.a"(%nope) : (f32) -> ()\n}\n', allow_unregistered=True)
    assert str(err) == ("test.mlir:2:9: error: use of undeclared SSA value name '%nope'\n"
                        '  "x.a"(%nope) : (f32) -> ()\n'
                        "        ^")


def test_comments_are_ignored():
    text = ('// a comment\nmodule { // trailing\n  // inside\n'
            '  "x.a"() {s = "// kept"} : () -> () // after\n}\n// end')
    module = parse_module(text, allow_unregistered=True)
    assert module.body.ops[0].attributes["s"] == StringAttr("// kept")


def test_return_before_the_next_op_has_no_operands():
    text = 'func.func @f() {\n  func.return\n  %0 = "x.a"() : () -> f32\n}\n'
    func = parse_module(text, allow_unregistered=True).body.ops[0]
    assert [op.op_name for op in func.body.ops] == ["func.return", "x.a"]


def test_truncated_text_gives_parse_errors_only():
    """Random truncations (and small corruptions) of valid text never raise anything else."""
    texts = [roundtrip(FUNC, allow_unregistered=True), roundtrip(FUNC, generic=True, debuginfo=True,
                                                                  allow_unregistered=True),
             roundtrip(CFG, allow_unregistered=True),
             print_op(ModuleOp.create([create_op("x.c", [], [], {"d": a for a in ATTRIBUTES[-8:-7]} |
                                                 {f"a{k}": a for k, a in enumerate(ATTRIBUTES)},
                                                 allow_unregistered=True)]))]
    rng = random.Random(1234)
    for text in texts:
        cuts = set(rng.sample(range(len(text)), min(len(text), 300))) | {0, 1, len(text) - 2}
        for cut in sorted(cuts):
            for variant in (text[:cut], text[:cut] + text[cut + 1:],
                            text[:cut] + rng.choice("%^@\"(){}[]<>:,=-x?#0") + text[cut:]):
                try:
                    parse_module(variant, allow_unregistered=True)
                except ParseError:
                    pass
