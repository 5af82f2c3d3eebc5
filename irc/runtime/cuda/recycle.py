"""Handing a dropped result's buffer out again, decided by reference counts.

A compiled function's fresh result is usually dropped by the caller one or two calls later
(`r = f()` in a loop keeps the previous result alive while the next call runs). `Recent`
remembers the last few objects a factory made and returns one again once nothing but the list
refers to it and to its allocation (`gpudata`): the recycling the memory pool would do, without
an allocator call, a new Python object or a new address (so a CUDA graph captured for the
address replays). Kept free of PyCUDA so that the CPU tests can check it."""
from __future__ import annotations

import sys
from typing import Any, Callable


def _dropped_counts() -> tuple[int, int]:
    """What `Recent.take` reads for an object only its list holds. The counts depend on the
    interpreter's version, so they are measured by the same loop, not assumed."""
    class Probe:
        pass

    probe = Probe()
    probe.gpudata = Probe()
    held = [probe]
    del probe
    refs = sys.getrefcount
    for out in held:
        return refs(out), refs(out.gpudata)
    raise AssertionError("unreachable")


DROPPED = _dropped_counts()


class Recent:
    """The last `size` objects `make()` returned; `take()` reuses one nobody holds. `make`:
    the callable, or None where a subclass defines the method."""

    def __init__(self, make: Callable[[], Any] | None = None, size: int = 3):
        if make is not None:
            self.make = make
        self.size = size
        self.items: list[Any] = []

    def take(self) -> Any:
        refs = sys.getrefcount
        dropped, dropped_data = DROPPED
        for out in self.items:
            if refs(out) == dropped and refs(out.gpudata) == dropped_data:
                return out
        out = self.make()
        items = self.items
        if len(items) >= self.size:
            del items[0]
        items.append(out)
        return out

    def release(self) -> None:
        """Forget the remembered objects (their memory is freed once the caller drops them)."""
        self.items.clear()
