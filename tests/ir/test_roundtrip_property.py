"""Property: for random well-formed modules, print -> parse -> print is the identity (generic and
custom forms, with and without locations), and the parsed IR has the same types, attributes
and locations as the original."""
from __future__ import annotations

import math
import operator
import string

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irc.dialects.builtin import DenseAttr, MemRefType, ModuleOp, TensorType
from irc.dialects.func import CallOp, FuncOp, ReturnOp
from irc.ir import (ArrayAttr, Block, BoolAttr, DenseArrayAttr, DictAttr, FileLineColLoc, FloatAttr,
                    FunctionType, IntegerAttr, NoneType, ParseError, Region, ScalarType, StringAttr,
                    SymbolRefAttr, TypeAttr, UNKNOWN_LOC, UnitAttr, Value, create_op)
from irc.ir.parser import parse_attribute, parse_module, parse_type
from irc.ir.printer import print_op

SCALARS = [ScalarType(n) for n in ScalarType.NAMES]
FLOATS = [t for t in SCALARS if t.is_float]
INTS = [t for t in SCALARS if not t.is_float]

dims = st.lists(st.one_of(st.none(), st.integers(0, 500)), max_size=3).map(tuple)
devices = st.sampled_from([None, "cuda"])
scalars = st.sampled_from(SCALARS)
tensors = st.builds(TensorType, dims, scalars, devices)


@st.composite
def memrefs(draw):
    shape = draw(dims)
    strides = draw(st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(-8, 64)),
                                                  min_size=len(shape), max_size=len(shape)).map(tuple)))
    # strides=None with an offset prints the contiguous strides explicitly (not the same value)
    offset = 0 if strides is None else draw(st.one_of(st.none(), st.integers(0, 99)))
    return MemRefType(shape, draw(scalars), strides, offset, draw(devices))


simple_types = st.one_of(scalars, tensors, memrefs(), st.just(NoneType()))
types = st.recursive(simple_types, lambda inner: st.builds(
    FunctionType, st.lists(inner, max_size=2).map(tuple), st.lists(inner, max_size=2).map(tuple)),
    max_leaves=4)

# Bare identifiers ([A-Za-z_][A-Za-z0-9_.$]{0,6}) or any text: built from two character sets,
# the same strings as `st.from_regex` gives for that pattern, at a fraction of its cost per draw
# (its regex machinery was a sixth of the module tests' time)
IDENTIFIER_START = string.ascii_letters + "_"
identifiers = st.builds(operator.add, st.sampled_from(IDENTIFIER_START),
                        st.text(alphabet=IDENTIFIER_START + string.digits + ".$", max_size=6))
names = st.one_of(identifiers, st.text(max_size=6))


@st.composite
def dense_attrs(draw):
    element = draw(scalars)
    shape = draw(st.lists(st.integers(0, 3), max_size=3).map(tuple))
    size = int(np.prod(shape)) if shape else 1
    if element.is_bool:
        values = draw(st.lists(st.booleans(), min_size=size, max_size=size))
    elif element.is_float:
        width = {"f16": 16, "f32": 32, "f64": 64}[element.name]
        values = draw(st.lists(st.floats(width=width), min_size=size, max_size=size))
        values = [math.nan if v != v else v for v in values]  # text has one nan: no sign, no payload
    elif element.is_unsigned:
        values = draw(st.lists(st.integers(0, 2 ** element.bitwidth - 1), min_size=size, max_size=size))
    else:
        bits = min(element.bitwidth, 64) - 1
        values = draw(st.lists(st.integers(-(2 ** bits), 2 ** bits - 1), min_size=size, max_size=size))
    if draw(st.booleans()) and size > 1:
        values = [values[0]] * size  # a splat
    array = np.array(values, dtype=element.numpy_name).reshape(shape)
    return DenseAttr.from_array(array, TensorType(shape, element))


