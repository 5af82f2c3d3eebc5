"""The bytes of a `loop.global` embedded in generated code, refused (with a located error)
beyond a size no compiled module should carry: a splat attribute costs one element however
large its type, but its bytes in the object code would not."""
from __future__ import annotations

import numpy as np

from ..ir.core import Operation
from ..ir.diagnostics import UnsupportedError

MAX_EMBEDDED_BYTES = 1 << 30


def global_bytes(op: Operation) -> bytearray:
    """The data of `loop.global` `op` (its value's element type is the result's: verified)."""
    attr = op.attributes["value"]
    t = attr.type
    nbytes = int(np.prod(t.shape, dtype=np.float64)) * np.dtype(t.element.numpy_name).itemsize
    if nbytes > MAX_EMBEDDED_BYTES:
        raise UnsupportedError(f"'loop.global' of {nbytes} bytes ({t}) is too large to embed in compiled "
                               f"code (at most {MAX_EMBEDDED_BYTES}); pass such data as an argument",
                               op.location)
    return bytearray(attr.array.tobytes())
