"""`memory_profile(module, input_shapes)`: bytes a compiled function holds, known before running.

The tensor-level function is lowered as the CPU path lowers it, and its top-level allocations
and frees are replayed for the given shapes (nothing runs). Variants show what each choice
buys: without the `inplace` marks, and with `allow_gc=False` (temporaries kept across calls).
The runtime exposes it as `f.memory_profile()`.
"""
from __future__ import annotations

from typing import Any, Sequence

from ...dialects import loop as L
from ...dialects.builtin import ModuleOp
from ...dialects.func import FuncOp, ReturnOp
from ...dialects.tensor_eval import evaluate_scalar
from ...ir.core import Value
from .lower_to_loops import lower_function


def _funcs(module: ModuleOp, name: str | None) -> FuncOp:
    funcs = [op for op in module.body.ops if isinstance(op, FuncOp)
             and (name is None or op.sym_name == name)]
    if len(funcs) != 1:
        raise ValueError(f"memory_profile needs exactly one function, found {len(funcs)}")
    return funcs[0]


def replay(func: FuncOp, shapes: Sequence[tuple[int, ...]],
           values: Sequence[Any] | None = None) -> dict[str, int]:
    """Replay a loop-level function's top-level allocs/deallocs for concrete input shapes, and
    the values of its number inputs where sizes depend on them (a minibatch index slicing a
    shared dataset through `givens`): a size computed from one unknown stops the replay with a
    KeyError."""
    env: dict[Value, Any] = {}
    args = {a: i for i, a in enumerate(func.args)}
    values = list(values) if values is not None else [None] * len(func.args)
    ret = func.body.terminator
    returned = set(ret.operands) if isinstance(ret, ReturnOp) else set()
    size: dict[Value, int] = {}
    live = peak = temps_total = outputs = workspace = 0
    for op in func.body.ops:
        if isinstance(op, L.ConstantOp):
            env[op.result] = op.value
        elif isinstance(op, L.DimOp) and op.operand(0) in args:
            env[op.result] = shapes[args[op.operand(0)]][op.axis]
        elif op.op_name in L.INDEX_BINARY and all(v in env for v in op.operands):
            env[op.result] = L.INDEX_BINARY[op.op_name](*(env[v] for v in op.operands))
        elif (isinstance(op, L.LoadOp) and len(op.operands) == 1 and op.operand(0) in args
              and values[args[op.operand(0)]] is not None):  # a number input, read on the host
            env[op.result] = values[args[op.operand(0)]]
        elif op.op_name.startswith("scalar.") and all(v in env for v in op.operands):
            env[op.result] = evaluate_scalar(op, [env[v] for v in op.operands])[()].item()
        elif isinstance(op, L.AllocOp):
            t = op.result.type
            dyn = iter(env[v] for v in op.operands)
            n = max(1, t.element.bitwidth // 8)
            for d in t.shape:
                n *= d if d is not None else next(dyn)
            size[op.result] = n
            live += n
            peak = max(peak, live)
            if op.result in returned:
                outputs += n
            else:
                temps_total += n
                if "irc.workspace" in op.attributes:
                    workspace += n
        elif isinstance(op, L.DeallocOp) and op.operand(0) in size:
            live -= size[op.operand(0)]
    return {"peak_bytes": peak, "output_bytes": outputs, "temporary_bytes": temps_total,
            "workspace_bytes": workspace}


def memory_profile(module: ModuleOp, input_shapes: Sequence[tuple[int, ...]],
                   name: str | None = None, input_values: Sequence[Any] | None = None) -> dict[str, int]:
    """Peak bytes of the (optimized, tensor-level) function for `input_shapes`:

    `peak_bytes` (results included), `output_bytes`, `temporary_bytes` (allocated per call),
    `peak_bytes_no_inplace` (the `inplace` marks ignored), `peak_bytes_no_reuse`, and
    `workspace_bytes_no_gc` (held between calls with allow_gc=False, then 0 bytes per call).
    `input_values`: the number inputs' values (None elsewhere), where sizes depend on them."""
    func = _funcs(module, name)
    shapes = [tuple(s) for s in input_shapes]
    out = replay(lower_function(func), shapes, input_values)
    plain = func.clone()
    for op in plain.walk():
        op.attributes.pop("inplace", None)
    out["peak_bytes_no_inplace"] = replay(lower_function(plain), shapes, input_values)["peak_bytes"]
    out["workspace_bytes_no_gc"] = replay(lower_function(func, allow_gc=False), shapes,
                                          input_values)["workspace_bytes"]
    out["peak_bytes_no_gc"] = out["workspace_bytes_no_gc"] + out["output_bytes"]
    return out
