"""`irc.function`, `irc.In`, `irc.Out`: Theano's entry point for compiling a graph.

Normalizes what the user passed (inputs, outputs as a variable/list/dict, updates, givens),
checks it with Theano's errors, lowers the graph to one `func.func`, runs the mode's pipeline
and wraps an executor in a `Function`."""
from __future__ import annotations

import copy
import dataclasses
import pdb
import warnings
from dataclasses import dataclass
from typing import Any, Sequence

from ..base.config import config
from ..base.gc_pause import with_gc_paused
from ..dialects import load_all
from ..passes.pipelines import check_mode, optimize
from ..runtime.debugmode import debug_executor
from ..runtime.function import FunctionMaker, InputSpec, OutputSpec, borrowed_results, function_class
from ..runtime.graph_view import set_graph_view
from ..runtime.input_state import InputContainer
from ..runtime.ir_dump import dump_folder, dump_stages
from ..runtime.profile import profiled_function_class
from ..runtime.profile_hook import CompileClock, attach_profile
from ..runtime.reference import ReferenceExecutor
from ..runtime.segments import user_ops
from ..runtime.targets import active
from .basic import as_tensor_variable
from .fgraph_view import FunctionGraphView
from .graph import GraphCycleError, Variable, ancestors, clone_replace, user_location
from .lowering import LoweringSpec, lower
from .modes import ProfileMode
from .monitor_mode import MonitorExecutor, MonitorMode
from .nanguard import NanGuardExecutor, NanGuardMode
from .placement_report import report_host_ops
from .shared import SharedVariable, default_updates
from .warm_compile import remember, warm_executor, warm_hit, warm_key_of

# every compiled function shows users Theano's op classes (`f.maker.fgraph.toposort()`)
set_graph_view(FunctionGraphView)


class In:
    """An input with Theano's options. `value`: used when the argument is left out, or another
    function's cell (`f.container[x]`), whose state the two functions then share. `update`: an
    expression whose value replaces the input's value after each call (the value "sticks
    around", like a shared variable's; `f[x]` reads it, `f[x] = v` sets it). `implicit`: the
    caller never passes it (default: True exactly when `value` is a cell). `mutable`/`borrow`:
    may the function overwrite / return the array passed in (irc does neither: accepted, and
    `mutable` without `borrow` refused as in Theano). `strict`/`allow_downcast`: how a value
    passed for it is converted (as `irc.function`'s `allow_input_downcast`, for this input)."""

    def __init__(self, variable: Variable, name: str | None = None, value: Any = None, update: Any = None,
                 mutable: bool | None = None, strict: bool = False, allow_downcast: bool | None = None,
                 autoname: bool = True, implicit: bool | None = None, borrow: bool | None = None,
                 shared: bool = False):
        if not isinstance(variable, Variable):
            raise TypeError(f"irc.In expects a symbolic variable, got {type(variable).__name__}")
        self.variable = variable
        self.name = variable.name if autoname and name is None else name
        if self.name is not None and not isinstance(self.name, str):
            raise TypeError(f"irc.In: name must be a string, got {type(self.name).__name__} {self.name!r}")
        self.update = None if update is None else _input_update(variable, update)
        self.mutable = bool(mutable) if mutable is not None else update is not None
        self.borrow = self.mutable if borrow is None else bool(borrow)
        if self.mutable and not self.borrow:
            raise ValueError(f"irc.In({variable}): mutable=True with borrow=False cannot hold: a mutable "
                             f"input may be overwritten, which implies it may be aliased (borrow=True)")
        self.implicit = isinstance(value, InputContainer) if implicit is None else bool(implicit)
        if self.implicit and value is None:
            raise TypeError(f"irc.In({variable}): an implicit input must be given a value")
        if isinstance(value, InputContainer) and (value.type.dtype, value.type.ndim) != (variable.dtype, variable.ndim):
            raise TypeError(f"irc.In({variable}): its value is the cell of an input of type {value.type}, "
                            f"not {variable.type}")
        self.value = value
        self.strict = strict
        self.allow_downcast = allow_downcast
        self.shared = shared


