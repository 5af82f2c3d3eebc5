"""The gradient of `Scan`: backpropagation through time, as another scan (Theano's way).

The backward scan runs the steps in reverse (t = N-1 ... 0), reading what step t read as
rows of reversed views (its sequences), so no step indexes by a counter. At step t it pulls
the adjoint of each output back through the step function (`Lop` of the inner graph, its
placeholders replaced by the values step t read: the sequences' row t, the taps' rows of
`initial window ++ outputs`, the non-sequences; and the step's results by their rows of the
forward outputs, so that nothing the forward pass computed is computed again; the
non-sequences are its own, so a random draw among them is read as drawn). Its states
are, per recurrent output, the adjoints still pending for the `window` rows before the
current one (what later steps' taps sent back), and per non-sequence the sum of its per-step
gradients; it yields the gradient of each sequence's row t. `truncate_gradient = K` stops after K steps back (earlier
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

    seeded = [k for k, out in enumerate(op.inner_outputs) if out.type.is_continuous and not isinstance(out, Constant)
              and (output_grads[k] is not None or k in recurrent)]
    wrt_seq = [j for j, s in enumerate(seqs) if s.type.is_continuous]
    wrt_ns = [m for m, c in enumerate(non_seqs) if c.type.is_continuous]
    carried = [k for k in recurrent if outputs[k].type.is_continuous]

    # what step t reads, as sequences the backward scan walks from the end: row t of each
    # sequence, of each given output gradient and of every tap's rows (views, no indexing
    # by a counter: the steps' kernels read their rows where they lie, on the host or a GPU)
    given = [k for k in seeded if output_grads[k] is not None]
    tap_keys = [(k, tap) for k in recurrent for tap in info.taps[k]]
    # the step's own results, read back instead of computed again (tanh' from tanh's value)
    placeholders = set(op.inner_inputs)
    reread = [k for k, out in enumerate(op.inner_outputs)
              if out.owner is not None and out not in placeholders and out not in op.inner_outputs[:k]]
    backward_seqs = [s[:n][::-1] for s in seqs] + [output_grads[k][::-1] for k in given] + \
        [fulls[k][widths[k] + tap:widths[k] + tap + n][::-1] for k, tap in tap_keys] + \
        [outputs[k][::-1] for k in reread]

    n_states = len(carried) + len(wrt_ns)
    # the non-sequences, passed to the backward scan as its own: it takes them as they are (a
    # random draw among them is not drawn again at each step, as it would be if scan found its
    # stream's state in the step's graph)
    outer = [v for v in non_seqs if not isinstance(v, Constant)]

    def step(*args: Variable) -> tuple:
        rows = iter(args)
        values: dict[Variable, Variable] = {p: next(rows) for p in seq_phs}
        og = {k: next(rows) for k in given}
        tap_values = {key: next(rows) for key in tap_keys}
        results = {op.inner_outputs[k]: next(rows) for k in reread}
        states = [next(rows) for _ in range(n_states)]
        passed = iter(rows)
        pending = dict(zip(carried, states[:len(carried)]))
        sums = states[len(carried):]
        for k in recurrent:
            for tap, p in zip(info.taps[k], tap_phs[k]):
                values[p] = tap_values[(k, tap)]
        values.update((p, v if isinstance(v, Constant) else next(passed)) for p, v in zip(non_seq_phs, non_seqs))
        values.update(results)
        seeds = []
        for k in seeded:
            g = og.get(k)
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
        return (*new_pending, *new_sums, *g_seq)

    pending_init = [zeros_like(windows[k][0]) if widths[k] == 1 else zeros_like(windows[k]) for k in carried]
    outs, _ = scan(step, sequences=backward_seqs,
                   outputs_info=[*pending_init, *[zeros_like(non_seqs[m]) for m in wrt_ns], *[None] * len(wrt_seq)],
                   non_sequences=outer, n_steps=steps, return_list=True)
    grads: list[Variable | None] = [None] * len(inputs)
    finals = outs[:len(carried)]
    for k, final in zip(carried, finals):
        g = final[-1]
        g = dimshuffle(g, ["x", *range(g.ndim)]) if widths[k] == 1 else g
        if op.truncate_gradient >= 0:
            g = g * cast(steps >= n, g.dtype)
        grads[1 + n_seq + recurrent.index(k)] = g
    for m, total in zip(wrt_ns, outs[len(carried):len(carried) + len(wrt_ns)]):
        grads[1 + n_seq + len(recurrent) + m] = total[-1]
    for j, rows in zip(wrt_seq, outs[len(carried) + len(wrt_ns):]):
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
    """Rows `n - steps .. n` of the gradient, padded with zeros to the sequence's length. (The
    backward scan ran `steps` steps; saying so by a reshape lets the caller size the result
    from the input shapes, which the clamped bounds of its sequences' views do not. When the
    steps run are known only after the scan ran, `until`, the rows are set into zeros of the
    sequence's shape instead.)"""
    if stopped:
        return set_subtensor(zeros_like(seq)[arange(n - steps, n)], rows)
    rest = [seq.shape[d] for d in range(1, seq.ndim)]
    rows = rows.reshape((steps, *rest), ndim=seq.ndim)
    parts = [zeros((n - steps, *rest), dtype=seq.dtype), rows, zeros((seq.shape[0] - n, *rest), dtype=seq.dtype)]
    return concatenate(parts)
