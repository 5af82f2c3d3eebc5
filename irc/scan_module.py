"""`irc.scan_module` (Theano's `theano.scan_module`): `scan` and the loops on top of it
(`irc.scan_module.scan` is `irc.scan`; the builder is `irc/frontend/scan.py`)."""
from .frontend.scan import foldl, foldr, map, reduce, scan

__all__ = ["foldl", "foldr", "map", "reduce", "scan"]
