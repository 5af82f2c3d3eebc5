"""`irc.clone`: Theano's `theano.clone`, a copy of a graph with some variables replaced."""
from __future__ import annotations

import warnings
from typing import Any, Sequence

from .basic import as_tensor_variable
from .graph import Constant, Variable, clone_replace, graph_inputs
from .shared import SharedVariable


_DEPRECATED = object()


def clone(output: Variable | Sequence[Variable], replace: Any = None, strict: bool = True,
          share_inputs: bool = True, copy_inputs: Any = _DEPRECATED) -> Variable | list[Variable]:
    """`output` with each key of `replace` (a dict or (old, new) pairs; values may be numbers)
    substituted, each once: a replacement may read the variable it replaces (`{w: w + v}`,
    the original w; see `graph.clone_replace`). With `share_inputs=False` the free inputs are
    new variables too (constants and shared variables stay: they are values, not
    placeholders). `copy_inputs` is Theano's old name of `share_inputs` (a DeprecationWarning)."""
    if copy_inputs is not _DEPRECATED:
        warnings.warn("irc.clone: copy_inputs is deprecated, use share_inputs", DeprecationWarning, stacklevel=2)
        share_inputs = copy_inputs
    if isinstance(output, tuple):
        output = list(output)
    pairs = replace.items() if isinstance(replace, dict) else (replace or ())
    subst = {old: new if isinstance(new, Variable) else as_tensor_variable(new) for old, new in pairs}
    if not share_inputs:
        for leaf in graph_inputs(output):
            if leaf not in subst and not isinstance(leaf, (Constant, SharedVariable)):
                subst[leaf] = leaf.clone()
    return clone_replace(output, subst, strict)
