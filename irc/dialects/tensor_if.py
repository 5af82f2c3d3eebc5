"""`tensor.if`: a lazy conditional — only the taken region runs (Theano's `ifelse`).

    %r:2 = "tensor.if"(%c) ({
      %a = tensor.exp %x : tensor<?xf32>
      "tensor.yield"(%a, %y) : (tensor<?xf32>, tensor<f32>) -> ()
    }, {
      "tensor.yield"(%x, %z) : (tensor<?xf32>, tensor<f32>) -> ()
    }) : (tensor<i1>) -> (tensor<?xf32>, tensor<f32>)

The condition is a 0-d `tensor<i1>`: on the host, or on the device of a device `tensor.if`,
whose host side reads it back to pick the branch (`gpu.read_flag`). Each region is one block without arguments
ending in `tensor.yield` of one value per result; the regions read values from above (unlike
`tensor.fused`), so everything only one branch needs can live inside it. A yielded type may know
more sizes than the result's (`tensor<1x?xf32>` for `tensor<?x?xf32>`: the branches' broadcast
patterns joined), never fewer, and has the result's element type, rank and placement.
"""
from __future__ import annotations

from typing import Sequence

from ..ir.core import Block, Operation, Pure, Region, Terminator, Value
from ..ir.location import Location, UNKNOWN_LOC
from ..ir.rewriter import PatternRewriter, RewritePattern
from ..ir.types import Type, i1
from .builtin import TensorType
from .op_base import compatible
from .tensor_base import constant_value


class YieldOp(Operation):
    """`tensor.yield`: ends a branch of `tensor.if`, passing on its results."""

    name = "tensor.yield"
    traits = (Terminator, Pure)

    def verify_(self) -> None:
        if not isinstance(self.parent_op, IfOp):
            raise self.error("must end a region of 'tensor.if'")


class InlineTakenBranch(RewritePattern):
    """`tensor.if` on a constant condition is its taken branch, inlined before it."""

    root = "tensor.if"
    name = "if-constant-condition"

    def match_and_rewrite(self, op: "IfOp", rewriter: PatternRewriter) -> bool:
        cond = constant_value(op.operand(0))
        if cond is None:
            return False
        block = op.branch(bool(cond.array.reshape(-1)[0]))
        term = block.terminator
        for inner in list(block.ops[:-1]):
            inner.detach()
            rewriter.insert_before(op, inner)
        rewriter.replace_op(op, list(term.operands))
        return True


class IfOp(Operation):
    """`tensor.if`: runs the then-region when the 0-d condition holds, else the else-region."""

    name = "tensor.if"
    traits = (Pure,)  # its branches only compute values (a failing check fails the call)
    canonicalize_patterns = [InlineTakenBranch()]

    @staticmethod
    def create(cond: Value, then_block: Block, else_block: Block, result_types: Sequence[Type],
               location: Location = UNKNOWN_LOC) -> "IfOp":
        """An if over two filled blocks (each ending in `tensor.yield`)."""
        return IfOp([cond], list(result_types), {}, [Region([then_block]), Region([else_block])], (), location)

    def branch(self, taken: bool) -> Block:
        return self.regions[0 if taken else 1].blocks[0]

    def verify_(self) -> None:
        if len(self.operands) != 1:
            raise self.error(f"expects one operand (the condition), got {len(self.operands)}")
        ct = self.operand(0).type
        if not (isinstance(ct, TensorType) and ct.rank == 0 and ct.element == i1):
            raise self.error(f"condition must be a 0-d tensor<i1>, got {ct}")
        if len(self.regions) != 2:
            raise self.error(f"expects two regions (then, else), got {len(self.regions)}")
        for r in self.results:
            if not isinstance(r.type, TensorType):
                raise self.error(f"results must be tensors, got {r.type}")
        for k, region in enumerate(self.regions):
            what = ("then", "else")[k]
            if len(region.blocks) != 1 or region.blocks[0].args:
                raise self.error(f"the {what} region must be one block without arguments")
            term = region.blocks[0].ops[-1] if region.blocks[0].ops else None
            if not isinstance(term, YieldOp):
                raise self.error(f"the {what} region must end with 'tensor.yield'")
            if len(term.operands) != len(self.results):
                raise self.error(f"the {what} region yields {len(term.operands)} value(s) but the op "
                                 f"has {len(self.results)} result(s)")
            for i, (v, r) in enumerate(zip(term.operands, self.results)):
                if not compatible(v.type, r.type):
                    raise self.error(f"the {what} region yields {v.type} as result #{i}, which must be "
                                     f"{r.type} (same element type, rank and placement; sizes may be "
                                     f"more precise)")
