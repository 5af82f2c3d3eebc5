"""`irc.scan` with Theano's signature, and `map`, `reduce`, `foldl`, `foldr` on top of it.

`fn` is called once, symbolically, on placeholders: one per sequence tap, one per tap of each
output that reads its past (`outputs_info`), then the non-sequences themselves (so `T.grad`
of an outer expression inside `fn` stays connected to it). What the step computes from values
that do not change between steps (the non-sequences, anything else of the outer graph `fn`
reads, shared variables) becomes the loop's non-sequences, computed once before the loop; a
shared variable `fn` updates becomes a state of the loop, and its new value (the last state)
is in the updates `scan` returns, for `irc.function(updates=...)`.
"""
from __future__ import annotations

import inspect
from collections import OrderedDict
from typing import Any, Callable, Sequence

import numpy as np

from ..base.config import config
from ..ir.diagnostics import Diagnostic
from .basic import as_tensor_variable, cast, constant, dimshuffle
from .graph import Constant, Variable, clone_replace, node_built, toposort, user_location
from .scan_op import Scan, ScanInfo
from .scan_until import until
from .shape_functions import addbroadcast, unbroadcast
from .shape_ops import DimShuffle
from .shared import SharedVariable, default_updates
from .known_test_values import get_test_value, set_test_value


class ScanError(ValueError):
    """A scan the user asked for that cannot be built (the message names the user's line)."""


def _fail(message: str) -> ScanError:
    """The error, at the user's line (`file:line:col`, then that line of source)."""
    return ScanError(Diagnostic(f"scan: {message}", user_location()).render())


def _as_list(x: Any) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


# ---------------------------------------------------------------------------- arguments
def _sequence_slices(sequences: Any, go_backwards: bool) -> list[Variable]:
    """One outer sequence per tap (`dict(input=x, taps=[-1, 0])`: x[:-1] and x[1:]), each
    reversed first when going backwards."""
    out = []
    for s in _as_list(sequences):
        taps = [0]
        if isinstance(s, dict):
            taps = _as_list(s.get("taps", [0]))  # (fn gets them in this order, as Theano's)
            s = s.get("input")
        x = as_tensor_variable(s)
        if x.ndim == 0:
            raise _fail(f"a sequence must have at least one dim to iterate over, got {x.type}")
        if not taps or any(not isinstance(t, int) for t in taps):
            raise _fail(f"the taps of a sequence must be a non-empty list of ints, got {taps}")
        if go_backwards:
            x = x[::-1]
        lo, hi = min(min(taps), 0), max(max(taps), 0)  # (Theano's window: tap t reads x[step + t])
        out += [x if lo == hi else x[t - lo: (t - hi) or None] for t in taps]
    return out


class _Output:
    """One entry of `outputs_info`: its taps (empty: the step does not read it) and the
    window of initial states (`-min(taps)` along a new first dim)."""

    def __init__(self, entry: Any, k: int):
        self.taps: tuple[int, ...] = ()
        self.window: Variable | None = None
        initial = entry
        if isinstance(entry, dict):
            initial = entry.get("initial")
            taps = entry.get("taps", [-1] if initial is not None else [])
            self.taps = tuple(_as_list(taps))  # (fn gets them in this order, as Theano's)
        elif entry is not None:
            self.taps = (-1,)
        if initial is None:
            if self.taps:
                raise _fail(f"outputs_info[{k}] has taps {list(self.taps)} but no initial value")
            return
        if any(not isinstance(t, int) or t >= 0 for t in self.taps) or len(set(self.taps)) != len(self.taps):
            raise _fail(f"outputs_info[{k}]: taps must be distinct negative ints (steps back), got {list(self.taps)}")
        init = as_tensor_variable(initial)
        if self.taps == (-1,):  # Theano's rule: the initial value is the state itself
            self.state = init
            self.window = dimshuffle(init, ["x", *range(init.ndim)])
        else:
            if init.ndim == 0:
                raise _fail(f"outputs_info[{k}] with taps {list(self.taps)} needs initial states stacked "
                            f"along a first dim, got a scalar")
            need = -min(self.taps)
            self.window = init[-need:]
            self.state = init[0]

    @property
    def recurrent(self) -> bool:
        return bool(self.taps)

    def placeholders(self, k: int) -> list[Variable]:
        t = self.state.type
        return [t(f"out{k}[t{tap}]") for tap in self.taps]


