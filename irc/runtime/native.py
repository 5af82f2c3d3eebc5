"""Native CPU execution: `compile_cpu(module) -> NativeFunction`.

    fn = compile_cpu(tensor_module)        # lower-to-loops, convert-to-llvm, O2, MCJIT
    outs = fn(x, y)                        # numpy arrays in (any strides), a list of arrays out

A call checks the inputs' dtypes and ranks, looks the result shapes up in a cache keyed by the
input shapes (computed from the IR on a miss, which also checks that the shapes fit), allocates
the results with numpy and makes ONE ctypes call. Object code is cached on disk (see
`object_cache.py`); a hit here lowers to loops (pure Python) and loads the object file into
MCJIT without running LLVM's optimizer (the cache verifies an entry before LLVM sees it: a
damaged one is recompiled). A warm start keyed before the passes (`warm_start.py`) does not
come here: it binds the function from its entry (`native_warm.py`, `native_function.py`).
"""
from __future__ import annotations

import time
from typing import Callable

import numpy as np

from ..base.compile_stages import LLVM_IR, LOAD, LOWER, listening, timed
from ..base.config import config
from ..codegen_cpu import background_compile
from ..codegen_cpu.compile_processes import MIN_PARALLEL_CHARS, can_fork, compile_all, process_count
from ..codegen_cpu.convert_to_llvm import convert_to_llvm
from ..codegen_cpu.entry_abi import entry_symbol
from ..codegen_cpu.kernel_split import KernelSet, decode_linked, encode_linked
from ..codegen_cpu import target as cpu_target  # codegen_identity read at each compile
from ..codegen_cpu.target import emit_object, glue_object, parse_and_optimize, tier0_object
from ..dialects import loop as L
from ..dialects.builtin import ModuleOp
from ..dialects.func import FuncOp
from ..ir.printer import print_op
from ..ir.verifier import verify
from ..conversion.tensor_to_loop.context import ROWS
from ..conversion.tensor_to_loop.lower_to_loops import is_tensor_function, lower_function
from .kernel_cache import KernelCache
from .library_link import link_function
from .native_function import ABI_VERSION, CompileStats, NativeFunction, cached_objects, probe_numpy_layout
from .native_jit import load_object, load_symbol  # noqa: F401  (load_object: re-exported)
from .object_cache import ObjectCache, cache_key
from .shapes import ShapeProgram
from .threads import (configure, ensure_configured, pool_missing, pool_module_text, pool_text, promise_pool,
                      provide_pool_object, store_pool_object, use_serial_runtime)
from .tier_switch import TierSwitch


def _select_function(module: ModuleOp, name: str | None) -> FuncOp:
    funcs = [op for op in module.body.ops if isinstance(op, FuncOp)]
    if name is not None:
        funcs = [f for f in funcs if f.sym_name == name]
    if len(funcs) != 1:
        raise ValueError(f"compile_cpu needs exactly one function{f' named {name!r}' if name else ''}, "
                         f"found {len(funcs)}")
    return funcs[0]


def lower_module(module: ModuleOp, name: str | None = None, allow_gc: bool = True) -> ModuleOp:
    """The loop-level module of one tensor-level function (the input is not modified);
    `allow_gc=False` keeps temporaries in a workspace across calls."""
    func = _select_function(module, name)
    loop_func = lower_function(func, allow_gc) if is_tensor_function(func) else func.clone()
    return ModuleOp.create([loop_func])


def compile_cpu(module: ModuleOp, name: str | None = None, cache_dir: str | None = None,
                use_cache: bool = True, allow_gc: bool = True) -> NativeFunction:
    """Compile one tensor-level (or loop-level) function of `module` for the host CPU
    (`allow_gc=False`: temporaries stay allocated between calls; calls must not overlap)."""
    stats = CompileStats()
    with listening(stats.add_stage):
        return _compile_cpu(module, name, cache_dir, use_cache, allow_gc, stats)


