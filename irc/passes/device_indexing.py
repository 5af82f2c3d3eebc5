"""Integer indexing by an index the host cannot know, made advanced indexing for a device.

`x[i]` with `i` computed on the device (the Jacobian by scan's `y[i]`, `i` the step's element
of `arange`) is a view whose offset only the device knows, so the host plan cannot make it.
`tensor.gather` reads its index arrays on the device (checked there, read back after the
call), and a 0-d index array is numpy's `x[i]` exactly; `set_subtensor(x[i], v)` is a
`tensor.scatter` in "set" mode. `insert-transfers` applies this before placing, to indices
on the leading axes (the gather's form), so those ops get device kernels; indices the host
knows keep the view.
"""
from __future__ import annotations

from ..dialects.builtin import StringAttr, TensorType
from ..ir.core import OP_REGISTRY, Operation

INDEX_OPERAND = {"tensor.index": 1, "tensor.insert_index": 2}


def gather_by_device_indices(func: Operation, known_on_host) -> int:
    """Rewrite `func`'s integer indexing by indices `known_on_host` rejects (nested bodies
    included) into gathers and scatters; how many were rewritten."""
    count = 0
    for op in [o for o in func.walk() if o.op_name in INDEX_OPERAND]:
        first = INDEX_OPERAND[op.op_name]
        indices = op.operands[first:]
        axes = list(op.attributes["axes"].value)
        if all(known_on_host(v) for v in indices) or axes != list(range(len(axes))):
            continue
        if not all(isinstance(v.type, TensorType) and v.type.rank == 0 for v in indices):
            continue
        if op.op_name == "tensor.index":
            new = OP_REGISTRY["tensor.gather"].build([op.operand(0), *indices], {}, location=op.location)
        else:
            new = OP_REGISTRY["tensor.scatter"].build(list(op.operands), {"mode": StringAttr("set")},
                                                      location=op.location)
        if new.results[0].type != op.results[0].type:
            continue
        op.parent.insert_before(op, new)
        op.results[0].replace_all_uses_with(new.results[0])
        op.erase()
        count += 1
    return count
