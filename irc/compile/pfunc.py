"""`irc.compile.pfunc` (Theano's `theano.compile.pfunc`): `pfunc`, the function that
`theano.function` calls, with the same arguments under Theano's older names."""
from __future__ import annotations

from typing import Any

from ..frontend.function import function

__all__ = ["pfunc"]


def pfunc(params: Any, outputs: Any = None, mode: Any = None, updates: Any = None, givens: Any = None,
          no_default_updates: Any = False, accept_inplace: bool = False, name: str | None = None,
          rebuild_strict: bool = True, allow_input_downcast: bool | None = None, profile: Any = None,
          on_unused_input: str | None = None) -> Any:
    """Compile `outputs` as a function of `params` (inputs or `In`s): `irc.function` itself."""
    return function(params, outputs, updates=updates, givens=givens, mode=mode, name=name, profile=profile,
                    on_unused_input=on_unused_input or "raise", allow_input_downcast=allow_input_downcast,
                    no_default_updates=no_default_updates, accept_inplace=accept_inplace,
                    rebuild_strict=rebuild_strict)
