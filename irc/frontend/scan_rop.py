"""The R-op of `Scan` (forward mode through a loop, Theano's `Scan.R_op`): another scan that
runs the steps again and carries, beside each float output, its tangent.

Its step reads the original step's inputs and their tangents (a sequence's tangent row, a
state's tangent taps, a non-sequence's tangent), and yields the step's outputs and their R-op
(`Rop` of the inner graph, its placeholders and their tangents replaced by the step's
arguments). A tangent state starts from the tangent of its initial window (zeros where none
was given); integer inputs and outputs carry none. The stopping condition of a scan with
`until` stops the new one at the same step.
"""
from __future__ import annotations

from typing import Any, Sequence

from .basic import zeros_like
from .graph import Constant, Variable, clone_replace
from .grad import Rop
from .rop_rules import rop_rule
from .scan import scan
from .scan_op import Scan
from .scan_until import until


def _initial(window: Variable, taps: tuple[int, ...]) -> Any:
    """The `outputs_info` entry that gives a state back its window."""
    if taps == (-1,):
        return window[0]
    return dict(initial=window, taps=list(taps))


@rop_rule(Scan)
def scan_rop(op: Scan, inputs: Sequence[Variable], outputs: Sequence[Variable],
             tangents: Sequence[Variable | None]) -> list[Variable | None]:
    info = op.info
    n_seq, recurrent = info.n_sequences, info.recurrent
    n_rec = len(recurrent)
    seqs = list(inputs[1:1 + n_seq])
    windows = dict(zip(recurrent, inputs[1 + n_seq:1 + n_seq + n_rec]))
    non_seqs = list(inputs[1 + n_seq + n_rec:])
    d_seqs = list(tangents[1:1 + n_seq])
    d_windows = dict(zip(recurrent, tangents[1 + n_seq:1 + n_seq + n_rec]))
    d_non_seqs = list(tangents[1 + n_seq + n_rec:])

    ph = iter(op.inner_inputs)
    seq_phs = [next(ph) for _ in seqs]
    tap_phs = {k: [next(ph) for _ in info.taps[k]] for k in recurrent}
    ns_phs = list(ph)
    float_outs = [k for k, o in enumerate(op.inner_outputs) if o.type.is_continuous]
    float_rec = [k for k in recurrent if k in float_outs]
    tangent_of = {id(p): p.type(f"d{p.name}" if p.name else None)
                  for p in (*seq_phs, *[p for k in float_rec for p in tap_phs[k]], *ns_phs) if p.type.is_continuous}
    wrt = [p for p in op.inner_inputs if id(p) in tangent_of]
    d_inner = Rop([op.inner_outputs[k] for k in float_outs], wrt, [tangent_of[id(p)] for p in wrt],
                  disconnected_outputs="ignore") if wrt and float_outs else []

    tangent_seqs = [(p, s, d if d is not None else zeros_like(s)) for p, s, d in zip(seq_phs, seqs, d_seqs)
                    if id(p) in tangent_of]
    tangent_ns = [(p, v, d if d is not None else zeros_like(v)) for p, v, d in zip(ns_phs, non_seqs, d_non_seqs)
                  if id(p) in tangent_of and not isinstance(v, Constant)]
    outputs_info = [_initial(windows[k], info.taps[k]) if k in windows else None for k in range(len(info.taps))]
    outputs_info += [_initial(d_windows[k] if d_windows[k] is not None else zeros_like(windows[k]), info.taps[k])
                     if k in windows else None for k in float_outs]
    non_sequences = [*non_seqs, *[d for _, _, d in tangent_ns]]

    def step(*args: Variable) -> Any:
        it = iter(args)
        replace: dict[Variable, Variable] = {}
        for p in seq_phs:
            replace[p] = next(it)
        for p, _, _ in tangent_seqs:
            replace[tangent_of[id(p)]] = next(it)
        for k in recurrent:
            for p in tap_phs[k]:
                replace[p] = next(it)
        for k in float_rec:
            for p in tap_phs[k]:
                replace[tangent_of[id(p)]] = next(it)
        for p in ns_phs:
            replace[p] = next(it)
        for p, _, _ in tangent_ns:
            replace[tangent_of[id(p)]] = next(it)
        for p in wrt:  # a tangent the graph had none for (a constant non-sequence): zeros
            replace.setdefault(tangent_of[id(p)], zeros_like(replace[p]))
        cond = [op.condition] if op.condition is not None else []
        values = clone_replace([*op.inner_outputs, *d_inner, *cond], replace, strict=False)
        if cond:
            return values[:-1], until(values[-1])
        return values

    steps = inputs[0]
    n_steps = None if isinstance(steps, Constant) and int(steps.data) == -1 else steps
    outs, _ = scan(step, sequences=[*seqs, *[d for _, _, d in tangent_seqs]], outputs_info=outputs_info,
                   non_sequences=non_sequences, n_steps=n_steps, name=op.name, return_list=True)
    result: list[Variable | None] = [None] * len(outputs)
    for k, tangent in zip(float_outs, outs[len(info.taps):]):
        result[k] = tangent
    return result
