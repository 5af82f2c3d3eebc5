"""Tests of the verifier: structure, SSA dominance, per-op rules, all diagnostics at once."""
from __future__ import annotations

import time

import pytest

from irc.dialects.builtin import ModuleOp
from irc.dialects.func import FuncOp, ReturnOp
from irc.ir import (SOURCES, Block, Builder, FileLineColLoc, InsertionPoint, IsolatedFromAbove, Operation,
                    Pure, Region, Terminator, VerifyError, create_op, f32)
from irc.ir.verifier import collect_diagnostics, verify


class VAddOp(Operation):
    name = "testv.add"
    traits = (Pure,)

    @classmethod
    def infer_result_types(cls, operand_types, attributes):
        return [operand_types[0]]

    def verify_(self) -> None:
        if len(self.operands) != 2:
            raise self.error(f"expects 2 operands, got {len(self.operands)}")


class VSourceOp(Operation):
    name = "testv.source"

    @classmethod
    def infer_result_types(cls, operand_types, attributes):
        return [f32]


class VBrOp(Operation):
    """A branch: a terminator with successors."""

    name = "testv.br"
    traits = (Terminator,)


class VRegionOp(Operation):
    """An op with one single-block region that may use values from above."""

    name = "testv.region"


class VIsolatedOp(Operation):
    name = "testv.isolated"
    traits = (IsolatedFromAbove,)


class VBuggyOp(Operation):
    name = "testv.buggy"

    def verify_(self) -> None:
        raise KeyError("oops")


def make_func(n_args: int = 1, loc=None) -> tuple[ModuleOp, FuncOp, Builder]:
    func = FuncOp.create("f", [f32] * n_args, [f32])
    module = ModuleOp.create([func])
    return module, func, Builder(InsertionPoint.at_end(func.body), loc or FileLineColLoc("t.mlir", 1, 1))


def messages(op, **kw) -> list[str]:
    return [d.message for d in collect_diagnostics(op, **kw)]


def test_valid_function_verifies():
    module, func, b = make_func(1)
    x = func.args[0]
    s = b.create(VAddOp, [x, x]).result
    b.create(ReturnOp, [s], result_types=[])
    verify(module)
    assert collect_diagnostics(module) == []


def test_use_before_def_in_same_block():
    module, func, b = make_func(1)
    x = func.args[0]
    a = b.create(VAddOp, [x, x], location=FileLineColLoc("t.mlir", 2, 3))
    c = b.create(VAddOp, [a.result, x], location=FileLineColLoc("t.mlir", 3, 5))
    b.create(ReturnOp, [c.result], result_types=[])
    # move `c` before `a`: its operand no longer dominates it
    c.detach()
    func.body.insert(0, c)
    with pytest.raises(VerifyError) as info:
        verify(module)
    diags = info.value.diagnostics
    assert [d.message for d in diags] == ["'testv.add' op operand #0 does not dominate this use"]
    assert diags[0].location == FileLineColLoc("t.mlir", 3, 5)
    assert diags[0].notes[0].message == "operand defined here"
    assert diags[0].notes[0].location == FileLineColLoc("t.mlir", 2, 3)


def test_rendering_quotes_the_source_line():
    SOURCES.add("dom.mlir", "line one\n  %1 = testv.add %0, %x\n")
    module, func, b = make_func(1)
    x = func.args[0]
    a = b.create(VAddOp, [x, x], location=FileLineColLoc("dom.mlir", 1, 1))
    c = b.create(VAddOp, [a.result, x], location=FileLineColLoc("dom.mlir", 2, 3))
    b.create(ReturnOp, [c.result], result_types=[])
    c.detach()
    func.body.insert(0, c)
    text = str(pytest.raises(VerifyError, verify, module).value)
    assert text.splitlines()[:3] == [
        "dom.mlir:2:3: error: 'testv.add' op operand #0 does not dominate this use",
        "  %1 = testv.add %0, %x",
        "  ^",
    ]
    assert "dom.mlir:1:1: note: operand defined here" in text


