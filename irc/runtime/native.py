"""Native CPU execution: `compile_cpu(module) -> NativeFunction`.

    fn = compile_cpu(tensor_module)        # lower-to-loops, convert-to-llvm, O2, MCJIT
    outs = fn(x, y)                        # numpy arrays in (any strides), a list of arrays out

A call checks the inputs' dtypes and ranks, looks the result shapes up in a cache keyed by the
input shapes (computed from the IR on a miss, which also checks that the shapes fit), allocates
the results with numpy and makes ONE ctypes call. Object code is cached on disk (see
`object_cache.py`); a warm start lowers to loops (pure Python) and loads the object file into
MCJIT without running LLVM's optimizer (the cache verifies an entry before LLVM sees it: a
damaged one is recompiled).
"""
from __future__ import annotations

import ctypes
import functools
import time
from dataclasses import dataclass, field
from typing import Callable

import llvmlite.binding as llvm
import numpy as np

from ..base.compile_stages import LLVM_IR, LOAD, LOWER, listening, timed
from ..base.config import config
from ..codegen_cpu import background_compile
from ..codegen_cpu.compile_processes import MIN_PARALLEL_CHARS, can_fork, compile_all, process_count
from ..codegen_cpu.convert_to_llvm import convert_to_llvm
from ..codegen_cpu.entry_abi import entry_symbol
from ..codegen_cpu.kernel_split import KernelSet, decode_linked, encode_linked
from ..codegen_cpu.numpy_abi import ArrayLayout, numpy_symbol_of
from ..codegen_cpu import target as cpu_target  # codegen_identity read at each compile
from ..codegen_cpu.target import emit_object, glue_object, new_target_machine, parse_and_optimize, tier0_object
from ..dialects import loop as L
from ..dialects.builtin import ModuleOp
from ..dialects.func import FuncOp
from ..ir.printer import print_op
from ..ir.verifier import verify
from ..conversion.tensor_to_loop.context import ROWS
from ..conversion.tensor_to_loop.lower_to_loops import is_tensor_function, lower_function
from .kernel_cache import KernelCache
from .object_cache import ObjectCache, cache_key
from .shapes import ShapeError, ShapeProgram
from .threads import (configure, ensure_configured, pool_missing, pool_module_text, pool_text, promise_pool,
                      provide_pool_object, store_pool_object, use_serial_runtime)
from .tier_switch import TierSwitch

ABI_VERSION = "irc-cpu-abi-3"  # 2: parallel loops call irc_rt_parallel_for; 3: kernels linked in


@functools.lru_cache(maxsize=None)
def probe_numpy_layout():
    """numpy's `PyArrayObject_fields` offsets, checked on a live strided array; None if the
    layout is not the expected one (calls then pass data pointers, sizes and strides)."""
    layout = ArrayLayout()
    a = np.zeros((3, 5), np.float64)[:, ::2]
    base = id(a)
    try:
        data = ctypes.c_void_p.from_address(base + layout.data).value
        dims = ctypes.c_void_p.from_address(base + layout.dims).value
        strides = ctypes.c_void_p.from_address(base + layout.strides).value
        ok = (data == a.ctypes.data and dims and strides
              and list((ctypes.c_int64 * 2).from_address(dims)) == [3, 3]
              and list((ctypes.c_int64 * 2).from_address(strides)) == [40, 16])
    except (ValueError, OSError):
        ok = False
    return layout if ok else None


def _fits(a, shape: tuple, dtype: np.dtype) -> bool:
    """Whether `a` can be a result buffer: a writeable C-contiguous array of that shape/dtype."""
    return (type(a) is np.ndarray and a.shape == shape and a.dtype == dtype
            and a.flags.c_contiguous and a.flags.writeable)


@dataclass
class CompileStats:
    lower_s: float = 0.0
    llvm_s: float = 0.0
    load_s: float = 0.0
    cache_hit: bool = False
    # 0: the function runs tier-0 code until its optimized code is ready (`config.compile_tiers`)
    tier: int = 1
    optimized_after_s: float | None = None  # tier 0: seconds until the optimized code took over
    # the finer split (`base/compile_stages.py`): lowering, LLVM IR, LLVM's optimizer, machine
    # code, loading, in the order they ran
    stages: dict = field(default_factory=dict)

    def add_stage(self, stage: str, seconds: float) -> None:
        self.stages[stage] = self.stages.get(stage, 0.0) + seconds


