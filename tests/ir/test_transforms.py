"""Tests of the generic transforms: dead-code elimination and common-subexpression elimination."""
from __future__ import annotations

import time

from irc.dialects.builtin import ModuleOp
from irc.dialects.func import FuncOp, ReturnOp
from irc.ir import (Block, Builder, Commutative, InsertionPoint, IntegerAttr, IsolatedFromAbove, Operation,
                    Pure, Region, Terminator, f32, i64)
from irc.ir.transforms import eliminate_common_subexpressions, eliminate_dead_code, is_trivially_dead
from irc.ir.verifier import verify


class _Typed(Operation):
    @classmethod
    def infer_result_types(cls, operand_types, attributes):
        return [operand_types[0]] if operand_types else [f32]


class TAddOp(_Typed):
    name = "testt.add"
    traits = (Pure, Commutative)


class TSubOp(_Typed):
    name = "testt.sub"
    traits = (Pure,)


class TSourceOp(_Typed):
    """Has side effects: never erased, never merged."""

    name = "testt.source"


class TRegionOp(_Typed):
    name = "testt.region"


class TIsolatedOp(_Typed):
    name = "testt.isolated"
    traits = (IsolatedFromAbove,)


class TBrOp(Operation):
    name = "testt.br"
    traits = (Terminator,)


def make_func(n_args=2):
    func = FuncOp.create("f", [f32] * n_args, [f32])
    module = ModuleOp.create([func])
    return module, func, Builder(InsertionPoint.at_end(func.body))


def at(block):
    return Builder(InsertionPoint.at_end(block))


def names(block):
    return [op.op_name for op in block.ops]


# ---------------------------------------------------------------------------- DCE
def test_dce_erases_dead_chains_only():
    module, func, b = make_func()
    x, y = func.args
    dead = b.create(TAddOp, [x, y]).result
    dead = b.create(TSubOp, [dead, y]).result
    b.create(TSubOp, [dead, dead])
    b.create(TSourceOp, [x])                        # side effect: stays
    live = b.create(TAddOp, [x, x]).result
    b.create(ReturnOp, [live], result_types=[])
    assert eliminate_dead_code(module) == 3
    assert names(func.body) == ["testt.source", "testt.add", "func.return"]
    verify(module)
    assert eliminate_dead_code(module) == 0


def test_dce_keeps_regions_with_side_effects():
    module, func, b = make_func()
    x, _ = func.args

    class PureRegionOp(_Typed):
        name = "testt.pure_region"
        traits = (Pure,)

    keep = b.create(PureRegionOp, [x], regions=[Region([Block()])])
    at(keep.regions[0].block).create(TSourceOp, [x])
    drop = b.create(PureRegionOp, [x], regions=[Region([Block()])])
    at(drop.regions[0].block).create(TAddOp, [x, x])
    b.create(ReturnOp, [x], result_types=[])
    assert not is_trivially_dead(keep) and is_trivially_dead(drop)
    assert eliminate_dead_code(module) == 2  # the dead add inside `drop`, then `drop`
    assert names(func.body) == ["testt.pure_region", "func.return"]
    assert func.body.ops[0] is keep


def test_dce_across_blocks_in_any_order():
    module, func, b = make_func()
    x, _ = func.args
    region = func.regions[0]
    second = region.add_block(Block())
    v = b.create(TAddOp, [x, x]).result
    b.create(TBrOp, [], result_types=[]).successors.append(second)
    at(second).create(TSubOp, [v, v])   # dead, and the only user of v
    at(second).create(ReturnOp, [x], result_types=[])
    assert eliminate_dead_code(module) == 2
    assert names(func.body) == ["testt.br"]


# ---------------------------------------------------------------------------- CSE
def test_cse_same_block_and_commutative():
    module, func, b = make_func()
    x, y = func.args
    a1 = b.create(TAddOp, [x, y]).result
    a2 = b.create(TAddOp, [y, x]).result             # commutative: same as a1
    s1 = b.create(TSubOp, [x, y]).result
    s2 = b.create(TSubOp, [y, x]).result             # not commutative: different
    s3 = b.create(TSubOp, [x, y], {"tag": IntegerAttr(1)}).result   # different attributes
    e1 = b.create(TSourceOp, [x]).result
    e2 = b.create(TSourceOp, [x]).result             # side effects: never merged
    u = b.create(TAddOp, [a2, s1]).result
    for v in (a1, s2, s3, e1, e2, u):
        u = b.create(TAddOp, [u, v]).result
    b.create(ReturnOp, [u], result_types=[])
    assert eliminate_common_subexpressions(module) == 1
    assert a2.op.parent is None
    verify(module)