def _steps(n_steps: Any, have_sequences: bool) -> Variable:
    if n_steps is None:
        if not have_sequences:
            raise _fail("needs sequences or n_steps to know how many steps to take")
        return constant(np.asarray(-1, dtype="int64"))
    if isinstance(n_steps, (int,)) and not isinstance(n_steps, bool):
        if n_steps < 0:
            raise _fail(f"n_steps must not be negative, got {n_steps}")
        return constant(np.asarray(n_steps, dtype="int64"))
    n = as_tensor_variable(n_steps)
    if n.ndim != 0 or not n.dtype.startswith(("int", "uint")):
        raise _fail(f"n_steps must be an integer scalar, got {n.type}")
    if isinstance(n, Constant) and int(n.data) < 0:
        raise _fail(f"n_steps must not be negative, got {int(n.data)}")
    return cast(n, "int64")


# ---------------------------------------------------------------------------- what fn returns
def _split_result(result: Any) -> tuple[list[Any], list[tuple[Any, Any]], Variable | None]:
    """(outputs, updates, stopping condition) from what `fn` returned: outputs, a dict of
    updates, or both in a pair (either order); `until(cond)` last ends any of these."""
    def is_updates(x: Any) -> bool:
        return isinstance(x, dict) or (isinstance(x, (list, tuple)) and all(
            isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], SharedVariable) for p in x))

    def pairs(x: Any) -> list[tuple[Any, Any]]:
        return list(x.items()) if isinstance(x, dict) else list(x)

    condition = None
    if isinstance(result, until):
        return [], [], result.condition
    if isinstance(result, (list, tuple)) and result and isinstance(result[-1], until):
        condition, result = result[-1].condition, tuple(result[:-1])
        if len(result) == 1:
            result = result[0]
        elif len(result) == 2 and not is_updates(result[1]):
            raise _fail("fn returned three things: they must be (outputs, updates, until(condition)), "
                        "in that order")
    if any(isinstance(x, until) for x in (result if isinstance(result, (list, tuple)) else [result])):
        raise _fail("fn returned until(...) before other values: the condition comes last")
    if is_updates(result):
        return [], pairs(result), condition
    if isinstance(result, tuple) and len(result) == 2:
        if is_updates(result[1]):
            return _as_list(result[0]), pairs(result[1]), condition
        if is_updates(result[0]):
            return _as_list(result[1]), pairs(result[0]), condition
    return _as_list(result), [], condition


def _matched(out: Variable, state: Variable, k: int) -> Variable:
    """The step's output k as the type of its state (same dtype and rank, else an error)."""
    if out.dtype != state.dtype or out.ndim != state.ndim:
        raise _fail(f"output {k} of fn has type {out.type} but its initial value (outputs_info[{k}]) "
                    f"has type {state.type}: a recurrent output keeps its dtype and number of dims "
                    f"(cast one of them)")
    if out.broadcastable != state.broadcastable:
        out = unbroadcast(out, *[d for d, (a, b) in enumerate(zip(out.broadcastable, state.broadcastable)) if a and not b])
        add = [d for d, (a, b) in enumerate(zip(out.broadcastable, state.broadcastable)) if b and not a]
        out = addbroadcast(out, *add) if add else out
    return out


