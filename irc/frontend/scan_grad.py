"""The gradient of `Scan`: backpropagation through time, as another scan (Theano's way).

The backward scan runs the steps in reverse (t = N-1 ... 0; t itself is one of its states).
At step t it pulls the adjoint of each output back through the step function (`Lop` of the
inner graph, its placeholders replaced by the values step t read: the sequences' row t, the
taps' rows of `initial window ++ outputs`, the non-sequences). Its states are, per recurrent
output, the adjoints still pending for the `window` rows before the current one (what later
steps' taps sent back), and per non-sequence the sum of its per-step gradients; it yields the
gradient of each sequence's row t. `truncate_gradient = K` stops after K steps back (earlier
rows and the initial window then get no gradient, as in Theano).
"""
from __future__ import annotations

from typing import Sequence

from .basic import (as_tensor_variable, cast, concatenate, dimshuffle, inc_subtensor, set_subtensor,
                    zeros_like)
from .creation import arange, zeros
from .grad import Lop
from .gradient_rules import grad_rule
from .graph import Constant, Variable, clone_replace
from .mathops import minimum
from .scan import scan
from .scan_op import Scan


@grad_rule(Scan)
def scan_grad(op: Scan, inputs: Sequence[Variable], outputs: Sequence[Variable],
              output_grads: Sequence[Variable | None]) -> list[Variable | None]:
    info = op.info
    n_seq, recurrent = info.n_sequences, info.recurrent
    seqs = list(inputs[1:1 + n_seq])
    windows = dict(zip(recurrent, inputs[1 + n_seq:1 + n_seq + len(recurrent)]))
    non_seqs = list(inputs[1 + n_seq + len(recurrent):])
    widths = {k: -min(info.taps[k]) for k in recurrent}
    ph = iter(op.inner_inputs)
    seq_phs = [next(ph) for _ in seqs]
    tap_phs = {k: [next(ph) for _ in info.taps[k]] for k in recurrent}
    non_seq_phs = list(ph)
    fulls = {k: concatenate([windows[k], outputs[k]]) for k in recurrent}  # every row a tap may read
    n = cast(outputs[0].shape[0], "int64")
    steps = n if op.truncate_gradient < 0 else minimum(n, op.truncate_gradient)

    seeded = [k for k, out in enumerate(op.inner_outputs) if out.type.is_float and not isinstance(out, Constant)
              and (output_grads[k] is not None or k in recurrent)]
    wrt_seq = [j for j, s in enumerate(seqs) if s.type.is_float]
    wrt_ns = [m for m, c in enumerate(non_seqs) if c.type.is_float]
    carried = [k for k in recurrent if outputs[k].type.is_float]

    n_states = len(carried) + len(wrt_ns)
    # the outer values the step reads, passed as non-sequences: the backward scan then takes
    # them as they are (a random draw among them is not drawn again at each step, as it would
    # be if scan found its stream's state in the step's graph)
    outer = [v for v in (*[g for g in output_grads if g is not None], *seqs, *fulls.values(), *non_seqs)
             if not isinstance(v, Constant)]

    def step(t: Variable, *states_and_outer: Variable) -> tuple:
        states = states_and_outer[:n_states]
        pending = dict(zip(carried, states[:len(carried)]))
        sums = states[len(carried):len(carried) + len(wrt_ns)]
        values: dict[Variable, Variable] = {p: s[t] for p, s in zip(seq_phs, seqs)}
        for k in recurrent:
            for tap, p in zip(info.taps[k], tap_phs[k]):
                values[p] = fulls[k][t + widths[k] + tap]
        values.update(zip(non_seq_phs, non_seqs))
        seeds = []
        for k in seeded:
            g = output_grads[k][t] if output_grads[k] is not None else None
            if k in pending:
                last = pending[k] if widths[k] == 1 else pending[k][widths[k] - 1]
                g = last if g is None else g + last
            seeds.append(g)
        wrt = [seq_phs[j] for j in wrt_seq] + [p for k in carried for p in tap_phs[k]] + \
              [non_seq_phs[m] for m in wrt_ns]
        grads = Lop([op.inner_outputs[k] for k in seeded], wrt, seeds, disconnected_inputs="ignore") \
            if seeded and wrt else [zeros_like(w) for w in wrt]
        grads = clone_replace(grads, values, strict=False) if grads else []
        g_seq, rest = grads[:len(wrt_seq)], grads[len(wrt_seq):]
        new_pending = []
        for k in carried:
            g_taps, rest = rest[:len(info.taps[k])], rest[len(info.taps[k]):]
            new_pending.append(_shift(pending[k], widths[k], info.taps[k], g_taps))
        new_sums = [s + g for s, g in zip(sums, rest)]
        return (t - 1, *new_pending, *new_sums, *g_seq)

    pending_init = [zeros_like(windows[k][0]) if widths[k] == 1 else zeros_like(windows[k]) for k in carried]
    outs, _ = scan(step, outputs_info=[n - 1, *pending_init, *[zeros_like(non_seqs[m]) for m in wrt_ns],
                                       *[None] * len(wrt_seq)],
                   non_sequences=outer, n_steps=steps, return_list=True)
    grads: list[Variable | None] = [None] * len(inputs)
    finals = outs[1:1 + len(carried)]
    for k, final in zip(carried, finals):
        g = final[-1]
        g = dimshuffle(g, ["x", *range(g.ndim)]) if widths[k] == 1 else g
        if op.truncate_gradient >= 0:
            g = g * cast(steps >= n, g.dtype)
        grads[1 + n_seq + recurrent.index(k)] = g
    for m, total in zip(wrt_ns, outs[1 + len(carried):1 + len(carried) + len(wrt_ns)]):
        grads[1 + n_seq + len(recurrent) + m] = total[-1]
    for j, rows in zip(wrt_seq, outs[1 + len(carried) + len(wrt_ns):]):
        grads[1 + j] = _full_sequence_grad(rows[::-1], seqs[j], n, steps, op.condition is not None)
    return grads


def _shift(pending: Variable, width: int, taps: Sequence[int], g_taps: Sequence[Variable]) -> Variable:
    """The adjoints pending before the previous step: those of the rows before the current
    one, plus what this step's taps sent back."""
    if width == 1:
        return as_tensor_variable(g_taps[0])
    out = set_subtensor(zeros_like(pending)[1:], pending[:-1])
    for tap, g in zip(taps, g_taps):
        out = inc_subtensor(out[width + tap], g)
    return out


def _full_sequence_grad(rows: Variable, seq: Variable, n: Variable, steps: Variable, stopped: bool) -> Variable:
    """Rows `n - steps .. n` of the gradient, padded with zeros to the sequence's length (set
    into zeros when the steps run are known only after the scan ran, `until`: so the gradient's
    size is the sequence's, which a caller can know before the call)."""
    if stopped:
        return set_subtensor(zeros_like(seq)[arange(n - steps, n)], rows)
    rest = [seq.shape[d] for d in range(1, seq.ndim)]
    parts = [zeros((n - steps, *rest), dtype=seq.dtype), rows, zeros((seq.shape[0] - n, *rest), dtype=seq.dtype)]
    return concatenate(parts)
