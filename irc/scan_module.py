"""`irc.scan_module` (Theano's `theano.scan_module`): `scan`, the loops on top of it and `until`,
the stopping condition of a while loop (`irc.scan_module.scan` is `irc.scan`; the builder is
`irc/frontend/scan.py`)."""
from .frontend.scan import foldl, foldr, map, reduce, scan
from .frontend.scan_until import until

__all__ = ["foldl", "foldr", "map", "reduce", "scan", "until"]
