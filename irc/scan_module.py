"""Theano's `theano.scan_module` path: `irc.scan_module.scan` is `irc.scan`."""
from .frontend.scan import foldl, foldr, map, reduce, scan  # noqa: F401