def test_all_diagnostics_are_collected():
    module, func, b = make_func(1)
    x = func.args[0]
    b.create(VAddOp, [x], result_types=[f32])
    b.create(VAddOp, [x, x, x], result_types=[f32])
    b.create(VBuggyOp, [], result_types=[])
    b.create(ReturnOp, [x], result_types=[])
    msgs = messages(module)
    assert msgs == ["'testv.add' op expects 2 operands, got 1",
                    "'testv.add' op expects 2 operands, got 3",
                    "internal error verifying 'testv.buggy': KeyError: 'oops'"]


def test_nested_use_of_enclosing_values():
    module, func, b = make_func(1)
    x = func.args[0]
    early = b.create(VSourceOp, []).result
    region_op = b.create(VRegionOp, [], result_types=[], regions=[Region([Block([f32])])])
    inner = Builder(InsertionPoint.at_end(region_op.regions[0].block))
    inner.create(VAddOp, [early, x])                       # ok: defined before the region op
    inner.create(VAddOp, [region_op.regions[0].block.args[0], x])  # ok: own block argument
    late = b.create(VSourceOp, []).result
    bad = inner.create(VAddOp, [late, x])                  # defined after the region op
    b.create(ReturnOp, [early], result_types=[])
    assert messages(module) == ["'testv.add' op operand #0 does not dominate this use"]
    assert collect_diagnostics(module)[0].location is bad.location


def test_result_used_inside_own_region_does_not_dominate():
    module, func, b = make_func(1)
    x = func.args[0]
    region_op = b.create(VRegionOp, [], result_types=[f32], regions=[Region([Block()])])
    Builder(InsertionPoint.at_end(region_op.regions[0].block)).create(VAddOp, [region_op.result, x])
    b.create(ReturnOp, [x], result_types=[])
    assert messages(module) == ["'testv.add' op operand #0 does not dominate this use"]


def test_use_from_a_sibling_region_is_rejected():
    module, func, b = make_func(1)
    x = func.args[0]
    r1 = b.create(VRegionOp, [], result_types=[], regions=[Region([Block()])])
    r2 = b.create(VRegionOp, [], result_types=[], regions=[Region([Block()])])
    v = Builder(InsertionPoint.at_end(r1.regions[0].block)).create(VAddOp, [x, x]).result
    Builder(InsertionPoint.at_end(r2.regions[0].block)).create(VAddOp, [v, x])
    b.create(ReturnOp, [x], result_types=[])
    assert messages(module) == ["'testv.add' op operand #0 does not dominate this use"]


def test_isolated_from_above():
    module, func, b = make_func(1)
    x = func.args[0]
    iso = b.create(VIsolatedOp, [], result_types=[], regions=[Region([Block()])],
                   location=FileLineColLoc("t.mlir", 7, 1))
    Builder(InsertionPoint.at_end(iso.regions[0].block)).create(VAddOp, [x, x])
    b.create(ReturnOp, [x], result_types=[])
    diags = collect_diagnostics(module)
    assert [d.message for d in diags] == ["'testv.add' op using value defined outside the region"] * 2
    assert diags[0].notes[0].message == "required by region isolation constraints"
    assert diags[0].notes[0].location == FileLineColLoc("t.mlir", 7, 1)


def test_unregistered_ops():
    module, func, b = make_func(1)
    x = func.args[0]
    op = b.insert(create_op("foo.bar", [x], [f32], allow_unregistered=True))
    b.create(ReturnOp, [op.result], result_types=[])
    assert messages(module) == ["'foo.bar' op is an unregistered operation "
                                "(allow unregistered ops to accept 'foo.bar')"]
    verify(module, allow_unregistered=True)


def test_terminator_must_be_last():
    module, func, b = make_func(1)
    x = func.args[0]
    b.create(ReturnOp, [x], result_types=[])
    b.create(VAddOp, [x, x])
    assert messages(module) == ["'func.return' op must be the last operation in the parent block"]


def build_cfg(body_builder) -> tuple[ModuleOp, FuncOp, list[Block]]:
    """func with a 4-block diamond: entry -> (left | right) -> exit."""
    module, func, b = make_func(1)
    region = func.regions[0]
    blocks = [func.body] + [region.add_block(Block()) for _ in range(3)]
    body_builder(func.args[0], blocks)
    return module, func, blocks


