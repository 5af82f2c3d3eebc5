"""`irc.clone`: Theano's `theano.clone`, a copy of a graph with some variables replaced."""
from __future__ import annotations

from typing import Any, Sequence

from .basic import as_tensor_variable
from .graph import Constant, Variable, clone_replace, graph_inputs
from .shared import SharedVariable


def clone(output: Variable | Sequence[Variable], replace: Any = None, strict: bool = True,
          share_inputs: bool = True) -> Variable | list[Variable]:
    """`output` with each key of `replace` (a dict or (old, new) pairs; values may be numbers)
    substituted. With `share_inputs=False` the free inputs are new variables too (constants
    and shared variables stay: they are values, not placeholders)."""
    pairs = replace.items() if isinstance(replace, dict) else (replace or ())
    subst = {old: new if isinstance(new, Variable) else as_tensor_variable(new) for old, new in pairs}
    if not share_inputs:
        for leaf in graph_inputs(output):
            if leaf not in subst and not isinstance(leaf, (Constant, SharedVariable)):
                subst[leaf] = leaf.clone()
    return clone_replace(output, subst, strict)
