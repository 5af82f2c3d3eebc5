"""`ifelse` (Theano's `theano.ifelse.ifelse`, also `irc.ifelse.ifelse`): a lazy conditional.

Unlike `T.switch`, which is elementwise and computes both sides, `ifelse(cond, then, else)` takes
a scalar condition and computes only the branch it selects: the compiled function branches
around the other one (`tensor.if`, lowered to `loop.if` and LLVM branches)."""
from __future__ import annotations

from typing import Any

from .basic import as_tensor_variable, neq
from .graph import Variable, node_built, user_location
from .ifelse_op import IfElse

__all__ = ["ifelse"]


def ifelse(condition: Any, then_branch: Any, else_branch: Any, name: str | None = None) -> Any:
    """`then_branch` when the scalar `condition` is nonzero, else `else_branch`; each branch is
    a value or a list of values (pairwise of the same dtype and ndim), and the result has the
    same structure."""
    single = not isinstance(then_branch, (list, tuple))
    thens = [then_branch] if single else list(then_branch)
    elses = [else_branch] if not isinstance(else_branch, (list, tuple)) else list(else_branch)
    if len(thens) != len(elses):
        raise ValueError(f"ifelse: the then-branch has {len(thens)} value(s) but the else-branch "
                         f"{len(elses)} ({user_location()})")
    cond = as_tensor_variable(condition)
    if cond.ndim != 0:
        raise TypeError(f"ifelse: the condition must be a scalar, got {cond.type} (use T.switch for "
                        f"an elementwise choice) ({user_location()})")
    if cond.dtype != "bool":
        cond = neq(cond, 0)
    pairs = [_pair(t, e) for t, e in zip(thens, elses)]
    try:
        node = IfElse(len(pairs)).make_node(cond, *[t for t, _ in pairs], *[e for _, e in pairs])
    except TypeError as e:
        raise TypeError(f"{e} ({user_location()})") from None
    outs = node_built(node).outputs
    if name is not None:
        for k, out in enumerate(outs):
            out.name = name if len(outs) == 1 else f"{name}[{k}]"
    return outs[0] if single else outs


def _pair(then_value: Any, else_value: Any) -> tuple[Variable, Variable]:
    """Both branches' values as variables; a Python number takes the other side's dtype."""
    t_sym, e_sym = isinstance(then_value, Variable), isinstance(else_value, Variable)
    t = as_tensor_variable(then_value, dtype=None if t_sym or not e_sym else else_value.dtype)
    e = as_tensor_variable(else_value, dtype=None if e_sym or not t_sym else t.dtype)
    return t, e