def _free_values(outputs: Sequence[Variable], placeholders: Sequence[Variable],
                 preferred: Sequence[Variable]) -> list[Variable]:
    """The outer values the step reads: the largest subexpressions that depend on no
    placeholder (constants and dimshuffles stay inside), `preferred` (the user's
    non-sequences) first."""
    varying = {id(p) for p in placeholders}
    free: dict[int, Variable] = {}
    for node in toposort(outputs):
        if any(id(v) in varying for v in node.inputs):
            varying.update(id(o) for o in node.outputs)
            for v in node.inputs:
                if id(v) not in varying and not isinstance(v, Constant):
                    free.setdefault(id(v), v)
    for out in outputs:
        if id(out) not in varying and not isinstance(out, Constant):
            free.setdefault(id(out), out)
    values: dict[int, Variable] = {}
    for v in free.values():  # a view stays in the body (free to make, and rewrites see it)
        while v.owner is not None and isinstance(v.owner.op, DimShuffle):
            v = v.owner.inputs[0]
        if not isinstance(v, Constant):
            values.setdefault(id(v), v)
    first = [v for v in preferred if id(v) in values]
    return first + [v for v in values.values() if all(v is not f for f in first)]


def _first_step_test_values(seqs: Sequence[Variable], seq_phs: Sequence[Variable],
                            recurrent: Sequence["_Output"], tap_phs: Sequence[Variable]) -> None:
    """The step's placeholders take the values of the first step (Theano's rule under
    `config.compute_test_value`): a sequence's first slice, and for each tap t of an output the
    row t of its window of initial states (counted from its end); so the step's graph gets test
    values while `fn` builds it. Placeholders whose outer variable has none get none."""
    for seq, ph in zip(seqs, seq_phs):
        value = get_test_value(seq)
        if value is not None and len(value):
            set_test_value(ph, value[0])
    phs = iter(tap_phs)
    for out in recurrent:
        window = get_test_value(out.window)
        for tap in out.taps:
            ph = next(phs)
            if window is not None and len(window) >= -tap:
                set_test_value(ph, window[len(window) + tap])


# ---------------------------------------------------------------------------- scan
def scan(fn: Callable[..., Any], sequences: Any = None, outputs_info: Any = None, non_sequences: Any = None,
         n_steps: Any = None, truncate_gradient: int = -1, go_backwards: bool = False, mode: Any = None,
         name: str | None = None, profile: Any = False, allow_gc: Any = None, strict: bool = False,
         return_list: bool = False) -> tuple[Any, "OrderedDict[Any, Any]"]:
    """Theano's `scan`: returns (outputs, updates); outputs stack each step's values along a
    new first dim (one variable, or a list when there are several or `return_list`)."""
    seqs = _sequence_slices(sequences, go_backwards)
    outs_info = [_Output(e, k) for k, e in enumerate(_as_list(outputs_info))]
    non_seqs = [as_tensor_variable(v) for v in _as_list(non_sequences)]
    steps = _steps(n_steps, bool(seqs))

    seq_phs = [type(s.type)(s.dtype, s.broadcastable[1:])(f"{s.name}[t]" if s.name else None) for s in seqs]
    tap_phs = [p for k, o in enumerate(outs_info) if o.recurrent for p in o.placeholders(k)]
    if config.compute_test_value != "off":
        _first_step_test_values(seqs, seq_phs, [o for o in outs_info if o.recurrent], tap_phs)
    args = [*seq_phs, *tap_phs, *non_seqs]
    try:
        inspect.signature(fn).bind(*args)
    except TypeError:
        raise _fail(f"fn {getattr(fn, '__name__', fn)} does not take the {len(args)} argument(s) scan passes "
                    f"it: {len(seq_phs)} sequence slice(s), {len(tap_phs)} output tap(s) (one per tap in "
                    f"outputs_info), {len(non_seqs)} non-sequence(s), in that order") from None
    except ValueError:  # a builtin without a signature: let the call say
        pass
    outputs, updates, condition = _split_result(fn(*args))
    outputs = [as_tensor_variable(o) for o in outputs]
    if outputs_info is None or (isinstance(outputs_info, (list, tuple)) and not outputs_info):
        outs_info = [_Output(None, k) for k in range(len(outputs))]  # (Theano's rule for [] too)
    if len(outputs) != len(outs_info):
        raise _fail(f"fn returns {len(outputs)} output(s) but outputs_info has {len(outs_info)} entries")
    outputs = [_matched(o, info.state, k) if info.recurrent else o for k, (o, info) in enumerate(zip(outputs, outs_info))]
    # Theano's rule: a shared variable with a default update read by the step (a random
    # stream's state) is updated every step, so each step draws anew, and comes back as an update
    updates += default_updates(outputs, updates, blockers=args)

    # shared variables fn updates: states of the loop, read through their own placeholders
    replace: dict[Variable, Variable] = {}
    for svar, expr in updates:
        if not isinstance(svar, SharedVariable):
            raise _fail(f"fn returned an update of {svar!r}, which is not a shared variable")
        state = _Output(svar, len(outs_info))
        ph = state.placeholders(len(outs_info))[0]
        ph.name = f"{svar.name}[t-1]" if svar.name else None
        replace[svar] = ph
        outs_info.append(state)
        tap_phs.append(ph)
        outputs.append(_matched(as_tensor_variable(expr), svar, len(outputs)))
    step_values = outputs + ([condition] if condition is not None else [])
    if replace:
        step_values = clone_replace(step_values, replace)

    placeholders = [*seq_phs, *tap_phs]
    free = _free_values(step_values, placeholders, non_seqs)
    inner_free = [v.type(v.name) for v in free]
    step_values = clone_replace(step_values, dict(zip(free, inner_free))) if free else step_values
    outputs, condition = (step_values[:-1], step_values[-1]) if condition is not None else (step_values, None)
    info = ScanInfo(len(seqs), tuple(o.taps for o in outs_info), len(free))
    op = Scan(info, [*placeholders, *inner_free], outputs, name, truncate_gradient, condition)
    windows = [o.window for o in outs_info if o.recurrent]
    node = node_built(op.make_node(steps, *seqs, *windows, *free))
    n_user = len(outputs) - len(updates)
    results = node.outputs[:n_user]
    new_updates: OrderedDict[Any, Any] = OrderedDict(
        (svar, node.outputs[n_user + i][-1]) for i, (svar, _) in enumerate(updates))
    if len(results) == 1 and not return_list:
        return results[0], new_updates
    return results, new_updates


