"""A graph-level numpy evaluator: runs a symbolic graph directly, node by node.

Each Apply is turned into its tensor-dialect op (`op.ir_name`, `op.ir_attributes()`, the
inputs' and outputs' IR types) and run through the dialect's reference semantics
(irc/dialects/tensor_eval.py), so the frontend has no numpy semantics of its own and every
node is checked to lower mechanically — except `IfElse`, whose region op needs the compiled
path: here it picks the value of the taken branch (both branches are evaluated, so this
evaluator is not lazy). Meant for tests and debugging (`x.tag.test_value`); `irc.function`
compiles through the IR instead."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..dialects import tensor  # noqa: F401  (registers the ops)
from ..dialects.tensor_eval import evaluate as run_op
from ..ir.core import Value, create_op
from .graph import Apply, Constant, Variable, toposort
from .ifelse_op import IfElse
from .shared import SharedVariable


def ir_op_of(node: Apply):
    """The tensor-dialect op for one Apply, with placeholder operand values."""
    operands = [Value(i.type.to_ir()) for i in node.inputs]
    return create_op(node.op.ir_name, operands, [o.type.to_ir() for o in node.outputs],
                     node.op.ir_attributes(), location=node.location)


def evaluate(outputs: Variable | Sequence[Variable], inputs: Mapping[Variable, Any] | None = None) -> Any:
    """Values of `outputs` given values for the free inputs (`{x: array}`); shared variables
    use their current value, constants their data."""
    single = isinstance(outputs, Variable)
    outs = [outputs] if single else list(outputs)
    env: dict[Variable, np.ndarray] = {}
    for var, value in (inputs or {}).items():
        env[var] = var.type.filter(value)
    for node in toposort(outs, blockers=list(env)):
        args = []
        for i in node.inputs:
            if i not in env:
                if isinstance(i, Constant):
                    env[i] = i.data
                elif isinstance(i, SharedVariable):
                    env[i] = np.asarray(i.get_value(borrow=True))
                else:
                    raise ValueError(f"no value given for input {i} ({i.type}) of {node}")
            args.append(env[i])
        if isinstance(node.op, IfElse):
            thens, elses = node.op.branches(args)
            values = [np.asarray(v, dtype=o.dtype) for v, o in zip(thens if args[0] else elses, node.outputs)]
        else:
            values = run_op(ir_op_of(node), args)
        for o, value in zip(node.outputs, values):
            env[o] = value
    results = []
    for o in outs:
        if o not in env:
            if isinstance(o, Constant):
                env[o] = o.data
            elif isinstance(o, SharedVariable):
                env[o] = np.asarray(o.get_value())
            else:
                raise ValueError(f"no value given for output {o}")
        results.append(env[o])
    return results[0] if single else results
