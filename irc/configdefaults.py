"""`irc.configdefaults` (Theano's `theano.configdefaults`): the platform facts its tests ask for.
The flags themselves are `irc.config`."""
from __future__ import annotations

import struct

import numpy as np


def local_bitwidth() -> int:
    """The width of a C pointer on this machine, in bits (64 here: irc targets 64-bit hosts)."""
    return 8 * struct.calcsize("P")


def python_int_bitwidth() -> int:
    """The width of numpy's default integer (`np.int_`), in bits: what a Python int becomes."""
    return 8 * np.dtype(np.int_).itemsize