def _input_update(variable: Variable, update: Any) -> Variable:
    """`update` as a variable whose values fit `variable`'s type (what the next call reads)."""
    value = _as_variable(update, f"the update of input {variable}")
    vt, ut = variable.type, value.type
    if vt.dtype != ut.dtype or vt.ndim != ut.ndim or any(
            v and not u for v, u in zip(vt.broadcastable, ut.broadcastable)):
        raise TypeError(f"Variable '{variable}' has type {vt} but an update of type {ut}. The type of "
                        f"the update should be the same as the type of the variable"
                        + (f" (cast it: T.cast(update, '{vt.dtype}'))" if vt.dtype != ut.dtype else ""))
    return value


def Param(variable: Variable, default: Any = None, name: str | None = None, mutable: bool = False,
          strict: bool = False, allow_downcast: bool | None = None, implicit: bool | None = None,
          borrow: bool | None = None) -> In:
    """Theano's older spelling of `In(variable, value=default, name=name, ...)`."""
    return In(variable, name=name, value=default, mutable=mutable, strict=strict,
              allow_downcast=allow_downcast, implicit=implicit, borrow=borrow)


class Out:
    """An output with options: `borrow=True` may return irc's own buffer (no copy)."""

    def __init__(self, variable: Variable, borrow: bool = False):
        self.variable = variable
        self.borrow = borrow


class UnusedInputError(ValueError):
    """An input is not needed to compute the outputs (see `on_unused_input`)."""


def _is_shared(v: Any) -> bool:
    return isinstance(v, SharedVariable)


def _as_variable(x: Any, what: str) -> Variable:
    if isinstance(x, Variable):
        return x
    try:
        return as_tensor_variable(x)
    except (TypeError, ValueError):
        pass
    raise TypeError(f"{what} must be a symbolic variable, got {type(x).__name__}: {x!r}")


def _inputs(inputs: Any) -> list[In]:
    if inputs is None:
        inputs = []
    if isinstance(inputs, (Variable, In)):
        raise TypeError("irc.function: inputs must be a list of variables (e.g. [x]), not a single variable")
    specs = []
    for i, x in enumerate(inputs):
        spec = x if isinstance(x, In) else In(_as_variable(x, f"input #{i}"))
        v = spec.variable
        if _is_shared(v):
            raise TypeError(f"cannot use the shared variable {v} as an explicit input (#{i}): its value "
                            f"is passed automatically; to feed a value in its place, use givens")
        if hasattr(v, "data"):
            raise TypeError(f"input #{i} ({v}) is a constant; inputs must be variables "
                            f"(T.vector(), T.matrix(), ...)")
        if any(s.variable is v for s in specs):
            raise UnusedInputError(f"input {v} (#{i}) is given twice: the value passed for one of "
                                   f"them would be ignored")
        specs.append(spec)
    return specs


def _outputs(outputs: Any) -> tuple[str, list[Variable], list[bool], list[Any]]:
    """(kind, variables, borrow flags, dict keys)."""
    def one(o: Any, what: str) -> tuple[Variable, bool]:
        if isinstance(o, Out):
            return _as_variable(o.variable, what), bool(o.borrow)
        return _as_variable(o, what), False

    if outputs is None:
        return "list", [], [], []
    if isinstance(outputs, dict):
        keys = list(outputs)
        pairs = [one(outputs[k], f"output {k!r}") for k in keys]
        return "dict", [p[0] for p in pairs], [p[1] for p in pairs], keys
    if isinstance(outputs, (list, tuple)):
        pairs = [one(o, f"output #{i}") for i, o in enumerate(outputs)]
        return "list", [p[0] for p in pairs], [p[1] for p in pairs], []
    v, b = one(outputs, "the output")
    return "single", [v], [b], []


def _updates(updates: Any) -> list[tuple[Any, Variable]]:
    if updates is None:
        return []
    pairs = list(updates.items()) if isinstance(updates, dict) else list(updates)
    result: list[tuple[Any, Variable]] = []
    for item in pairs:
        if not (isinstance(item, (tuple, list)) and len(item) == 2):
            raise TypeError(f"updates must be a dict or a list of (shared variable, new value) pairs; "
                            f"got {item!r}")
        target, value = item
        if not _is_shared(target):
            raise TypeError(f"update target {target} is not a shared variable (irc.shared(...)); "
                            f"only shared variables can be updated")
        if any(t is target for t, _ in result):
            raise ValueError(f"shared variable {target} is updated twice")
        value = _as_variable(value, f"the update of {target}")
        st, vt = target.type, value.type
        if st.dtype != vt.dtype or st.ndim != vt.ndim or any(
                s and not u for s, u in zip(st.broadcastable, vt.broadcastable)):
            hint = ""
            if st.dtype != vt.dtype:
                hint = (f" Cast the new value, e.g. T.cast(expr, '{st.dtype}'), or build it from "
                        f"{st.dtype} values (floatX={config.floatX}).")
            raise TypeError(
                f"an update must have the same type as the shared variable it replaces "
                f"(shared variable {target}: {st}; update value {value}: {vt}).{hint}")
        result.append((target, value))
    return result


