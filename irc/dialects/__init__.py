"""Dialects: groups of ops and types. Importing this package registers all of them."""
from . import builtin, builtin_syntax, func  # noqa: F401  (builtin_syntax: the types' text hooks)

def load_all() -> None:
    """Import every dialect so its ops are registered (parser, verifier, passes rely on it)."""
    for mod in ("scalar", "tensor", "loop", "gpu"):
        try:
            __import__(f"{__name__}.{mod}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{mod}":
                raise
