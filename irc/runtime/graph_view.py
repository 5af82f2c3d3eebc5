"""`f.maker.fgraph` and the profiler's op names: the runtime shows users the op classes they
know (Theano's `Elemwise`, `GpuFromHost`, ...), a naming that belongs to the frontend. The
frontend, which builds every compiled function, installs its view here (`set_graph_view`) when
it loads; the runtime only asks for it."""
from __future__ import annotations

from typing import Any, Callable

_VIEW: Callable[[Any], Any] | None = None


def set_graph_view(factory: Callable[[Any], Any]) -> None:
    global _VIEW
    _VIEW = factory


def graph_view(func: Any) -> Any:
    """The Theano-shaped view (with `toposort()`) of a tensor-level `func.func`."""
    if _VIEW is None:
        raise RuntimeError("no graph view is installed (irc.frontend.function installs "
                           "irc.frontend.fgraph_view's when it loads)")
    return _VIEW(func)