def _default_updates(roots: list[Variable], upd: list[tuple[Any, Variable]],
                     no_default_updates: Any = False) -> list[tuple[Any, Variable]]:
    """The default updates the graph asks for, unless `no_default_updates` is True or lists
    the shared variable (`shared.default_updates`)."""
    if not isinstance(no_default_updates, (bool, list)):
        raise TypeError(f"no_default_updates must be True, False or a list of shared variables, got "
                        f"{type(no_default_updates).__name__} {no_default_updates!r}")
    if no_default_updates is True:
        return []
    extra = default_updates(roots, upd, skip=list(no_default_updates or ()))
    return _updates(extra) if extra else []


def _check_unused(specs: Sequence[In], needed: set[int], on_unused_input: str) -> None:
    if on_unused_input not in ("raise", "warn", "ignore"):
        raise ValueError(f"on_unused_input must be 'raise', 'warn' or 'ignore', got {on_unused_input!r}")
    for i, spec in enumerate(specs):
        if id(spec.variable) in needed or on_unused_input == "ignore":
            continue
        msg = (f"irc.function was asked to create a function computing outputs given certain inputs, "
               f"but the provided input variable at index {i} is not part of the computational graph "
               f"needed to compute the outputs: {spec.variable}.\n"
               f"To make this error into a warning, you can pass the parameter "
               f"on_unused_input='warn' to irc.function. To disable it completely, use "
               f"on_unused_input='ignore'.")
        if on_unused_input == "raise":
            raise UnusedInputError(msg)
        warnings.warn(msg, stacklevel=3)


def _check_float64(func: Any) -> None:
    policy = config.warn_float64
    if policy == "ignore":
        return
    for op in func.regions[0].blocks[0].ops:
        if any(getattr(getattr(r.type, "element", None), "name", "") == "f64" for r in op.results):
            msg = f"a float64 value is computed by '{op.op_name}' at {op.location} (warn_float64={policy})"
            if policy == "warn":
                warnings.warn(msg, stacklevel=4)
            elif policy == "raise":
                raise TypeError(msg)
            else:
                pdb.set_trace()
            return


