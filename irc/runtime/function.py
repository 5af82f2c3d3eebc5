"""`Function`: the callable `irc.function` returns.

It checks the arguments (count, names, dtype, rank) with errors a user can act on, passes the
shared variables' values after the inputs, runs the executor, copies outputs the caller might
otherwise share with irc (unless the compiled function marks the result `irc.borrow`), and only
then writes every update, all at once."""
from __future__ import annotations

import copy as copy_module
import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from ..base.config import config
from ..base.device import CPU
from ..dialects.func import FuncOp
from ..dialects.tensor_custom import user_op_impls
from ..ir.parser import parse_module
from ..passes.pipelines import optimize
from .errors import InputError
from .function_state import FunctionState, attribute_parts, check_picklable, module_text, \
    rebuild_executor, recompile_on, without_updates
from .graph_view import graph_view
from .input_state import InputContainer, InputLookup
from .segments import part_modules
from .ir_dump import dump_function
from .targets import TARGETS, Target

_MISSING = object()


@dataclass
class InputSpec:
    """One user input: the variable, the name keyword arguments use, and the cell that holds
    its value between calls (`container`: its default, `In(value=...)`; another function's cell
    shares its state; an empty one is made here unless given). `updated`: the function writes a
    new value into the cell after each call (`In(x, update=...)`); `implicit`: the caller never
    passes it (it is not an argument)."""

    variable: Any
    name: str | None
    borrow: bool = False
    mutable: bool = False
    container: Any = None
    updated: bool = False
    implicit: bool = False
    strict: bool = False
    allow_downcast: bool | None = None  # None: the function's `allow_input_downcast`

    def __post_init__(self) -> None:
        t = self.variable.type
        if self.container is None:
            self.container = InputContainer(t)
        self.type = t
        self.dtype = t.dtype
        self.np_dtype = np.dtype(t.dtype)  # compared by identity first: `dtype.name` is slow
        self.ndim = t.ndim
        self.plain = not any(t.broadcastable)  # no size-1 dimensions to check


@dataclass
class OutputSpec:
    """How results are handed back: `kind` is "single", "list" or "dict" (with `keys`). Which
    ones are borrowed is the compiled function's to say (`borrowed_results`)."""

    kind: str
    count: int
    keys: Sequence[Any] = ()
    # inputs (by position) whose cells take the results after the outputs: `In(update=...)`
    state: Sequence[int] = ()


def outputs_as_list(function: "Function") -> "Function":
    """Theano's copies return their outputs as a list even where the original returned a single
    value (its `copy` gives the new FunctionMaker the outputs as a list): the tutorial's
    `new_accumulator(100)` is `[array(0)]` and Theano's test_copy_delete_updates reads `cpy(1)[0]`.
    The spec is replaced, not changed: a `share_memory` copy shares it with the original."""
    if function.output_spec.kind == "single":
        function.output_spec = dataclasses.replace(function.output_spec, kind="list")
    return function


def borrowed_results(func: FuncOp, count: int) -> list[bool]:
    """Per user output of `func`: marked `irc.borrow` (`Out(borrow=True)`), so the caller gets
    irc's array without a copy, and a later call may write over it. The signature says it, so
    a dumped module says it too."""
    return ["irc.borrow" in func.res_attrs(k) for k in range(count)]


