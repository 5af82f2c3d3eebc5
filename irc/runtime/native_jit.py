"""Object code loaded into llvmlite's MCJIT: compiled functions (`native.py`) and the warm
starts whose shared library is missing or unusable (`native_warm.py`)."""
from __future__ import annotations

from typing import Callable

import llvmlite.binding as llvm

from ..codegen_cpu.array_layout import numpy_symbol_of
from ..codegen_cpu.target import new_target_machine
from .native_function import entry_point
from .threads import configure, pool_for_mcjit


def load_symbol(obj: bytes | list[bytes], symbol: str, in_ranks: list[int], n_results: int, by_object: bool,
                runtime: Callable[[], object] = configure) -> tuple:
    """(engine, entry point) of the function exported as `symbol` (`entry_symbol`): its
    numpy-object wrapper when `by_object`, else the flat pointer/size/stride ABI."""
    engine = load_object(obj, runtime)
    address = engine.get_function_address(numpy_symbol_of(symbol) if by_object else symbol)
    return engine, entry_point(address, in_ranks, n_results, by_object)


def load_object(obj: bytes | list[bytes], runtime: Callable[[], object] = configure):
    """An MCJIT engine holding only these object files, linked (no LLVM optimization runs here).
    `runtime()` runs first, since the runtime's symbols must resolve when the object loads:
    `configure` (the pool, with `config.cpu_threads` applied: every compile), `ensure_configured`
    (a tier switch) or `use_serial_runtime` (tier-0 code before the pool exists)."""
    runtime()
    pool_for_mcjit()
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), new_target_machine())
    for o in [obj] if isinstance(obj, bytes) else obj:
        engine.add_object_file(llvm.ObjectFileRef.from_data(o))
    engine.finalize_object()
    return engine