def test_cse_result_types_matter():
    module, func, b = make_func()
    x, y = func.args
    a = b.create(TAddOp, [x, y], result_types=[f32]).result
    c = b.create(TAddOp, [x, y], result_types=[i64]).result
    b.create(ReturnOp, [a], result_types=[])
    assert eliminate_common_subexpressions(module) == 0
    assert c.op.parent is func.body


def test_cse_nested_regions_reuse_enclosing_ops_only():
    module, func, b = make_func()
    x, y = func.args
    outer = b.create(TAddOp, [x, y]).result
    r1 = b.create(TRegionOp, [x], regions=[Region([Block()])])
    inner_dup = at(r1.regions[0].block).create(TAddOp, [x, y])   # reuses `outer`
    only_inner = at(r1.regions[0].block).create(TSubOp, [x, y])
    at(r1.regions[0].block).create(TSourceOp, [only_inner.result, inner_dup.result])
    r2 = b.create(TRegionOp, [x], regions=[Region([Block()])])
    sibling = at(r2.regions[0].block).create(TSubOp, [x, y])     # must not reuse r1's op
    at(r2.regions[0].block).create(TSourceOp, [sibling.result])
    after = b.create(TSubOp, [x, y])                             # must not reuse nested ops
    b.create(ReturnOp, [b.create(TAddOp, [outer, after.result]).result], result_types=[])
    assert eliminate_common_subexpressions(module) == 1
    assert inner_dup.parent is None
    assert only_inner.parent is not None and sibling.parent is not None and after.parent is not None
    verify(module)


def test_cse_does_not_cross_isolated_from_above():
    module, func, b = make_func()
    x, y = func.args
    b.create(TAddOp, [x, y])
    c = b.create(TSourceOp, []).result
    b.create(TAddOp, [c, c])
    iso = b.create(TIsolatedOp, [], result_types=[], regions=[Region([Block([f32])])])
    arg = iso.regions[0].block.args[0]
    at(iso.regions[0].block).create(TSourceOp, [arg])
    b.create(ReturnOp, [x], result_types=[])
    # two identical functions in one module are not merged either (func.func is not Pure)
    assert eliminate_common_subexpressions(module) == 0


def test_cse_multi_block_follows_dominance():
    module, func, b = make_func()
    x, y = func.args
    region = func.regions[0]
    entry = func.body
    left, right, exit_ = (region.add_block(Block()) for _ in range(3))
    e = b.create(TAddOp, [x, y]).result
    b.create(TBrOp, [], result_types=[]).successors.extend([left, right])
    left_dup = at(left).create(TAddOp, [x, y])       # dominated by entry: reused
    left_only = at(left).create(TSubOp, [x, y])
    at(left).create(TSourceOp, [left_dup.result, left_only.result])
    at(left).create(TBrOp, [], result_types=[]).successors.append(exit_)
    right_sub = at(right).create(TSubOp, [x, y])     # left does not dominate right: kept
    at(right).create(TSourceOp, [right_sub.result])
    at(right).create(TBrOp, [], result_types=[]).successors.append(exit_)
    exit_sub = at(exit_).create(TSubOp, [x, y])      # kept as well
    at(exit_).create(ReturnOp, [at(exit_).create(TAddOp, [e, exit_sub.result]).result], result_types=[])
    assert eliminate_common_subexpressions(module) == 1
    assert left_dup.parent is None and right_sub.parent is right and exit_sub.parent is exit_
    verify(module)
    assert entry.ops[0].result.uses


def test_cse_is_fast_on_large_functions():
    module, func, b = make_func()
    x, y = func.args
    vals = []
    for _ in range(5000):
        vals.append(b.create(TAddOp, [x, y]).result)
    acc = vals[0]
    for v in vals:
        acc = b.create(TSubOp, [acc, v]).result
    b.create(ReturnOp, [acc], result_types=[])
    start = time.perf_counter()
    assert eliminate_common_subexpressions(module) == 4999
    assert time.perf_counter() - start < 2.0
    verify(module)