@dataclass
class NativeFunction:
    """A compiled function: call it with numpy arrays, get a list of numpy arrays."""

    name: str
    loop_ir: str
    in_dtypes: list[np.dtype]
    in_ranks: list[int]
    in_static: list[tuple[int | None, ...]]
    out_dtypes: list[np.dtype]
    shapes: ShapeProgram
    assert_messages: list[str]
    stats: CompileStats
    assert_ops: list = field(default_factory=list, repr=False)  # the checks (`L.CHECKS`), by rc - 1
    # a warm start's function has no loop IR in memory: this finds the checks when one fails
    # (the loop text parsed then), so that the error still names the op and the user's line
    checks_source: Callable[[], list] | None = field(default=None, repr=False)
    cache_key: str = ""  # the object cache's key of the function's code ("" when not cached)
    _engine: object = field(repr=False, default=None)
    _cfunc: object = field(repr=False, default=None)
    _by_object: bool = False
    _shape_cache: dict = field(default_factory=dict, repr=False)
    # result index -> argument index the native code may write it over (`irc.inplace = N`)
    inplace_results: dict = field(default_factory=dict)
    # (result, result holding its row count): results whose rows are known after the call
    # (a scan with `until`), sized for every step; the counts are results after the user's
    row_counts: tuple = ()
    _value_args: tuple = field(init=False, repr=False, default=())
    # tier-0 code's way to the optimized code (None: the code is optimized); engines replaced
    # by it stay alive (another thread's call may still run in one)
    _tier: TierSwitch | None = field(repr=False, default=None)
    _retired: list = field(repr=False, default_factory=list)

    def __post_init__(self):
        # read on every call: one attribute instead of two
        self._value_args = tuple(self.shapes.value_args)

    def __call__(self, *args, outs: list | None = None):
        """`outs` (optional): per result, an array to write into (used when its shape, dtype
        and layout fit; None or a misfit gets a new array)."""
        if self._tier is not None:
            self._switch(block=False)
        if len(args) != len(self.in_dtypes):
            raise TypeError(f"'{self.name}' takes {len(self.in_dtypes)} inputs, got {len(args)}")
        arrays = list(args)
        for i, (a, dt) in enumerate(zip(args, self.in_dtypes)):
            if type(a) is not np.ndarray or a.dtype != dt:
                arrays[i] = self._coerce(i, a)
        key = tuple([a.shape for a in arrays])
        if self._value_args:  # result sizes that depend on argument values (n_steps)
            key += tuple([int(arrays[i]) for i in self._value_args])
        out_shapes = self._shape_cache.get(key)
        if out_shapes is None:
            out_shapes = self._result_shapes(key)
        if outs is None:
            outs = [np.empty(s, dt) for s, dt in zip(out_shapes, self.out_dtypes)]
        else:
            outs = [o if _fits(o, s, dt) else np.empty(s, dt)
                    for o, s, dt in zip(outs, out_shapes, self.out_dtypes)]
            outs += [np.empty(s, dt) for s, dt in zip(out_shapes[len(outs):], self.out_dtypes[len(outs):])]
        if self._by_object:
            rc = self._cfunc(*arrays, *outs)
        else:
            flat: list = []
            for a in arrays:
                flat.append(a.ctypes.data)
                flat.extend(a.shape)
                flat.extend(a.strides)
            flat.extend(o.ctypes.data for o in outs)
            rc = self._cfunc(*flat)
        if rc:
            err = ShapeError(f"'{self.name}': {self.assert_messages[rc - 1]}")
            err.op = self.check_op(rc - 1)
            raise err
        if self.row_counts:
            return self._rows_run(outs)
        return outs

    def _switch(self, block: bool, timeout: float | None = None) -> bool:
        """Take the optimized code if it is ready (between calls); whether the code is optimized."""
        tier = self._tier
        if tier is None:
            return True
        bound = tier.take(block, timeout)
        if bound is None:
            return False
        if self._tier is tier:
            self._retired.append(self._engine)
            self._engine, self._cfunc = bound
            self.stats.tier = 1
            self.stats.optimized_after_s = tier.seconds
            self._tier = None
        return True

    def wait_optimized(self, timeout: float | None = None) -> bool:
        """Wait (at most `timeout` seconds; None: as long as it takes) until the function runs
        its optimized code; whether it does. Benchmarks call it before timing."""
        return self._switch(block=True, timeout=timeout)

    def _rows_run(self, outs: list) -> list:
        """The user's results, each with a row count cut to the rows run (a view)."""
        for k, j in self.row_counts:
            outs[k] = outs[k][:int(outs[j])]
        return outs[:len(outs) - len(self.row_counts)]

    def check_op(self, k: int):
        """The `k`-th check of the loop IR (`L.CHECKS` in walk order), or None."""
        if not self.assert_ops and self.checks_source is not None:
            self.assert_ops = self.checks_source()
        return self.assert_ops[k] if 0 <= k < len(self.assert_ops) else None

    def _coerce(self, i: int, a) -> np.ndarray:
        dt = self.in_dtypes[i]
        if isinstance(a, np.ndarray):
            if a.dtype != dt:
                raise TypeError(f"'{self.name}': input #{i} has dtype {a.dtype}, expected {dt}")
            return np.asarray(a)  # an ndarray subclass
        arr = np.asarray(a)
        if arr.dtype.kind not in "biuf" or not np.can_cast(arr.dtype, dt, "same_kind"):
            raise TypeError(f"'{self.name}': input #{i} ({arr.dtype}) cannot be converted to {dt}")
        return arr.astype(dt)

    def _result_shapes(self, shapes: tuple) -> list[tuple[int, ...]]:
        for i, (s, rank, static) in enumerate(zip(shapes, self.in_ranks, self.in_static)):
            if len(s) != rank:
                raise ShapeError(f"'{self.name}': input #{i} has {len(s)} dimensions, expected {rank}")
            for axis, (n, d) in enumerate(zip(s, static)):
                if d is not None and n != d:
                    raise ShapeError(f"'{self.name}': input #{i} has size {n} in dim {axis}, "
                                     f"its type requires {d}")
        n = len(self.in_ranks)
        try:
            out = self.shapes.run(shapes[:n], shapes[n:])
        except ShapeError as e:
            if e.op is None and e.check is not None:
                e.op = self.check_op(e.check)
            raise
        if len(self._shape_cache) > 256:
            self._shape_cache.clear()
        self._shape_cache[shapes] = out
        return out


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