class FunctionMaker:
    """What compiled the function (Theano's `f.maker`): the mode, the module, the stages."""

    def __init__(self, mode: str, module: Any, stages: dict[str, str], inputs: Sequence[InputSpec],
                 outputs: Sequence[Any], target: Target | None = None):
        """`module` None: a warm start's, parsed from `stages["optimized"]` when first asked for."""
        self.mode = mode
        self.target = target if target is not None else TARGETS[CPU]
        self._module = module
        self.stages = stages
        # a warm start's `borrowed_results`, kept in its entry (None: read from the module)
        self.borrowed: list[bool] | None = None
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.native: Any = None  # the NativeFunction when the function runs as native code
        self.allow_gc = True  # False: temporaries kept between calls (the '_nogc' linkers)
        self.reference = False  # the 'py' linker: the reference executor, op by op
        self.debug_labels: list[str] | None = None  # DebugMode: the names of the results checked
        self.excluding: tuple[str, ...] = ()  # rewrite tags turned off (flag and mode) at compile
        # seconds per compile stage (frontend, each pass, lowering, LLVM IR, LLVM's optimizer,
        # machine code, loading): what `profile=True` reports, kept for every function
        self.compile_times: dict[str, float] = {}
        self._fgraph = None
        self._replayed = False

    def replay_passes(self) -> None:
        """Add each pass's text to `stages` by running the mode's pipeline again over the
        "tensor" text (compiling records only the ends, to keep compiles fast)."""
        if self._replayed or "tensor" not in self.stages:
            return
        self._replayed = True
        module = parse_module(self.stages["tensor"], "<stage tensor>")
        name = getattr(self.func, "sym_name", "main")
        for key, text in optimize(module, self.mode, name, per_pass=True,
                                  device=self.target.placement).items():
            self.stages.setdefault(key, text)

    def borrowed_results(self, count: int) -> list[bool]:
        """`borrowed_results` of the module; a warm start's flags until its module is parsed."""
        if self._module is None and self.borrowed is not None:
            return list(self.borrowed)
        return borrowed_results(self.func, count)

    @property
    def module(self) -> Any:
        """The optimized tensor-level module."""
        if self._module is None:
            self._module = parse_module(self.stages["optimized"], "<optimized module of a warm start>")
        return self._module

    @property
    def func(self) -> Any:
        return self.module.regions[0].blocks[0].ops[0]

    @property
    def fgraph(self) -> Any:
        if self._fgraph is None:
            self._fgraph = graph_view(self.func)
        return self._fgraph


def _fresh(value: Any, protected: set[int]) -> bool:
    """An array produced by this call that nothing else holds (safe to hand over)."""
    return type(value) is np.ndarray and value.base is None and id(value) not in protected


