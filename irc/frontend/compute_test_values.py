"""`config.compute_test_value` ('off', 'ignore', 'warn', 'raise', 'pdb'), Theano's debugging
aid: every node built while it is not 'off' computes its outputs' `tag.test_value` from its
inputs' test values (known_test_values.py) with the reference evaluator (evaluate.py; a scan
is compiled), so a shape mistake fails at the line that made it. An input without a test
value: 'ignore' skips the node silently, 'warn' skips it with a warning, 'raise' is a
ValueError, 'pdb' opens the debugger there (then skips). Installed as a hook of every op call
(`graph.NODE_HOOKS`) when this module loads."""
from __future__ import annotations

import pdb
import sys
import warnings

from ..base.config import config
from ..ir.diagnostics import Diagnostic
from ..ir.location import FileLineColLoc, Location
from .evaluate import evaluate
from .function import function
from .graph import NODE_HOOKS, Apply, Constant
from .scan_op import Scan
from .shared import SharedVariable
from .known_test_values import get_test_value


class MissingTestValue(AttributeError):
    """An input of a node has no test value (Theano raises AttributeError there too)."""


def _missing(node: Apply, i: int) -> bool:
    """Act on input `i` of `node` having no test value, per the flag; True: skip the node."""
    mode = config.compute_test_value
    text = (f"Cannot compute test value: input {i} ({node.inputs[i]}) of Op {node.op} missing "
            f"default value")
    if mode == "raise":
        raise ValueError(Diagnostic(text + " (give it x.tag.test_value, or set "
                                    "config.compute_test_value to 'warn' or 'off')", node.location).render())
    if mode == "warn":
        _warn_at(node.location, text)
    elif mode == "pdb":
        try:
            raise MissingTestValue(text)
        except MissingTestValue:
            pdb.post_mortem(sys.exc_info()[2])
    return True


def _warn_at(location: Location, text: str) -> None:
    """A UserWarning reported at the user's line (not at this module's)."""
    message = Diagnostic(text, location, severity="warning").render(with_source=False)
    if isinstance(location, FileLineColLoc):
        warnings.warn_explicit(message, UserWarning, location.filename, location.line)
    else:
        warnings.warn(message, stacklevel=2)


def _run(node: Apply, values: list) -> list:
    """The node's outputs on its inputs' test values."""
    if isinstance(node.op, Scan):  # (its region needs the compiled path: a small function)
        given = [(v, value) for v, value in zip(node.inputs, values)
                 if not isinstance(v, (Constant, SharedVariable))]
        fresh = [v.type() for v, _ in given]
        f = function(fresh, list(node.outputs), givens=[(v, x) for (v, _), x in zip(given, fresh)],
                     on_unused_input="ignore")
        return f(*[value for _, value in given])
    return evaluate(list(node.outputs), dict(zip(node.inputs, values)))


def compute_test_value(node: Apply) -> None:
    """Set `tag.test_value` on the outputs of a node just built (nothing when the flag is off)."""
    if config.compute_test_value == "off":
        return
    values = []
    for i, var in enumerate(node.inputs):
        value = get_test_value(var)
        if value is None:
            if _missing(node, i):
                return
        values.append(value)
    try:
        outputs = _run(node, values)
    except (ValueError, IndexError) as e:
        shapes = ", ".join(str(getattr(v, "shape", ())) for v in values)
        cls = IndexError if isinstance(e, IndexError) else ValueError
        raise cls(Diagnostic(f"compute_test_value: {node.op} fails on the test values of its inputs "
                                 f"(shapes {shapes}): {e}", node.location).render()) from None
    for out, value in zip(node.outputs, outputs):
        out.tag.test_value = value


NODE_HOOKS.append(compute_test_value)
