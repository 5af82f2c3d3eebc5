"""What a pickled (or deep-copied) `Function` carries, and how its executor is built again.

A compiled function is native code behind ctypes pointers, which no pickle can hold. What can
be held rebuilds it: the optimized tensor-level module as text, the target by name, the input
and output specs and the shared variables themselves (so that one pickle holding a function
and its shared variables brings them back connected, and a deep copy gets its own copies, as
in Theano). Rebuilding lowers the module again (pure Python) and finds the object code in the
disk cache (`object_cache.py`, keyed by the loop IR's text): no LLVM runs unless the cache
lacks it. A target that cannot be used where the pickle is loaded (no GPU) falls back to the
cpu as `config.device` does, with one warning; the placed module is then compiled without its
placement. User ops (`tensor.custom`) travel as their Python objects, registered again under
the key the IR names them by: they load where their class can be imported. The pickle also holds the module as lowered (the "tensor" stage): a loaded
function's `copy(delete_updates=True)` and DebugMode's reference are built from it."""
from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ..base.config import config
from ..base.device import Device
from ..dialects.tensor_custom import register_user_op
from ..ir.instrumentation import render_ir
from ..ir.parser import parse_module
from ..passes.device_edges import strip_placement
from ..passes.pipelines import optimize
from .debugmode import debug_executor
from .reference import ReferenceExecutor
from .targets import TARGETS, Target, resolve


@dataclass
class FunctionState:
    """Everything a `Function` is rebuilt from; none of it is compiled code."""

    module_text: str  # the optimized tensor-level module, with locations
    target: str  # the target's name ("cpu", "cuda")
    mode: str
    stages: dict[str, str]
    inputs: list[Any]  # InputSpec: variable, name, borrow, mutable, its cell (the value kept)
    shared: list[Any]
    outputs: Any  # OutputSpec
    updated: list[Any]
    name: str | None
    allow_input_downcast: bool | None
    allow_gc: bool = True
    reference: bool = False  # the 'py' linker: op by op in numpy
    debug_labels: list[str] | None = None  # DebugMode: checked against the "tensor" stage
    excluding: tuple[str, ...] = ()  # the rewrite tags turned off when it was compiled
    user_ops: dict[str, Any] = dataclasses.field(default_factory=dict)  # `tensor.custom` key -> runner


class FunctionPicklingError(pickle.PicklingError):
    """A part of a compiled function cannot be pickled; the message names the part."""


def module_text(module: Any) -> str:
    """The module as text that parses back to the same IR (locations kept for errors)."""
    return render_ir(module, debuginfo=True)


def check_picklable(where: str, parts: Sequence[tuple[str, Any]]) -> None:
    """Raise `FunctionPicklingError` naming the first part that does not pickle (a default
    value, a shared variable holding a user's object in its tag, ...): pickle's own error
    would name only the object's class, not what of the function holds it."""
    for label, part in parts:
        try:
            pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:  # pickle raises many kinds (TypeError, AttributeError, ...)
            raise FunctionPicklingError(f"{where} cannot be pickled: {label} does not pickle "
                                        f"({type(e).__name__}: {e})") from e


def attribute_parts(what: str, obj: Any, skip: Sequence[str] = ()) -> list[tuple[str, Any]]:
    """(label, value) for each attribute of `obj` but those in `skip`."""
    state = getattr(obj, "__dict__", None)
    if state is None:
        return [(what, obj)]
    return [(f"the {key!r} attribute of {what}", value) for key, value in state.items() if key not in skip]


def target_for(name: str) -> Target:
    """The target named `name` where the function is loaded: the cpu, with `config.device`'s
    warning (or `DeviceUnavailable` with `force_device`), when its device cannot be used."""
    return resolve(Device.parse(name), config.force_device)


def rebuild_executor(state: FunctionState) -> tuple[Any, Any, Any, Target]:
    """(executor, native function or None, the module it runs, target) for `state`."""
    for key, impl in state.user_ops.items():  # the user ops its IR names, found again by key
        register_user_op(key, impl)
    module = parse_module(state.module_text, f"<pickled function {state.name or 'main'}>")
    target = target_for(state.target)
    wanted = TARGETS.get(state.target)
    if target.name != state.target and wanted is not None and wanted.placement is not None:
        module = strip_placement(module)  # compiled for a device this machine cannot use
    func = module.regions[0].blocks[0].ops[0]
    if state.reference:
        executor, native = ReferenceExecutor(func, allow_gc=state.allow_gc), None
    else:
        with config.change_flags(allow_gc=state.allow_gc):
            executor, native = target.compile(module, func, config, False)
    if state.debug_labels is not None:
        unoptimized = parse_module(state.stages["tensor"], f"<pickled function {state.name or 'main'}>")
        executor = debug_executor(executor, unoptimized, state.debug_labels)
    return executor, native, module, target


def without_updates(state: FunctionState) -> FunctionState:
    """The same function without its updates (Theano's `copy(delete_updates=True)`): the
    module as lowered (the "tensor" stage) without the update results, optimized again. The
    optimized module cannot just drop them: an update may have been made in place."""
    module = parse_module(state.stages["tensor"], f"<pickled function {state.name or 'main'}>")
    func = module.regions[0].blocks[0].ops[0]
    n = state.outputs.count
    kept = [func.res_attrs(i) for i in range(n)]
    ret = func.regions[0].blocks[0].terminator
    ret.set_operands(list(ret.operands[:n]))
    func.set_res_attrs(kept)
    func.update_function_type()
    target = TARGETS.get(state.target)
    stages = optimize(module, state.mode, func.sym_name, per_pass=False,
                      device=target.placement if target is not None else None, excluding=state.excluding)
    labels = state.debug_labels[:n] if state.debug_labels is not None else None
    return dataclasses.replace(state, module_text=module_text(module), stages=stages, updated=[],
                               debug_labels=labels)


def recompile_on(recompile: Callable, copies: dict) -> Callable:
    """`recompile` for a deep copy: the graph compiled again reads the copies of the shared
    variables (`copies`: original -> copy), then whatever `swap` asks."""
    def again(swap: dict, delete_updates: bool, name: str | None, profile: Any) -> Any:
        full = {orig: swap.get(new, new) for orig, new in copies.items()}
        return recompile(full, delete_updates, name, profile)
    return again
