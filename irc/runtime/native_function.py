"""A compiled CPU function as the runtime calls it (`NativeFunction`): what a warm start needs
of the native runtime, apart from the lowering, the code generator (`native.py`) and MCJIT
(`native_jit.py`), so that a hit from a shared library imports none of them (nor llvmlite)."""
from __future__ import annotations

import ctypes
import functools
from typing import TYPE_CHECKING, Callable

import numpy as np

from ..codegen_cpu.array_layout import ArrayLayout
from ..codegen_cpu.linked_objects import decode_linked
from .kernel_cache import KernelCache
from .shapes import ShapeError, ShapeProgram

if TYPE_CHECKING:
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


class CompileStats:
    """Where a function's compile time went (plain classes here, not dataclasses: making
    those cost ~1 ms of every warm start's imports)."""

    def __init__(self, lower_s: float = 0.0, llvm_s: float = 0.0, load_s: float = 0.0, cache_hit: bool = False,
                 tier: int = 1, optimized_after_s: float | None = None, stages: dict | None = None):
        self.lower_s, self.llvm_s, self.load_s, self.cache_hit = lower_s, llvm_s, load_s, cache_hit
        # 0: the function runs tier-0 code until its optimized code is ready (`config.compile_tiers`)
        self.tier = tier
        self.optimized_after_s = optimized_after_s  # tier 0: seconds until the optimized code took over
        # the finer split (`base/compile_stages.py`): lowering, LLVM IR, LLVM's optimizer, machine
        # code, loading, in the order they ran
        self.stages: dict = {} if stages is None else stages

    def __repr__(self) -> str:
        return (f"CompileStats(lower_s={self.lower_s!r}, llvm_s={self.llvm_s!r}, load_s={self.load_s!r}, "
                f"cache_hit={self.cache_hit!r}, tier={self.tier!r}, optimized_after_s={self.optimized_after_s!r}, "
                f"stages={self.stages!r})")

    def add_stage(self, stage: str, seconds: float) -> None:
        self.stages[stage] = self.stages.get(stage, 0.0) + seconds


class NativeFunction:
    """A compiled function: call it with numpy arrays, get a list of numpy arrays."""

    def __init__(self, name: str, loop_ir: str, in_dtypes: list[np.dtype], in_ranks: list[int],
                 in_static: list[tuple[int | None, ...]], out_dtypes: list[np.dtype], shapes: ShapeProgram,
                 assert_messages: list[str], stats: CompileStats, assert_ops: list | None = None,
                 checks_source: Callable[[], list] | None = None, cache_key: str = "", _engine: object = None,
                 _cfunc: object = None, _by_object: bool = False, inplace_results: dict | None = None,
                 row_counts: tuple = (), _tier: "TierSwitch | None" = None):
        self.name, self.loop_ir, self.stats = name, loop_ir, stats
        self.in_dtypes, self.in_ranks, self.in_static, self.out_dtypes = in_dtypes, in_ranks, in_static, out_dtypes
        self.shapes, self.assert_messages = shapes, assert_messages
        self.assert_ops = [] if assert_ops is None else assert_ops  # the checks (`L.CHECKS`), by rc - 1
        # a warm start's function has no loop IR in memory: this finds the checks when one fails
        # (the loop text parsed then), so that the error still names the op and the user's line
        self.checks_source = checks_source
        self.cache_key = cache_key  # the object cache's key of the function's code ("" when not cached)
        self._engine, self._cfunc, self._by_object = _engine, _cfunc, _by_object
        self._shape_cache: dict = {}
        # result index -> argument index the native code may write it over (`irc.inplace = N`)
        self.inplace_results = {} if inplace_results is None else inplace_results
        # (result, result holding its row count): results whose rows are known after the call
        # (a scan with `until`), sized for every step; the counts are results after the user's
        self.row_counts = row_counts
        # read on every call: one attribute instead of two
        self._value_args = tuple(shapes.value_args)
        # tier-0 code's way to the optimized code (None: the code is optimized); engines replaced
        # by it stay alive (another thread's call may still run in one)
        self._tier = _tier
        self._retired: list = []

    def __repr__(self) -> str:
        return (f"NativeFunction(name={self.name!r}, in_dtypes={self.in_dtypes!r}, in_ranks={self.in_ranks!r}, "
                f"out_dtypes={self.out_dtypes!r}, cache_key={self.cache_key!r})")

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

    def wait_background(self, timeout: float | None = None) -> None:
        """Wait (at most `timeout` seconds) until the background process optimizing this
        function's code has stored it in the cache, without switching to it (at exit)."""
        child = self._tier.child if self._tier is not None else None
        if child is not None:
            child.poll(timeout)

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


def entry_point(address: int, in_ranks: list[int], n_results: int, by_object: bool):
    """The entry point at `address` as a ctypes function: the numpy-object wrapper's ABI when
    `by_object` (`numpy_symbol_of`), else the flat pointer/size/stride ABI."""
    if by_object:
        return ctypes.CFUNCTYPE(ctypes.c_int32, *([ctypes.py_object] * (len(in_ranks) + n_results)))(address)
    argtypes: list = []
    for rank in in_ranks:
        argtypes += [ctypes.c_void_p] + [ctypes.c_int64] * (2 * rank)
    argtypes += [ctypes.c_void_p] * n_results
    return ctypes.CFUNCTYPE(ctypes.c_int32, *argtypes)(address)
