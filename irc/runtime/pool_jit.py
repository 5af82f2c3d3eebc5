"""The thread pool's side that needs llvmlite (`threads.py` keeps the pool's state and imports
this only where it compiles or loads code into MCJIT): its IR and cache key, its object loaded
into MCJIT, the serial runtime for tier-0 code, and the pool's symbols made resolvable for
the code MCJIT loads."""
from __future__ import annotations

import llvmlite.binding as llvm

from ..codegen_cpu.libcalls import LIBCALLS, add_libcalls
from ..codegen_cpu.serial_runtime import build_serial_runtime_module
from ..codegen_cpu.target import codegen_identity, emit_object, new_target_machine, parse_and_optimize, tier0_object
from ..codegen_cpu.thread_pool import PARALLEL_FOR, build_pool_module
from .object_cache import ObjectCache, cache_key

_SERIAL: list = []  # the serial runtime's engine, once loaded (`give_serial_runtime`)


def pool_key() -> str:
    return cache_key("irc-thread-pool", codegen_identity())


def pool_module():
    module = build_pool_module(llvm.get_process_triple())
    add_libcalls(module)
    return module


def give_serial_runtime() -> None:
    """The serial runtime's symbols for the code MCJIT loads next (tier-0 code before the pool
    exists; the caller holds the pool's lock)."""
    if not _SERIAL:
        engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), new_target_machine())
        engine.add_object_file(llvm.ObjectFileRef.from_data(
            tier0_object(build_serial_runtime_module(llvm.get_process_triple()))))
        engine.finalize_object()
        _SERIAL.append(engine)
    add_symbols({name: _SERIAL[0].get_function_address(name) for name in (PARALLEL_FOR, *LIBCALLS)})


def build_pool(obj: bytes | None):
    """An MCJIT engine holding the pool (`obj`, else the cached object, else compiled now and cached)."""
    cache = ObjectCache(kind="runtime")
    key = pool_key()
    if obj is None:
        obj = cache.load(key)
    if obj is None:
        obj = emit_object(parse_and_optimize(pool_module()))
        cache.store(key, obj)
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), new_target_machine())
    engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
    engine.finalize_object()
    return engine


def add_symbols(symbols: dict[str, int]) -> None:
    """Make these addresses what MCJIT's code resolves the names to from now on."""
    for name, address in symbols.items():
        llvm.add_symbol(name, address)