leaf_attrs = st.one_of(
    st.builds(IntegerAttr, st.integers(-2 ** 70, 2 ** 70)),
    st.builds(IntegerAttr, st.integers(-1000, 1000), st.sampled_from(INTS)),
    st.builds(FloatAttr, st.floats(), st.sampled_from(FLOATS)),
    st.builds(BoolAttr, st.booleans()),
    st.builds(StringAttr, st.text(max_size=8)),
    st.just(UnitAttr()),
    st.builds(TypeAttr, types),
    st.builds(SymbolRefAttr, names.filter(bool)),
    st.builds(DenseArrayAttr, st.lists(st.integers(-99, 99), max_size=4).map(tuple), st.sampled_from(INTS)),
    dense_attrs(),
)


def _dict(items) -> DictAttr:
    return DictAttr(tuple(sorted(items.items())))


attrs = st.recursive(leaf_attrs, lambda inner: st.one_of(
    st.lists(inner, max_size=3).map(lambda xs: ArrayAttr(tuple(xs))),
    st.dictionaries(names, inner, max_size=3).map(_dict)), max_leaves=6)
locations = st.one_of(st.just(UNKNOWN_LOC), st.builds(FileLineColLoc, st.text(max_size=6),
                                                     st.integers(0, 9999), st.integers(0, 200)))
hints = st.one_of(st.none(),
                  st.sampled_from(["x", "y", "x_1", "arg0", "arg", "0", "a.b", "$v", "bad name", ""]))


@settings(max_examples=300)
@given(types)
def test_types_roundtrip(t):
    assert parse_type(str(t)) == t


@settings(max_examples=300)
@given(attrs)
def test_attributes_roundtrip(a):
    text = str(a)
    back = parse_attribute(text)
    assert back == a
    assert str(back) == text


class ModuleGen:
    """Draws a random module: ops with random operands (values that dominate them), results,
    attributes, regions of several blocks with arguments, successors, hints and locations.
    The module's types and attributes come from 4 to 8 of each drawn once for it: a type or an
    attribute costs hypothesis dozens of draws, and drawing one at every use was most of this
    file's time (the one-by-one tests above draw 300 of each)."""

    def __init__(self, draw):
        self.draw = draw
        self.count = 0
        self.types = st.sampled_from(draw(st.lists(types, min_size=4, max_size=8)))
        self.attr_dicts = st.dictionaries(names, st.sampled_from(draw(st.lists(attrs, min_size=4, max_size=8))),
                                          max_size=3)

    def op(self, visible: list[Value], blocks: list[Block], depth: int):
        draw = self.draw
        self.count += 1
        operands = draw(st.lists(st.sampled_from(visible), max_size=3)) if visible else []
        result_types = draw(st.lists(self.types, max_size=3))
        regions = []
        if depth < 2 and self.count < 25:
            for _ in range(draw(st.integers(0, 2))):
                regions.append(self.region(visible, depth + 1))
        successors = draw(st.lists(st.sampled_from(blocks), max_size=2)) if blocks else []
        op = create_op(f"t.op{draw(st.integers(0, 3))}", operands, result_types, draw(self.attr_dicts), regions,
                       successors, draw(locations), allow_unregistered=True)
        if op.results:
            op.results[0].name_hint = draw(hints)
        return op

    def region(self, visible: list[Value], depth: int) -> Region:
        draw = self.draw
        blocks = [Block(draw(st.lists(self.types, max_size=2))) for _ in range(draw(st.integers(0, 3)))]
        for block in blocks:
            for arg in block.args:
                arg.name_hint = draw(hints)
            scope = visible + list(block.args)
            for _ in range(draw(st.integers(0, 3))):
                op = self.op(scope, blocks[1:], depth)
                block.append(op)
                scope = scope + list(op.results)
        return Region(blocks)

    def func(self, index: int, callees: list[FuncOp]) -> FuncOp:
        draw = self.draw
        ins = draw(st.lists(self.types, max_size=3))
        outs = draw(st.lists(self.types, max_size=2))
        arg_attrs = draw(st.lists(self.attr_dicts, min_size=len(ins), max_size=len(ins)))
        res_attrs = draw(st.lists(self.attr_dicts, min_size=len(outs), max_size=len(outs)))
        func = FuncOp.create(f"f{index}", ins, outs, arg_attrs, res_attrs, draw(locations))
        extra = draw(self.attr_dicts)
        func.attributes.update({k: v for k, v in extra.items() if k not in func.attributes})
        body = func.body
        for arg in body.args:
            arg.name_hint = draw(hints)
        scope = list(body.args)
        for _ in range(draw(st.integers(0, 4))):
            op = self.op(scope, [], 1)
            body.append(op)
            scope += op.results
        if callees and draw(st.booleans()):
            callee = draw(st.sampled_from(callees))
            ft = callee.function_type
            args = [draw(st.sampled_from([v for v in scope if v.type == t]))
                    if any(v.type == t for v in scope) else None for t in ft.inputs]
            if None not in args:
                body.append(CallOp(args, list(ft.results), {"callee": SymbolRefAttr(callee.sym_name)}))
                scope += body.ops[-1].results
        returned = [next((v for v in reversed(scope) if v.type == t), None) for t in outs]
        body.append(ReturnOp([v for v in returned if v is not None]))
        return func