class Function:
    """A compiled function. Call with positional or keyword (by input name) arguments."""

    def __init__(self, maker: FunctionMaker, executor: Any, inputs: Sequence[InputSpec],
                 shared: Sequence[Any], outputs: OutputSpec, updated: Sequence[Any],
                 name: str | None = None, allow_input_downcast: bool | None = None,
                 profile: Any = None):
        self.maker = maker
        self.executor = executor
        self.inputs = list(inputs)
        self.shared = list(shared)
        self.output_spec = outputs
        self._borrowed = maker.borrowed_results(outputs.count)
        self.updated = list(updated)
        self.name = name
        self.allow_input_downcast = allow_input_downcast
        self.profile = profile
        self._by_name = {s.name: i for i, s in enumerate(self.inputs) if s.name and not s.implicit}
        named = [s.name for s in self.inputs if s.name and not s.implicit]
        self._ambiguous = {n for n in named if named.count(n) > 1}  # names a keyword cannot pick
        self._arguments = [i for i, s in enumerate(self.inputs) if not s.implicit]  # what args fill
        self._plain_call = len(self._arguments) == len(self.inputs)
        self._n_state = len(outputs.state)
        # Native code returns fresh arrays of the declared dtypes that alias nothing: no copies
        # and no re-checks are needed, and updates can simply swap the containers' arrays.
        self._fresh_results = bool(getattr(executor, "fresh_results", False))
        self._containers = [getattr(s, "container", None) for s in self.shared]
        self._updated_containers = [getattr(s, "container", None) for s in self.updated]
        if None in self._containers or None in self._updated_containers:
            self._fresh_results = False
        self._constant_ids = {id(v) for v in getattr(executor, "constants", {}).values()}
        self._n_results = outputs.count + self._n_state + len(self.updated)
        self._plan_buffers(getattr(executor, "native", None))

    def _plan_buffers(self, native: Any) -> None:
        """Which result buffers the native code may be handed instead of fresh arrays: the
        shared variable's own storage for an update computed in place (`irc.inplace = N`, see
        the inplace pass), and the previous array of an `Out(borrow=True)` result."""
        self._inplace_outs: list[tuple[int, Any]] = []
        self._borrow_outs: list[int] = []
        self._last: dict[int, Any] = {}
        if not self._fresh_results or native is None:
            return
        n_in = len(self.inputs)
        for k, arg in getattr(native, "inplace_results", {}).items():
            if n_in <= arg < n_in + len(self._containers):
                self._inplace_outs.append((k, self._containers[arg - n_in]))
        self._borrow_outs = [k for k, b in enumerate(self._borrowed) if b]

    def copy(self, share_memory: bool = False, swap: dict | None = None, delete_updates: bool = False,
             name: str | None = None, profile: Any = None) -> "Function":
        """Theano's `Function.copy`: the same computation with shared variables swapped
        (`swap={old: new}`, same types; the user's graph is not changed), without its updates
        (`delete_updates`), under `name`. With `share_memory` and no other change the copy runs
        the same compiled code and temporaries; otherwise the graph is compiled again (the
        object cache makes that cheap) and the copy has its own. A function loaded from a
        pickle keeps no graph: its copies rebuild the compiled module (without updates: the
        module as lowered, optimized again), and cannot be profiled. As in Theano, a copy hands
        back a list even where this function returns one value (`outputs_as_list`)."""
        swap = dict(swap or {})
        for old, new in swap.items():
            if not any(old is s for s in self.shared):
                raise ValueError(f"{self._where()}.copy: swap key {old} is not a shared variable this "
                                 f"function uses (it uses: {', '.join(map(str, self.shared)) or 'none'})")
            if not (hasattr(new, "get_value") and getattr(new, "type", None) == old.type):
                raise TypeError(f"{self._where()}.copy: {old} ({old.type}) can only be swapped for a "
                                f"shared variable of the same type, got {new!r} "
                                f"({getattr(new, 'type', type(new).__name__)})")
        name = name if name is not None else self.name
        if share_memory and not delete_updates and profile is None:
            return outputs_as_list(type(self)(
                self.maker, self.executor, self.inputs, [swap.get(s, s) for s in self.shared], self.output_spec,
                [swap.get(s, s) for s in self.updated], name, self.allow_input_downcast, self.profile))
        recompile = getattr(self, "recompile", None)
        if recompile is not None:
            return outputs_as_list(recompile(swap, delete_updates, name, profile))
        if profile is not None:
            raise NotImplementedError(
                f"{self._where()} was loaded from a pickle, which keeps its compiled module but not "
                f"the graph it was compiled from: copy(profile=...) needs that graph (compile it "
                f"again with irc.function, profile=...)")
        state = dataclasses.replace(self._state(swap), name=name)
        return outputs_as_list(rebuild_function(without_updates(state) if delete_updates else state))

    # -- pickling and copying (Theano's `_pickle_Function`): see runtime/function_state.py
    def _state(self, swap: dict | None = None) -> FunctionState:
        """What this function is rebuilt from (shared variables swapped as `swap` says)."""
        maker, swap = self.maker, swap or {}
        stages = {k: v for k, v in maker.stages.items() if k not in maker.target.stages}
        return FunctionState(module_text(maker.module), maker.target.name, maker.mode, stages,
                             list(self.inputs), [swap.get(s, s) for s in self.shared], self.output_spec,
                             [swap.get(s, s) for s in self.updated], self.name,
                             self.allow_input_downcast, maker.allow_gc, maker.reference,
                             maker.debug_labels, maker.excluding, user_op_impls(maker.module))

    def _pickled_parts(self) -> list[tuple[str, Any]]:
        """The user's objects a pickle of this function holds, each with what it is to the
        function (a shared variable's value is left out: arrays always pickle)."""
        parts: list[tuple[str, Any]] = []
        for i, spec in enumerate(self.inputs):
            label = f"input {spec.name!r}" if spec.name else f"input {spec.variable}"
            parts += attribute_parts(f"{label} (#{i})", spec.variable)
            if spec.container.value is not None:  # `In(value=)`, or the state an update left
                parts.append((f"the default value of {label} (#{i})", spec.container.value))
        for s in self.shared:
            # its value and its device pickle as an array and a target's name (`__getstate__`)
            parts += attribute_parts(f"shared variable {s}", s, skip=("container", "_to_storage"))
        for key, impl in user_op_impls(self.maker.module).items():
            parts.append((f"user op {key} (its class must be importable by module and name)", impl))
        return parts

    def __reduce_ex__(self, protocol: Any) -> tuple:
        state = self._state()
        check_picklable(self._where(), self._pickled_parts())
        return load_function, (state,)

    def __deepcopy__(self, memo: dict) -> "Function":
        """An independent function: its own copies of the shared variables (one copy each,
        however many functions of one `deepcopy` read them) and of the input defaults."""
        state = copy_module.deepcopy(self._state(), memo)
        fn = rebuild_function(state)
        recompile = getattr(self, "recompile", None)
        if recompile is not None:  # copy(delete_updates=True) compiles the graph on the copies
            copies = dict(zip(self.shared + self.updated, state.shared + state.updated))
            fn.recompile = recompile_on(recompile, copies)
        return fn

    def __copy__(self) -> "Function":
        return self.copy()

    # -- inspection
    def ir(self, stage: str = "optimized") -> str:
        """The module text at `stage`: "tensor" (as lowered), a pass name (after it; `name#2`
        for its second run), "optimized" (final tensor level), "loop" (what the native code is
        built from), or a stage of the target, rendered on request: on the cpu "llvm" (LLVM IR
        after O2), "llvm-raw" and "asm" (host assembly), on a GPU "gpu" (kernels), "ptx" and
        "nvvm" (see `irc-opt --list-targets`)."""
        stages, target = self.maker.stages, self.maker.target
        if stage in target.stages and stage not in stages:
            parts = part_modules(self.maker.module)  # user ops: rendered part by part
            stages[stage] = "\n".join(target.render(stage, target.codegen_input(m))
                                       for m in (parts if parts is not None else [self.maker.module]))
        if stage not in stages:
            self.maker.replay_passes()
        if stage not in stages:
            raise KeyError(f"no IR stage {stage!r}; available: {', '.join(stages)}")
        return stages[stage]

    def wait_optimized(self, timeout: float | None = None) -> bool:
        """Wait until the function runs its optimized native code, and say whether it does.
        With `irc.config.compile_tiers` a cache miss first runs quickly compiled code while a
        background process optimizes it, switched to between calls; benchmarks wait here
        before timing. At most `timeout` seconds for each native part (None: as long as it
        takes); True at once for optimized code, a cache hit, or a function that is not native."""
        natives = [self.maker.native] if self.maker.native is not None else \
            [getattr(part, "native", None) for part in getattr(self.executor, "natives", ())]
        return all([n.wait_optimized(timeout) for n in natives if n is not None])

    def dump_ir(self, folder: str) -> list[str]:
        """Write every stage to `folder`, one file per pass down to LLVM IR, each replayable
        with the `irc-opt` command on its first line (see `irc/runtime/ir_dump.py`)."""
        return dump_function(self, folder)

    def __repr__(self) -> str:
        return f"<irc.Function {self.name or '(unnamed)'}: {len(self.inputs)} input(s)>"

    # -- calling
    def _where(self) -> str:
        return f"irc function '{self.name}'" if self.name else "irc function"

    def _gather(self, args: tuple, kwargs: dict) -> list[Any]:
        specs, arguments = self.inputs, self._arguments
        if len(args) > len(arguments):
            raise InputError(f"{self._where()} takes {len(arguments)} input(s), got {len(args)}")
        values = [_MISSING] * len(specs)
        for i, value in zip(arguments, args):
            values[i] = value
        for key, value in kwargs.items():
            if key in self._ambiguous:
                raise InputError(f"{self._where()}: several inputs are named {key!r}: give them by position")
            i = self._by_name.get(key)
            if i is None:
                names = ", ".join(repr(n) for n in self._by_name) or "none are named"
                raise InputError(f"{self._where()} has no input named {key!r} (inputs by name: {names})")
            if values[i] is not _MISSING:
                raise InputError(f"{self._where()}: input {key!r} given both by position and by name")
            values[i] = value
        for i, v in enumerate(values):
            if v is _MISSING:
                held = specs[i].container.value
                if held is None:
                    label = repr(specs[i].name) if specs[i].name else str(specs[i].variable)
                    raise InputError(f"{self._where()}: missing required input {label} (#{i})")
                values[i] = held
        return values

    # -- the values kept for inputs (Theano's `f[x]`, `f.value`, `f.container`)
    @property
    def container(self) -> InputLookup:
        return InputLookup(self.inputs, self._where, cells=True)

    @property
    def value(self) -> InputLookup:
        return InputLookup(self.inputs, self._where, cells=False)

    def __getitem__(self, key: Any) -> Any:
        return self.value[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        self.value[key] = value

    def __contains__(self, key: Any) -> bool:
        return key in self.value

    def _keep_state(self, results: Sequence[Any], protected: set[int]) -> None:
        """Write the new values of `In(update=...)` inputs into their cells (a copy where the
        result is an array someone else holds: the cell's value must stay the function's)."""
        n = self.output_spec.count
        for i, v in zip(self.output_spec.state, results[n:n + self._n_state]):
            if type(v) is not np.ndarray:
                v = np.asarray(v)
            elif not _fresh(v, protected):
                v = v.copy()
            protected.add(id(v))
            self.inputs[i].container.storage[0] = v

    def _convert(self, i: int, value: Any) -> np.ndarray:
        spec = self.inputs[i]
        if type(value) is np.ndarray and value.ndim == spec.ndim and spec.plain \
                and (value.dtype is spec.np_dtype or value.dtype == spec.np_dtype):
            return value
        try:
            downcast = self.allow_input_downcast if spec.allow_downcast is None else spec.allow_downcast
            return spec.type.filter(value, strict=spec.strict, allow_downcast=downcast)
        except TypeError as e:
            label = repr(spec.name) if spec.name else str(spec.variable)
            raise InputError(f"bad input argument {label} (#{i}) to {self._where()}: {e}") from None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._fresh_results:
            return self._call_native(args, kwargs)
        values = self._gather(args, kwargs)
        arrays = [self._convert(i, v) for i, v in enumerate(values)]
        arrays += [s.get_value(borrow=True) for s in self.shared]
        results = self.executor.run(arrays)
        spec = self.output_spec
        protected = self._constant_ids | {id(a) for a in arrays}
        outs = []
        for r, borrow in zip(results[:spec.count], self._borrowed):
            if type(r) is not np.ndarray:
                r = np.asarray(r)
            elif not borrow and not _fresh(r, protected):
                r = r.copy()
            protected.add(id(r))  # the same array twice must be two arrays
            outs.append(r)
        self._keep_state(results, protected)
        for s, v in zip(self.updated, results[spec.count + self._n_state:]):
            if type(v) is not np.ndarray:
                v = np.asarray(v)
            elif not _fresh(v, protected):
                v = v.copy()
            protected.add(id(v))
            s.set_value(v, borrow=True)
        if spec.kind == "single":
            return outs[0]
        if spec.kind == "dict":
            return dict(zip(spec.keys, outs))
        return outs

    def _result_buffers(self, user_arrays: list) -> list:
        """Buffers for this call's results (None: the native side allocates one)."""
        outs: list = [None] * self._n_results
        taken = {id(a) for a in user_arrays}  # never write over what the user passed in
        for k, container in self._inplace_outs:
            value = container.value
            if id(value) not in taken:
                outs[k] = value
                taken.add(id(value))
        for k in self._borrow_outs:
            last = self._last.get(k)
            if last is not None and id(last) not in taken:
                outs[k] = last
                taken.add(id(last))
        return outs

    def _call_native(self, args: tuple, kwargs: dict) -> Any:
        """`__call__` when the executor's results are fresh arrays (native code): the same
        checks on the way in, no copies on the way out, updates written after the outputs.
        The per-call path of small functions: keep it free of work a call does not need."""
        n_in = len(self.inputs)
        if kwargs or len(args) != n_in or not self._plain_call:
            args = self._gather(args, kwargs)
        arrays = [self._convert(i, v) for i, v in enumerate(args)] if n_in else []
        if self._inplace_outs or self._borrow_outs:
            outs = self._result_buffers(arrays)
            arrays += [c.value for c in self._containers]
            results = self.executor.run(arrays, outs=outs)
        else:
            arrays += [c.value for c in self._containers]
            results = self.executor.run(arrays)
        return self._finish(results)

    def _finish(self, results: list) -> Any:
        """Keep the borrowed results, write the updates, hand the outputs back."""
        for k in self._borrow_outs:
            self._last[k] = results[k]
        spec = self.output_spec
        n = spec.count
        if self._n_state:  # a state result may be an output's array too: copied then
            self._keep_state(results, {id(r) for r in results[:n]})
        if self._updated_containers:
            for c, v in zip(self._updated_containers, results[n + self._n_state:]):
                c.value = v
        if spec.kind == "single":
            return results[0]
        if spec.kind == "dict":
            return dict(zip(spec.keys, results))
        return results[:n] if len(results) > n else results


def function_class(executor: Any, inputs: Sequence[Any]) -> type:
    """`SteadyFunction` where a call may be repeated as it is (no inputs, an executor that can
    replay), else `Function`: only those functions pay for looking for a steady call."""
    return SteadyFunction if not inputs and getattr(executor, "can_replay", False) else Function


class SteadyFunction(Function):
    """A function with no inputs over shared variables that stay where they are (a GPU training
    step): once the executor can repeat a call on the same buffers (`executor.replayer`), later
    calls replay it instead of taking the general path."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._steady: Callable[[], Any] | None = None
        self._replayable = self._fresh_results  # False once no call can be repeated

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        steady = self._steady
        if steady is not None and not args and not kwargs:
            out = steady()
            if out is not _MISSING:
                return out
        if not (self._replayable and self._steady is None):
            return super().__call__(*args, **kwargs)
        held = [c.value for c in self._containers]
        out = super().__call__(*args, **kwargs)
        steady = self._prepare_steady(held)
        if steady is False:
            self._replayable = False
        else:
            self._steady = steady
        return out

    def _prepare_steady(self, arrays: list) -> Any:
        """A call on the same buffers as the one just made on the shared variables' `arrays`:
        None where the executor cannot repeat it yet (no CUDA graph), False where no call ever
        can be (an update not in place gives the shared variable a new array every call, or
        the executor says so). It answers `_MISSING` when a shared variable got a new array or
        the executor cannot repeat the call (and is dropped); the general path runs then."""
        values = [c.value for c in self._containers]
        if any(v is not a for v, a in zip(values, arrays)):
            # a host array moved to the device may stay there from now on: not yet
            return None if any(type(v) is not type(a) for v, a in zip(values, arrays)) else False
        outs = self._result_buffers([]) if self._inplace_outs or self._borrow_outs else None
        run = self.executor.replayer(values, outs)
        if not run:
            return run
        run, finish, held = run.run, self._finish, list(zip(self._containers, values))

        def steady() -> Any:
            for c, v in held:
                if c.value is not v:
                    break
            else:
                results = run()
                if results is not None:
                    return finish(results)
            self._steady = None  # prepared again after the general path's call
            return _MISSING
        return steady


def load_function(state: FunctionState) -> Function | None:
    """What unpickling a function calls: the function, or None with
    `config.unpickle_function=False` (Theano's flag: load the rest of a pickle without it)."""
    return rebuild_function(state) if config.unpickle_function else None


def rebuild_function(state: FunctionState) -> Function:
    """The function `state` describes, its code from the disk cache."""
    executor, native, module, target = rebuild_executor(state)
    maker = FunctionMaker(state.mode, module, dict(state.stages), state.inputs, [], target)
    maker.native, maker.allow_gc, maker.reference = native, state.allow_gc, state.reference
    maker.debug_labels, maker.excluding = state.debug_labels, state.excluding
    if native is not None:
        maker.stages["loop"] = native.loop_ir
    elif getattr(executor, "loop_ir", None):  # native parts around user ops
        maker.stages["loop"] = executor.loop_ir
    cls = function_class(executor, state.inputs)
    return cls(maker, executor, state.inputs, state.shared, state.outputs, state.updated, state.name,
               state.allow_input_downcast)