def _compile_cpu(module: ModuleOp, name: str | None, cache_dir: str | None, use_cache: bool, allow_gc: bool,
                 stats: CompileStats) -> NativeFunction:
    t0 = time.perf_counter()
    tiers = use_cache and config.compile_tiers and can_fork()
    func = _select_function(module, name)
    with timed(LOWER):
        loop_module = lower_module(module, name, allow_gc)
    loop_func: FuncOp = loop_module.body.ops[0]
    verify(loop_module)
    text = print_op(loop_module)
    stats.lower_s = time.perf_counter() - t0
    layout = probe_numpy_layout()
    key = cache_key(ABI_VERSION, text, cpu_target.codegen_identity(), layout.key() if layout else "flat")
    cache = ObjectCache(cache_dir)
    kernels = KernelCache(cache_dir, enabled=use_cache)
    objects = cached_objects(cache.load(key), kernels) if use_cache else None
    stats.cache_hit = objects is not None
    later = None
    if objects is None:
        t1 = time.perf_counter()
        tiered = (cache_dir, key) if tiers else None
        keys, main, objects, later = build_objects(loop_module, layout, kernels, tiered)
        stats.llvm_s = time.perf_counter() - t1
        if use_cache and later is None:
            cache.store(key, encode_linked(keys, main))
    # tier-0 code before the process has its pool runs on the serial runtime (the background
    # process compiles the pool); the switch starts the pool then, or leaves it as it is (a
    # thread count set since, by `set_num_threads`, stays)
    serial = later is not None and pool_missing()
    native = bind_native(func, loop_func, text, objects, layout, stats, use_serial_runtime if serial else configure)
    native.cache_key = key if use_cache else ""
    if later is not None:
        stats.tier = 0
        native._tier = TierSwitch(later[0], later[1],
                                  lambda objs: load_entry(objs, loop_func, layout, ensure_configured))
    return native


def bind_native(func: FuncOp, loop_func: FuncOp, loop_text: str, obj: bytes | list[bytes], layout,
                stats: "CompileStats", runtime: Callable[[], object] = configure) -> NativeFunction:
    """Load object code (the function's, then its kernels') and wrap its entry point (the
    numpy-object ABI when `layout` is known, else the flat pointer/size/stride ABI) as a
    `NativeFunction`."""
    t2 = time.perf_counter()
    with timed(LOAD):
        engine, cfunc = load_entry(obj, loop_func, layout, runtime)
    stats.load_s = time.perf_counter() - t2
    ft = loop_func.function_type
    asserts = [op for op in loop_func.walk() if isinstance(op, L.CHECKS)]
    return NativeFunction(
        name=func.sym_name, loop_ir=loop_text,
        in_dtypes=[np.dtype(t.element.numpy_name) for t in ft.inputs],
        in_ranks=[t.rank for t in ft.inputs],
        in_static=[tuple(t.shape) for t in func.function_type.inputs],
        out_dtypes=[np.dtype(t.element.numpy_name) for t in ft.results],
        shapes=ShapeProgram.of(loop_func),
        assert_messages=[op.message for op in asserts], assert_ops=asserts,
        stats=stats, _engine=engine, _cfunc=cfunc, _by_object=layout is not None,
        inplace_results=inplace_results(loop_func), row_counts=row_counts(loop_func))


def load_entry(obj: bytes | list[bytes], loop_func: FuncOp, layout, runtime: Callable[[], object] = configure) -> tuple:
    """(engine, entry point as a ctypes function) of the loaded object code."""
    ft = loop_func.function_type
    return load_symbol(obj, entry_symbol(loop_func), [t.rank for t in ft.inputs], len(ft.results),
                       layout is not None, runtime)


def row_counts(loop_func: FuncOp) -> tuple[tuple[int, int], ...]:
    """(result, result holding its row count) for each result marked `irc.rows`."""
    found = []
    for k in range(len(loop_func.function_type.results)):
        attr = loop_func.res_attrs(k).get(ROWS)
        if attr is not None:
            found.append((k, attr.value))
    return tuple(found)


def inplace_results(loop_func: FuncOp) -> dict[int, int]:
    found = {}
    for k in range(len(loop_func.function_type.results)):
        attr = loop_func.res_attrs(k).get("irc.inplace")
        if attr is not None:
            found[k] = attr.value
    return found


def build_object(loop_module: ModuleOp, layout=None) -> bytes:
    """convert-to-llvm, the O2 pipeline, object code: one object file holding everything."""
    with timed(LLVM_IR):
        llvm_module = convert_to_llvm(loop_module, numpy_layout=layout)
    return emit_object(parse_and_optimize(llvm_module))


