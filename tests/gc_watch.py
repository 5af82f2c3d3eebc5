"""For the tests of the collector pause (irc/base/gc_pause.py): the collections that start
while a given function's frame is on the stack."""
from __future__ import annotations

import contextlib
import gc
import sys
from types import CodeType
from typing import Iterator


@contextlib.contextmanager
def collections_inside(body: CodeType, eager: bool = True) -> Iterator[list[int]]:
    """Yields the list of the generations of the collections that start, within the block,
    while a frame of `body` is on the stack; with `eager` the collector's thresholds are
    1, 1, 1 meanwhile (without a pause nearly every allocation would then collect)."""
    seen: list[int] = []

    def callback(phase, info):
        frame = sys._getframe()
        while frame is not None and frame.f_code is not body:
            frame = frame.f_back
        if phase == "start" and frame is not None:
            seen.append(info["generation"])
    old = gc.get_threshold()
    if eager:
        gc.set_threshold(1, 1, 1)
    gc.callbacks.append(callback)
    try:
        yield seen
    finally:
        gc.callbacks.remove(callback)
        gc.set_threshold(*old)
