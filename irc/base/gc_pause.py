"""The cyclic garbage collector paused while irc builds and rewrites IR.

A compile allocates hundreds of thousands of small objects that refer to each other (ops,
values, uses, attributes). With the collector running, each few hundred allocations start a
young collection, and every tenth of those that finds survivors moves them on, until full
collections rescan the whole heap — the caller's too — many times per compile. Paused, the
compile's garbage is collected once, after it. The parser pauses it the same way."""
from __future__ import annotations

import contextlib
import functools
import gc
from typing import Any, Callable, Iterator, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block (nested or not: the state is restored)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def with_gc_paused(fn: F) -> F:
    """`fn` run under `gc_paused()`. The wrapper's frame is in irc's package, so the frames
    that look for the user's line on the stack (`user_location`) pass over it."""
    @functools.wraps(fn)
    def paused(*args: Any, **kwargs: Any) -> Any:
        with gc_paused():
            return fn(*args, **kwargs)
    return paused  # type: ignore[return-value]