@st.composite
def modules(draw):
    gen = ModuleGen(draw)
    ops, funcs = [], []
    scope: list[Value] = []
    for k in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            funcs.append(gen.func(k, funcs))
            ops.append(funcs[-1])
        else:
            op = gen.op(scope, [], 0)
            ops.append(op)
            scope += op.results
    module = ModuleOp.create(ops, draw(st.one_of(st.just({}), gen.attr_dicts)))
    module.location = draw(locations)
    return module


SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large]


def _same_ir(a, b) -> None:
    ops_a, ops_b = list(a.walk()), list(b.walk())
    assert [op.op_name for op in ops_a] == [op.op_name for op in ops_b]
    for x, y in zip(ops_a, ops_b):
        assert x.attributes.keys() == y.attributes.keys()
        for key, value in x.attributes.items():
            assert value == y.attributes[key], (key, str(value), str(y.attributes[key]))
        assert x.result_types == y.result_types
        assert [v.type for v in x.operands] == [v.type for v in y.operands]
        assert [[len(blk.args) for blk in r.blocks] for r in x.regions] == \
               [[len(blk.args) for blk in r.blocks] for r in y.regions]


@settings(max_examples=100, deadline=None, suppress_health_check=SLOW)
@given(modules(), st.booleans())
def test_modules_roundtrip(module, generic):
    for debuginfo in (False, True):
        text = print_op(module, generic=generic, debuginfo=debuginfo)
        parsed = parse_module(text, allow_unregistered=True)
        assert print_op(parsed, generic=generic, debuginfo=debuginfo) == text
        _same_ir(module, parsed)
        if debuginfo:
            assert [op.location for op in parsed.walk()] == [op.location for op in module.walk()]
    # the custom and generic texts describe the same IR
    other = parse_module(print_op(module, generic=not generic), allow_unregistered=True)
    assert print_op(other, generic=generic) == print_op(module, generic=generic)


@settings(max_examples=40, deadline=None, suppress_health_check=SLOW)
@given(modules(), st.data())
def test_corrupted_text_gives_parse_errors_only(module, data):
    text = print_op(module, debuginfo=data.draw(st.booleans()))
    cut = data.draw(st.integers(0, len(text)))
    junk = data.draw(st.sampled_from(["", "%", "^", "@", '"', "(", ")", "{", "}", "<", ">", ":", ",", "=",
                                      "-",
                                      "x", "?", "0", "1.5", "loc(", "%0", "^bb1", "tensor<", "// -----\n"]))
    drop = data.draw(st.integers(0, 3))
    for variant in (text[:cut], text[:cut] + junk + text[cut + drop:]):
        try:
            parse_module(variant, allow_unregistered=True)
        except ParseError:
            pass


def test_float_attribute_bits_survive():
    for value in [0.1, 1 / 3, 2.0 ** -1074, -0.0, 1e300, math.pi]:
        assert parse_attribute(str(FloatAttr(value))).value == value
