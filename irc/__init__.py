"""irc: a tensor compiler in pure Python with Theano's user API.

Attributes load lazily (PEP 562) so that `irc-opt --help` and other light entry points stay
fast: nothing heavy (numpy, llvmlite) is imported until it is used."""
from __future__ import annotations

__version__ = "0.1.0"
