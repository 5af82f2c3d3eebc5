"""The body of a cache entry holding object code that links with kernels (`kernel_split.py`):
a line naming the kernels' keys, then the object file. Apart from the kernel splitting so that
loading cached code (a warm start) does not import the code generator."""
from __future__ import annotations

KERNELS_LINE = b"irc-kernels"


def encode_linked(kernel_keys: list[str], obj: bytes) -> bytes:
    """Object code after a line naming the kernels it calls (a cache entry's body)."""
    return b" ".join([KERNELS_LINE, *(k.encode("ascii") for k in kernel_keys)]) + b"\n" + obj


def decode_linked(body: bytes) -> tuple[list[str], bytes] | None:
    """(kernel keys, object code) of an `encode_linked` body; None when it is not one."""
    end = body.find(b"\n")
    if end < 0:
        return None
    words = body[:end].split(b" ")
    if words[0] != KERNELS_LINE or not all(len(w) == 64 for w in words[1:]):
        return None
    return [w.decode("ascii") for w in words[1:]], body[end + 1:]
