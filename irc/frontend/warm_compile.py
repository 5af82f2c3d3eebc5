"""`irc.function`'s side of the warm start keyed before the passes (`runtime/warm_start.py`):
which compiles may use it, the key of the module as lowered, a hit's native function, and the
entry a compile leaves for the next process.

Only the common path takes it: the cpu target, a plain mode (a name or an `irc.Mode` whose
linker runs compiled code), not profiling, no `dump_ir`, `warn_float64=ignore` (its check
reads the optimized ops) and no user op (`tensor.custom`: its `perform` runs between native
parts). Anything else compiles as before."""
from __future__ import annotations

import warnings
from typing import Any

from ..base.config import config
from ..base.device import CPU
from ..ir.instrumentation import render_ir
from ..runtime.segments import user_ops
from ..runtime.object_cache import CacheWarning
from ..runtime.warm_start import load_entry, store_entry, warm_key
from .modes import Mode

# the row of `f.maker.compile_times` a hit adds (the key and the entry: the native load has its own)
WARM_HIT = "warm start: cache hit before the passes (key and entry)"
WARM_MISS = "warm start: key and lookup (a miss)"
PLAIN_MODES = ("FAST_RUN", "FAST_COMPILE", "NO_OPT")


class WarmKey:
    """A compile's key and the text it hashes (the "tensor" stage, as lowered)."""

    def __init__(self, key: str, text: str):
        self.key = key
        self.text = text


def warm_key_of(user_mode: Any, mode: str, target: Any, lowered: Any, profiling: bool,
                allow_gc: bool) -> WarmKey | None:
    """The key of this compile, or None where the warm start does not apply (see above)."""
    plain = user_mode is None or isinstance(user_mode, str) or type(user_mode) is Mode
    linker = getattr(user_mode, "linker", "cvm")
    if (target.name != CPU or profiling or not plain or mode not in PLAIN_MODES or linker == "py"
            or config.dump_ir or config.warn_float64 != "ignore" or user_ops(lowered.func)):
        return None
    from ..runtime.host_key import codegen_parts  # the native runtime: loaded at a compile, not at `import irc`
    text = render_ir(lowered.module, debuginfo=True)
    excluded = tuple(getattr(user_mode, "excluded", ()))
    return WarmKey(warm_key(text, mode, linker, excluded, allow_gc, target.name, codegen_parts()), text)


def warm_hit(warm: WarmKey, clock: Any) -> tuple[Any, dict[str, str], list[bool]] | None:
    """(native function, stages, borrowed results) from the entry, or None: a miss, a damaged
    entry (warned), or objects the cache no longer holds."""
    fields = load_entry(warm.key)
    if fields is None:
        clock.mark(WARM_MISS)
        return None
    from ..runtime.native_warm import bind_fields  # (llvmlite only where no shared library serves)
    try:
        native = bind_fields(fields["native"])
        stages = {"tensor": warm.text, "optimized": str(fields["optimized"])}
        borrowed = [bool(b) for b in fields["borrowed"]]
    except (KeyError, TypeError, ValueError) as e:  # checked whole, yet not what this irc writes
        clock.mark(WARM_MISS)
        warnings.warn(f"irc: ignoring a malformed warm-start entry {warm.key[:16]}... ({type(e).__name__}: {e}); "
                      f"recompiling and replacing it", CacheWarning, stacklevel=4)
        return None
    if native is None:  # its objects are gone: compiled as usual, which stores them again
        clock.mark(WARM_MISS)
        return None
    clock.mark(WARM_HIT)
    clock.stages[WARM_HIT] -= native.stats.load_s  # the load has its own row
    stages["loop"] = native.loop_ir
    return native, stages, borrowed


def remember(warm: WarmKey, native: Any, stages: dict[str, str], borrowed: list[bool]) -> None:
    """Store the entry of a compile that ran the passes, once its objects are in the cache: now,
    or for tier-0 code at exit, after the background process has stored the optimized objects
    (so that the next process starts warm)."""
    if native is None:
        return
    if native.stats.tier == 0:
        from ..runtime.warm_store import after_background
        after_background(native, lambda: _store(warm, native, stages, borrowed, at_exit=True))
        return
    _store(warm, native, stages, borrowed, at_exit=False)


def _store(warm: WarmKey, native: Any, stages: dict[str, str], borrowed: list[bool], at_exit: bool) -> None:
    """The entry, and the function's shared library where the cache lacks it (linked in a
    thread, or at exit right here: the background process has usually linked it already).
    Only with `config.compile_tiers`: without it nothing runs beside the user's program."""
    from ..runtime.library_link import link_cached, link_later  # llvmlite
    from ..runtime.warm_store import native_fields, stored
    fields = native_fields(native)
    if fields is not None and stored(native):  # never an entry pointing to missing objects
        store_entry(warm.key, {"native": fields, "optimized": stages["optimized"], "borrowed": borrowed})
        if not config.compile_tiers:  # nothing runs beside the program then (the test suite)
            return
        if at_exit:
            link_cached(native.cache_key)
        else:
            link_later(native.cache_key)


def warm_executor(native: Any) -> Any:
    """The executor of a hit's native function (as `make_cpu_executor`'s)."""
    from ..runtime.native_call import NativeExecutor  # llvmlite
    return NativeExecutor(native)