@with_gc_paused
def function(inputs: Any, outputs: Any = None, updates: Any = None, givens: Any = None,
             mode: Any = None, name: str | None = None, profile: Any = None,
             on_unused_input: str = "raise", allow_input_downcast: bool | None = None,
             no_default_updates: Any = False, accept_inplace: bool = False, rebuild_strict: bool = True) -> Any:
    """Compile `outputs` as a function of `inputs` (Theano's `theano.function`); `mode` is a
    mode name or an `irc.Mode`. `no_default_updates`: True, or a list of shared variables whose
    `default_update` (a random draw's state, for one) is not applied. `accept_inplace`: Theano
    refuses a graph that holds inplace ops before optimization unless it is True; no op the
    frontend builds is inplace (only the `inplace` pass makes ops write over their inputs, and
    never over a user's input), so there is nothing to refuse and both values compile alike.
    `rebuild_strict`: a `givens` replacement must have the type of the variable it replaces
    (True), or the graph is rebuilt for the replacement's type (False)."""
    location = user_location()
    check_mode(mode)
    in_specs = _inputs(inputs)
    kind, out_vars, borrow, keys = _outputs(outputs)
    upd = _updates(updates)
    state = [(i, spec.update) for i, spec in enumerate(in_specs) if spec.update is not None]
    in_specs, out_vars, state, upd = _cut_at_computed_inputs(in_specs, out_vars, state, upd)
    replace: dict = {}
    if givens:
        pairs = givens.items() if isinstance(givens, dict) else givens
        replace = {}
        for old, new in pairs:
            if not isinstance(old, Variable):
                raise TypeError(f"givens keys must be symbolic variables, got {type(old).__name__}")
            if any(old is spec.variable for spec in in_specs):
                raise RuntimeError(f"givens replaces {old}, which is an input of this function: that would "
                                   f"have no effect. To compute f(g(x)) from an input x, pass "
                                   f"irc.clone(f(x), replace={{x: g(x)}}) as the output, or give a new "
                                   f"input y and givens={{x: g(y)}}")
            replace[old] = new if isinstance(new, Variable) else as_tensor_variable(new)
        try:
            rebuilt = clone_replace(out_vars + [v for _, v in state] + [v for _, v in upd], replace,
                                    strict=rebuild_strict)
        except GraphCycleError as e:
            raise GraphCycleError(f"irc.function: givens {e}") from None
        n_out, n_state = len(out_vars), len(state)
        out_vars = list(rebuilt[:n_out])
        state = [(i, v) for (i, _), v in zip(state, rebuilt[n_out:n_out + n_state])]
        upd = [(t, v) for (t, _), v in zip(upd, rebuilt[n_out + n_state:])]
    roots = out_vars + [v for _, v in state]
    defaults = _default_updates(roots + [v for _, v in upd], upd, no_default_updates)
    if replace and defaults:  # a default update sees the givens too (Theano's rebuild_collect_shared)
        values = clone_replace([v for _, v in defaults], replace, strict=rebuild_strict)
        defaults = [(t, v) for (t, _), v in zip(defaults, values)]
    upd += defaults
    needed = {id(v) for v in ancestors(roots + [v for _, v in upd])}
    _check_unused(in_specs, needed, on_unused_input)
    return _compile(_Plan(in_specs, kind, out_vars, borrow, keys, upd, mode, name, profile,
                          allow_input_downcast, location, state))


def _cut_at_computed_inputs(in_specs: list[In], out_vars: list[Variable], state: list, upd: list) -> tuple:
    """An input computed by the graph (`function([2 * a], ...)`, Theano's partial graph) is fed
    its value: the outputs read a new variable of its type in its place, so what computes it
    is not needed (the user's variables and `In`s are left as they are)."""
    cut = {id(s.variable): s.variable.type(s.variable.name) for s in in_specs if s.variable.owner is not None}
    if not cut:
        return in_specs, out_vars, state, upd
    specs = []
    for spec in in_specs:
        if id(spec.variable) in cut:
            spec = copy.copy(spec)
            spec.variable = cut[id(spec.variable)]
        specs.append(spec)
    replace = {s.variable: cut[id(s.variable)] for s in in_specs if id(s.variable) in cut}
    rebuilt = clone_replace(out_vars + [v for _, v in state] + [v for _, v in upd], replace)
    n_out, n_state = len(out_vars), len(state)
    return (specs, list(rebuilt[:n_out]), [(i, v) for (i, _), v in zip(state, rebuilt[n_out:n_out + n_state])],
            [(t, v) for (t, _), v in zip(upd, rebuilt[n_out + n_state:])])


@dataclass
class _Plan:
    """Everything `irc.function` was asked, normalized: what `Function.copy` compiles again."""

    in_specs: Sequence[In]
    kind: str
    out_vars: list[Variable]
    borrow: list[bool]
    keys: list[Any]
    updates: list[tuple[Any, Variable]]
    mode: Any
    name: str | None
    profile: Any
    allow_input_downcast: bool | None
    location: Any
    state: list[tuple[int, Variable]] = dataclasses.field(default_factory=list)  # In(update=): (input, value)

    def swapped(self, swap: dict, delete_updates: bool, name: str | None, profile: Any) -> "_Plan":
        """The same function with shared variables replaced as `swap` says (`{old: new}`), and
        without updates (of shared variables and of inputs) if `delete_updates`."""
        updates = [] if delete_updates else self.updates
        state = [] if delete_updates else self.state
        roots = self.out_vars + [v for _, v in state] + [v for _, v in updates]
        if swap:
            roots = clone_replace(roots, swap)
        n, k = len(self.out_vars), len(state)
        updates = [(swap.get(t, t), v) for (t, _), v in zip(updates, roots[n + k:])]
        state = [(i, v) for (i, _), v in zip(state, roots[n:n + k])]
        return dataclasses.replace(self, out_vars=list(roots[:n]), updates=updates, state=state, name=name,
                                   profile=profile)

    @property
    def results(self) -> list[Variable]:
        """What the compiled function returns before the shared variables' new values: the
        outputs, then the new values of `In(update=...)` inputs."""
        return self.out_vars + [v for _, v in self.state]


