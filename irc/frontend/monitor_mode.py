"""`MonitorMode` (Theano's `theano.compile.monitormode.MonitorMode`): user callbacks around
every op of a compiled function, for looking at values while it runs (debug_faq.txt's
"How do I Step through a Compiled Function?").

`pre_func(i, node, fn)` runs before op `i` of `f.maker.fgraph.toposort()` and `post_func(i,
node, fn)` after it; `node` is that toposort's node (`node.op`, `node.inputs`, `node.outputs`,
printable with `debugprint`), `fn.inputs` / `fn.outputs` are its values as Theano's storage cells
(`fn.inputs[k][0]`; the outputs are `[None]` before the op runs). The function runs op by op in
numpy (the reference executor, the 'py' linker) on the optimized graph. Unlike Theano, the ops
inside a scan's or an ifelse's body are not reported one by one: the scan or ifelse is one op."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from ..ir.core import Operation
from ..runtime.reference import ReferenceExecutor
from .fgraph_view import FunctionGraphView
from .modes import Mode

Callback = Callable[[int, Any, "OpCall"], Any]


class MonitorMode(Mode):
    """`MonitorMode(pre_func=None, post_func=None, optimizer='default', linker=None)`: the
    callbacks run around every op; `optimizer` as for `irc.Mode` ('default': 'fast_run'); the
    linker is always 'py' (op by op)."""

    def __init__(self, pre_func: Callback | None = None, post_func: Callback | None = None,
                 optimizer: str | None = "default", linker: str | None = None):
        for name, func in (("pre_func", pre_func), ("post_func", post_func)):
            if func is not None and not callable(func):
                raise TypeError(f"MonitorMode: {name} must be a function (i, node, fn), got {func!r}")
        super().__init__("py", "fast_run" if optimizer == "default" else optimizer)
        self.pre_func = pre_func
        self.post_func = post_func


class OpCall:
    """Theano's thunk as a callback sees it: `inputs` and `outputs`, lists of one-element cells."""

    def __init__(self, inputs: Sequence[Any], n_outputs: int):
        self.inputs = [[value] for value in inputs]
        self.outputs: list[list[Any]] = [[None] for _ in range(n_outputs)]


class MonitorExecutor(ReferenceExecutor):
    """The reference executor calling `mode`'s callbacks around each op of the toposort."""

    def __init__(self, func: Operation, mode: MonitorMode, allow_gc: bool = True):
        self.mode = mode
        self._nodes: dict[int, tuple[int, Any]] = {}   # constants run while planning: no callbacks
        super().__init__(func, allow_gc)
        self._nodes = {id(node.ir): (i, node) for i, node in enumerate(FunctionGraphView(func).toposort())}

    def _run_op(self, op: Operation, arrays: list) -> list:
        found = self._nodes.get(id(op))
        if found is None:
            return super()._run_op(op, arrays)
        i, node = found
        call = OpCall(arrays, len(op.results))
        if self.mode.pre_func is not None:
            self.mode.pre_func(i, node, call)
        results = super()._run_op(op, arrays)
        for cell, value in zip(call.outputs, results):
            cell[0] = value
        if self.mode.post_func is not None:
            self.mode.post_func(i, node, call)
        return results