def cached_objects(entry: bytes | None, kernels: KernelCache) -> list[bytes] | None:
    """The function's object and its kernels' from the cache; None if any is missing."""
    linked = decode_linked(entry) if entry is not None else None
    if linked is None:
        return None
    keys, main = linked
    objects = [main]
    for k in keys:  # every kernel linked in, those that kernels call included
        body = kernels.load(k)
        kernel = decode_linked(body) if body is not None else None
        if kernel is None:
            return None
        objects.append(kernel[1])
    return objects


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


def load_symbol(obj: bytes | list[bytes], symbol: str, in_ranks: list[int], n_results: int, by_object: bool,
                runtime: Callable[[], object] = configure) -> tuple:
    """(engine, entry point) of the function exported as `symbol` (`entry_symbol`): its
    numpy-object wrapper when `by_object`, else the flat pointer/size/stride ABI."""
    engine = load_object(obj, runtime)
    if by_object:
        addr = engine.get_function_address(numpy_symbol_of(symbol))
        return engine, ctypes.CFUNCTYPE(ctypes.c_int32, *([ctypes.py_object] * (len(in_ranks) + n_results)))(addr)
    addr = engine.get_function_address(symbol)
    argtypes: list = []
    for rank in in_ranks:
        argtypes += [ctypes.c_void_p] + [ctypes.c_int64] * (2 * rank)
    argtypes += [ctypes.c_void_p] * n_results
    return engine, ctypes.CFUNCTYPE(ctypes.c_int32, *argtypes)(addr)


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
        store_function(compile_all(todo, compile_and_store, max(1, process_count() - 1)))

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


def load_object(obj: bytes | list[bytes], runtime: Callable[[], object] = configure):
    """An MCJIT engine holding only these object files, linked (no LLVM optimization runs here).
    `runtime()` runs first, since the runtime's symbols must resolve when the object loads:
    `configure` (the pool, with `config.cpu_threads` applied: every compile), `ensure_configured`
    (a tier switch) or `use_serial_runtime` (tier-0 code before the pool exists)."""
    runtime()
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), new_target_machine())
    for o in [obj] if isinstance(obj, bytes) else obj:
        engine.add_object_file(llvm.ObjectFileRef.from_data(o))
    engine.finalize_object()
    return engine