def _compile(plan: _Plan) -> Any:
    """Lower, optimize and compile `plan` for the active target; the `Function`. A warm start
    (the same module compiled before, by any process) skips the passes, the lowering and LLVM."""
    load_all()
    mode = check_mode(plan.mode)
    kind, out_vars, upd, name, profile = plan.kind, plan.out_vars, plan.updates, plan.name, plan.profile
    target = active(config)
    clock = CompileClock()  # profiler: compile time per stage and per pass (cheap, always on)
    state_borrow = [False] * len(plan.state)
    lowered = lower(LoweringSpec([s.variable for s in plan.in_specs], plan.results, upd, plan.borrow + state_borrow,
                                 name or "main", plan.location, target.placement))
    clock.mark("frontend (graph to tensor IR)")
    profiling = bool(profile or (profile is None and (config.profile or mode == "ProfileMode")))
    warm = warm_key_of(plan.mode, mode, target, lowered, profiling, _allow_gc(plan.mode))
    hit = warm_hit(warm, clock) if warm is not None else None
    labels = stats = None
    if hit is not None:
        native, stages, borrowed = hit
        executor, module = warm_executor(native), None  # the module is parsed if asked for
    else:
        executor, native, stages, labels, stats = _build(plan, mode, target, lowered, clock, profiling,
                                                         warm.text if warm is not None else None)
        module, borrowed = lowered.module, None
        if warm is not None:
            remember(warm, native, stages, borrowed_results(lowered.func, len(out_vars)))
    inputs = [_input_spec(s, plan.allow_input_downcast) for s in plan.in_specs]
    maker = FunctionMaker(mode, module, stages, inputs, out_vars, target)
    maker.native, maker.allow_gc, maker.borrowed = native, _allow_gc(plan.mode), borrowed
    maker.compile_times = clock.split(native)
    maker.debug_labels = labels
    maker.excluding = (config.optimizer_excluding, *getattr(plan.mode, "excluded", ()))
    maker.reference = getattr(plan.mode, "linker", None) == "py"
    outputs = OutputSpec(kind, len(out_vars), plan.keys, [i for i, _ in plan.state])
    if config.dump_ir:  # every stage, replayable pass by pass: see irc/runtime/ir_dump.py
        dump_stages(stages["tensor"], mode, dump_folder(config.dump_ir, lowered.func.sym_name),
                    target, codegen=native is not None and not user_ops(lowered.func))
    cls = profiled_function_class() if stats is not None else function_class(executor, inputs)
    fn = cls(maker, executor, inputs, lowered.shared, outputs, [t for t, _ in upd], name,
             plan.allow_input_downcast, stats)
    fn.recompile = lambda swap, delete_updates, name, profile: _compile(
        plan.swapped(swap, delete_updates, name, profile))
    return fn


def _build(plan: _Plan, mode: str, target: Any, lowered: Any, clock: CompileClock, profiling: bool,
           tensor_text: str | None = None) -> tuple:
    """Run the passes over `lowered` (in place) and compile it: (executor, native function or
    None, stages, DebugMode's labels or None, profile stats or None). `tensor_text`: the
    lowered module's text, when the warm start's key has rendered it."""
    unoptimized = lowered.module.clone() if mode == "DebugMode" else None
    stages = optimize(lowered.module, mode, lowered.func.sym_name, instrumentations=[clock.passes],
                      per_pass=False,  # per-pass texts: replayed by `f.ir`
                      device=target.placement, excluding=getattr(plan.mode, "excluded", ()),
                      tensor_text=tensor_text)
    _check_float64(lowered.func)
    report_host_ops(lowered.func, config.assert_no_cpu_op, target.placement)
    executor, native = _executor(target, lowered, plan.mode, profiling)
    if native is not None:
        stages["loop"] = native.loop_ir
    elif getattr(executor, "loop_ir", None):  # native parts around user ops
        stages["loop"] = executor.loop_ir
    labels = None  # DebugMode's names of the results (kept by the maker: a pickle rebuilds it)
    if unoptimized is not None:
        labels = [f"output {k!r}" if plan.kind == "dict" else f"output #{i}"
                  for i, k in enumerate(plan.keys or range(len(plan.out_vars)))]
        labels += [f"the update of input {plan.in_specs[i].variable}" for i, _ in plan.state]
        labels += [f"the update of shared variable {t}" for t, _ in plan.updates]
        labels = [label + _origin(v) for label, v in zip(labels, unoptimized_results(unoptimized))]
        executor = debug_executor(executor, unoptimized, labels)
    stats = None
    if profiling:  # the profiler's hook: see irc/runtime/profile_hook.py
        executor, stats = attach_profile(executor, plan.profile, mode, plan.name, lowered.func, clock, native,
                                         lowered.module)
        if isinstance(plan.mode, ProfileMode):
            plan.mode.profiles.append(stats)
    return executor, native, stages, labels, stats