def build_objects(loop_module: ModuleOp, layout, kernels: KernelCache, tiered: tuple | None = None) \
        -> tuple[list[str], bytes, list[bytes], tuple | None]:
    """(kernel keys, the function's object, every object to load, None): convert-to-llvm with
    each parallel nest a kernel of its own (`kernel_split.py`); only kernels that `kernels`
    does not hold are optimized and compiled, and then stored there.

    `tiered` = (cache folder, the function's cache key): when the modules to compile are
    worth it, they are compiled at tier 0 here (stored nowhere) and optimized by a background
    process that stores them (`_start_optimizing`); the last item is then (the child, a
    callable giving the optimized objects once it is done)."""
    found = KernelSet(kernel_salt(), kernels.load)
    with timed(LLVM_IR):
        llvm_module = convert_to_llvm(loop_module, numpy_layout=layout, kernels=found)
        texts = {GLUE: str(llvm_module), **{key: str(module) for key, module in found.modules.items()}}
    keys = found.keys()
    if tiered is not None and sum(map(len, texts.values())) >= MIN_PARALLEL_CHARS:
        with_pool = promise_pool()  # the pool is missing: the background process builds it
        compiled = compile_all(texts, _tier0_module)  # side by side when it pays
        # forked after the quick code: on a busy machine a child started first took a core from it
        later = _start_optimizing(texts, found, keys, kernels, *tiered, with_pool)
        main = compiled.pop(GLUE)
        objects = {**found.objects, **compiled}
        return keys, main, [main, *(objects[k] for k in keys)], later
    with timed(LLVM_IR):
        pool = pool_module_text()  # a process's first compile on an empty cache builds the pool too
    if pool is not None:
        texts[POOL] = pool
    compiled = compile_all(texts, _compile_module)  # in forked processes too, when it pays
    if pool is not None:
        provide_pool_object(compiled.pop(POOL))
    main = compiled.pop(GLUE)
    objects = {**found.objects, **compiled}
    for key in found.modules:
        kernels.store(key, encode_linked(found.calls[key], objects[key]))
    return keys, main, [main, *(objects[k] for k in keys)], None


def _start_optimizing(texts: dict[str, str], found: KernelSet, keys: list[str], kernels: KernelCache,
                      cache_dir: str | None, function_key: str, with_pool: bool) -> tuple:
    """A background process compiling `texts` (and the thread pool, `with_pool`) at the normal
    level into the cache, and what gives the optimized objects once it is done: read from the
    cache it wrote, each one it failed to store (it died, the disk is full) compiled in this
    process (the pool then by `threads._build`)."""
    def compile_and_store(key: str, text: str) -> bytes:
        obj = _compile_module(key, text)
        if key == POOL:
            store_pool_object(obj)
        elif key != GLUE:
            kernels.store(key, encode_linked(found.calls[key], obj))
        return obj

    def work() -> None:  # in the child: the pool's IR is built there too
        todo = {**texts, POOL: pool_text()} if with_pool else texts
        compiled = compile_all(todo, compile_and_store, max(1, process_count() - 1))
        store_function(compiled)
        objects = {**found.objects, **compiled}  # the next process's warm start loads them as one library
        link_function([objects[GLUE], *(objects[k] for k in keys)], function_key, cache_dir, compiled.get(POOL))

    def store_function(objects: dict[str, bytes]) -> None:  # after its kernels: it counts only with them
        ObjectCache(cache_dir).store(function_key, encode_linked(keys, objects[GLUE]))

    def optimized() -> list[bytes]:
        cache = ObjectCache(cache_dir)
        fresh = KernelCache(cache_dir)  # new lookups: the child wrote these entries
        objects = cached_objects(cache.load(function_key), fresh)
        if objects is not None:
            return objects
        got = dict(found.objects)
        for key, text in texts.items():
            if key != GLUE:
                kernel = decode_linked(fresh.load(key) or b"")
                got[key] = kernel[1] if kernel is not None else compile_and_store(key, text)
        got[GLUE] = _compile_module(GLUE, texts[GLUE])
        store_function(got)
        return [got[GLUE], *(got[k] for k in keys)]

    return background_compile.start_task(work), optimized


GLUE = "glue"  # the function's own module among the kernels' (whose keys are hashes)
POOL = "thread pool"  # the thread pool's (`threads.py`), when it is not built yet


def _compile_module(key: str, text: str) -> bytes:
    """Object code of the function's own module (two passes) or of a kernel's (O2)."""
    return glue_object(text) if key == GLUE else emit_object(parse_and_optimize(text))


def _tier0_module(key: str, text: str) -> bytes:
    return tier0_object(text)


def kernel_salt() -> str:
    """What a kernel's object depends on besides its IR: the ABI and the code generator."""
    return ABI_VERSION + "|" + cpu_target.codegen_identity()