def map(fn: Callable[..., Any], sequences: Any, non_sequences: Any = None, truncate_gradient: int = -1,
        go_backwards: bool = False, mode: Any = None, name: str | None = None) -> tuple[Any, "OrderedDict[Any, Any]"]:
    """`fn` applied to each slice of the sequences: a scan without state."""
    return scan(fn, sequences=sequences, outputs_info=None, non_sequences=non_sequences,
                truncate_gradient=truncate_gradient, go_backwards=go_backwards, mode=mode, name=name)


def reduce(fn: Callable[..., Any], sequences: Any, outputs_info: Any, non_sequences: Any = None,
           go_backwards: bool = False, mode: Any = None, name: str | None = None) -> tuple[Any, "OrderedDict[Any, Any]"]:
    """A scan of which only the last state is kept."""
    outs, updates = scan(fn, sequences=sequences, outputs_info=outputs_info, non_sequences=non_sequences,
                         go_backwards=go_backwards, mode=mode, name=name)
    if isinstance(outs, list):
        return [o[-1] for o in outs], updates
    return outs[-1], updates


def foldl(fn: Callable[..., Any], sequences: Any, outputs_info: Any, non_sequences: Any = None,
          mode: Any = None, name: str | None = None) -> tuple[Any, "OrderedDict[Any, Any]"]:
    """`reduce` from the first slice to the last."""
    return reduce(fn, sequences, outputs_info, non_sequences, go_backwards=False, mode=mode, name=name)


def foldr(fn: Callable[..., Any], sequences: Any, outputs_info: Any, non_sequences: Any = None,
          mode: Any = None, name: str | None = None) -> tuple[Any, "OrderedDict[Any, Any]"]:
    """`reduce` from the last slice to the first."""
    return reduce(fn, sequences, outputs_info, non_sequences, go_backwards=True, mode=mode, name=name)