def _input_spec(spec: In, allow_input_downcast: bool | None) -> InputSpec:
    """What the runtime keeps of an `In`: its cell is `value` when that is another function's
    cell, else a new one holding `value` (checked against the input's type now)."""
    downcast = spec.allow_downcast if spec.allow_downcast is not None else allow_input_downcast
    cell = spec.value if isinstance(spec.value, InputContainer) else None
    if cell is None:
        try:
            cell = InputContainer(spec.variable.type, spec.value, downcast)
        except TypeError as e:
            raise TypeError(f"irc.In({spec.variable}): bad value: {e}") from None
    return InputSpec(spec.variable, spec.name, spec.borrow, spec.mutable, cell,
                     spec.update is not None, spec.implicit, spec.strict, downcast)


def _executor(target: Any, lowered: Any, mode: Any, profiling: bool) -> tuple[Any, Any]:
    """The target's compiled code, or the reference executor for the 'py' linker; a '_nogc'
    linker keeps temporaries between calls. (executor, native function or None)."""
    allow_gc = _allow_gc(mode)
    if isinstance(mode, NanGuardMode):  # op by op, every result checked
        names = [arg.name_hint or f"#{i}" for i, arg in enumerate(lowered.func.args)]
        return NanGuardExecutor(ReferenceExecutor(lowered.func, allow_gc=allow_gc), mode, names), None
    if isinstance(mode, MonitorMode):  # op by op, the user's callbacks around each
        return MonitorExecutor(lowered.func, mode, allow_gc=allow_gc), None
    if getattr(mode, "linker", None) == "py":
        return ReferenceExecutor(lowered.func, allow_gc=allow_gc), None
    with config.change_flags(allow_gc=allow_gc):
        return target.compile(lowered.module, lowered.func, config, profiling)


def _allow_gc(mode: Any) -> bool:
    """Whether temporaries are freed after each call: a '_nogc' linker says no, else the flag."""
    return config.allow_gc if getattr(mode, "allow_gc", None) is None else mode.allow_gc


def unoptimized_results(module: Any) -> list[Any]:
    """The values the (only) function of `module` returns."""
    return list(module.regions[0].blocks[0].ops[0].regions[0].blocks[0].ops[-1].operands)


def _origin(value: Any) -> str:
    """` (computed by 'tensor.sub' at loc("model.py":14:8))` for a DebugMode message."""
    owner = value.owner
    name = getattr(owner, "op_name", None)
    if name is None:
        return ""
    hint = f" '{value.name_hint}'" if value.name_hint else ""
    return f"{hint} (computed by '{name}' at {owner.location})"


def eval_variable(var: Variable, inputs_to_values: dict) -> Any:
    """`var.eval({x: value})`: compiles `var` as a function of the given inputs (cached on the
    variable per set of inputs, as Theano does) and calls it."""
    for k in inputs_to_values:
        if not isinstance(k, Variable):
            raise TypeError(f"eval: the keys must be symbolic variables, got {type(k).__name__} {k!r}")
    inputs = list(inputs_to_values)
    cache = var.tag.__dict__.setdefault("eval_cache", {})
    key = tuple(map(id, inputs))
    if key not in cache:
        cache[key] = (function(inputs, var), inputs)  # the inputs kept alive: ids stay theirs
    return cache[key][0](*[inputs_to_values[k] for k in inputs])