def at(block) -> Builder:
    return Builder(InsertionPoint.at_end(block))


def test_cfg_dominance():
    def body(x, blocks):
        entry, left, right, exit_ = blocks
        e = at(entry).create(VAddOp, [x, x]).result
        at(entry).create(VBrOp, [], result_types=[], ).successors.extend([left, right])
        lv = at(left).create(VAddOp, [e, x]).result  # ok: entry dominates left
        at(left).create(VBrOp, [], result_types=[]).successors.append(exit_)
        at(right).create(VBrOp, [], result_types=[]).successors.append(exit_)
        at(exit_).create(VAddOp, [e, x])             # ok
        at(exit_).create(VAddOp, [lv, x])            # bad: left does not dominate exit
        at(exit_).create(ReturnOp, [x], result_types=[])

    module, func, blocks = build_cfg(body)
    diags = collect_diagnostics(module)
    assert [d.message for d in diags] == ["'testv.add' op operand #0 does not dominate this use"]
    assert diags[0].notes[0].message == "operand defined here"


def test_cfg_structure_errors():
    def body(x, blocks):
        entry, left, right, exit_ = blocks
        at(entry).create(VBrOp, [], result_types=[]).successors.append(left)
        at(left).create(VAddOp, [x, x])  # no terminator
        # right stays empty (and unreachable)
        foreign = Block()
        at(exit_).create(VBrOp, [], result_types=[]).successors.append(foreign)

    module, func, blocks = build_cfg(body)
    assert messages(module) == [
        "'testv.add' op ends block #1 of region #0 of 'func.func', which needs a terminator",
        "'func.func' op block #2 of region #0 is empty: expected at least a terminator",
        "'testv.br' op successor #0 is not a block of the region that holds this op",
    ]


def test_use_list_and_parent_consistency():
    module, func, b = make_func(1)
    x = func.args[0]
    a = b.create(VAddOp, [x, x])
    b.create(ReturnOp, [a.result], result_types=[])
    a._operands[1] = x
    x.uses.pop()  # drop the use record of a's operand #1
    orphan = VAddOp([x, x], [f32])
    func.body.ops.insert(0, orphan)  # listed but parent not set
    msgs = messages(module)
    assert "'testv.add' op is listed in a block that is not its parent" in msgs
    assert "'testv.add' op operand #1 is missing from its value's use list" in msgs


def test_stale_use_is_reported():
    module, func, b = make_func(2)
    x, y = func.args
    a = b.create(VAddOp, [x, x])
    b.create(ReturnOp, [a.result], result_types=[])
    a._operands[0] = y  # bypass set_operand: x still lists the use, y does not
    msgs = messages(module)
    assert "'testv.add' op operand #0 is missing from its value's use list" in msgs


def test_detached_definition():
    module, func, b = make_func(1)
    x = func.args[0]
    a = b.create(VAddOp, [x, x])
    c = b.create(VAddOp, [a.result, x])
    b.create(ReturnOp, [c.result], result_types=[])
    a.detach()
    assert messages(module) == ["'testv.add' op operand #0 is the result of 'testv.add', "
                                "which is not in a block (erased or detached?)"]


def test_verify_nested_op_with_values_from_enclosing_function():
    module, func, b = make_func(1)
    x = func.args[0]
    region_op = b.create(VRegionOp, [], result_types=[], regions=[Region([Block()])])
    at(region_op.regions[0].block).create(VAddOp, [x, x])
    b.create(ReturnOp, [x], result_types=[])
    verify(region_op)


def test_ten_thousand_ops_verify_quickly():
    module, func, b = make_func(1)
    v = func.args[0]
    for _ in range(10_000):
        v = b.create(VAddOp, [v, func.args[0]]).result
    b.create(ReturnOp, [v], result_types=[])
    verify(module)
    start = time.perf_counter()
    verify(module)
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, elapsed  # ~0.05 s on a laptop; generous bound for slow CI
