"""The serial runtime that tier-0 code runs against before the process has its thread pool
(`codegen_cpu/serial_runtime.py`): `irc_rt_parallel_for` runs the whole range once on the
calling thread, nothing when it is empty, and the runtime-library functions are there."""
from __future__ import annotations

import ctypes

import llvmlite.binding as llvm

from irc.codegen_cpu.libcalls import LIBCALLS
from irc.codegen_cpu.serial_runtime import build_serial_runtime_module
from irc.codegen_cpu.target import new_target_machine, tier0_object
from irc.codegen_cpu.thread_pool import PARALLEL_FOR

BODY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)


def test_parallel_for_runs_the_whole_range_once_on_the_caller():
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), new_target_machine())
    engine.add_object_file(llvm.ObjectFileRef.from_data(tier0_object(build_serial_runtime_module(
        llvm.get_process_triple()))))
    engine.finalize_object()
    parallel_for = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)(
        engine.get_function_address(PARALLEL_FOR))
    ranges = []
    body = BODY(lambda ctx, lo, hi: ranges.append((ctx, lo, hi)))
    fn = ctypes.cast(body, ctypes.c_void_p)
    parallel_for(fn, 1234, 10_000, 1 << 40)  # a large work estimate: the pool would split it
    parallel_for(fn, 1234, 0, 1 << 40)
    parallel_for(fn, 1234, -3, 0)
    assert ranges == [(1234, 0, 10_000)]
    assert all(engine.get_function_address(name) for name in LIBCALLS)
