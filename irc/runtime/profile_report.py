"""The profile as text, in Theano's layout (so its users find their way at once), with the
memory report of `conversion/tensor_to_loop/memory_profile.py`."""
from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

import numpy as np

from ..dialects.tensor_transfers import TRANSFER_OPS
from .segments import user_ops

if TYPE_CHECKING:  # annotations only: the stats print themselves through this module
    from .profile import ProfileStats


def _pct(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole > 0 else 0.0


def _table(rows: list[tuple], total: float, limit: int, what: str, with_type: bool = True) -> list[str]:
    """rows: (seconds, calls, n_apply, type, name, id) sorted here by time."""
    rows = sorted(rows, key=lambda r: (-r[0], r[4]))
    lines, cum = [], 0.0
    for seconds, calls, n_apply, kind, name, ident in rows[:limit]:
        cum += seconds
        per = seconds / calls if calls else 0.0
        head = (f"  {_pct(seconds, total):5.1f}%   {_pct(cum, total):5.1f}%     {seconds:.3f}s"
                f"       {per:.2e}s")
        if with_type:
            lines.append(f"{head}     {kind:<3} {calls:>7} {n_apply:>6}   {name}")
        else:
            lines.append(f"{head}  {calls:>7} {ident:>4}   {name}")
    rest = rows[limit:]
    rest_t = sum(r[0] for r in rest)
    lines.append(f"   ... (remaining {len(rest)} {what} account for {_pct(rest_t, total):.2f}%"
                 f"({rest_t:.2f}s) of the runtime)")
    return lines


def format_profile(p: "ProfileStats", n_ops: int = 20, n_apply: int = 20) -> str:
    applies = [st for st in p.applies.values()]
    op_total = sum(st.seconds for st in applies)
    out = ["Function profiling", "==================", f"  Message: {p.name or '(unnamed)'}"]
    out.append(f"  Time in {p.calls} calls to Function.__call__: {p.call_time:.6e}s")
    if p.calls:
        out.append(f"  Time in Function.fn.__call__: {p.fn_time:.6e}s ({_pct(p.fn_time, p.call_time):.3f}%)")
        out.append(f"  Time in thunks ({p.executor_kind}, summed per op): {op_total:.6e}s "
                   f"({_pct(op_total, p.call_time):.3f}%)")
    compile_total = sum(p.compile_times.values())
    out.append(f"  Total compile time: {compile_total:.6e}s")
    out.append(f"    Number of Apply nodes: {p.n_apply}")
    for stage, seconds in p.compile_times.items():
        out.append(f"    {stage + ' time:':<34} {seconds:.6e}s")
    out.append("")
    if not p.calls:
        out.append("No execution time accumulated (hint: try config.profile_memory, or call the function)")
    by_class: dict[str, list] = defaultdict(lambda: [0.0, 0, 0, ""])
    by_op: dict[str, list] = defaultdict(lambda: [0.0, 0, 0, ""])
    for st in applies:
        for table, key in ((by_class, st.info.class_name), (by_op, st.info.op_name)):
            row = table[key]
            row[0] += st.seconds
            row[1] += st.calls
            row[2] += 1
            row[3] = st.info.kind
    header = "<% time> <sum %> <apply time> <time per call> <type> <#call> <#apply>"
    out += ["Class", "---", f"{header} <Class name>"]
    out += _table([(v[0], v[1], v[2], v[3], k, 0) for k, v in by_class.items()], op_total, n_ops, "Classes")
    out += ["", "Ops", "---", f"{header} <Op name>"]
    out += _table([(v[0], v[1], v[2], v[3], k, 0) for k, v in by_op.items()], op_total, n_ops, "Ops")
    out += ["", "Apply", "------", "<% time> <sum %> <apply time> <time per call> <#call> <id> <Apply name>"]
    out += _table([(st.seconds, st.calls, 1, st.info.kind, st.info.apply_name, st.info.order)
                   for st in applies], op_total, n_apply, "Apply instances", with_type=False)
    out += ["", device_split(p), ""]
    out += _float64_section(p) + _memory_section(p) + _tips(p)
    return "\n".join(out) + "\n"


def device_split(p: "ProfileStats") -> str:
    """Theano's "Spent Xs(X%) in cpu Op, Ys(Y%) in gpu Op and Zs(Z%) transfer Op" line."""
    t = {"cpu": 0.0, "gpu": 0.0, "transfer": 0.0}
    for st in p.applies.values():
        t[st.info.device] += st.seconds
    total = sum(t.values())
    return (f"Spent {t['cpu']:.3f}s({_pct(t['cpu'], total):.2f}%) in cpu Op, "
            f"{t['gpu']:.3f}s({_pct(t['gpu'], total):.2f}%) in gpu Op and "
            f"{t['transfer']:.3f}s({_pct(t['transfer'], total):.2f}%) transfer Op")


def _float64_section(p: "ProfileStats") -> list[str]:
    if not p.float64_notes:
        return ["Float64 check: no float64 input, no op that makes float64 from narrower inputs.", ""]
    return ["Float64 check:"] + [f"  - {n}" for n in p.float64_notes] + [""]


def _memory_section(p: "ProfileStats") -> list[str]:
    lines = ["Memory Profile", "--------------"]
    lines += [f"  {m}" for m in p.memory_lines] or ["  not available (no memory_profile API yet)"]
    return lines + [""]


def _tips(p: "ProfileStats") -> list[str]:
    tips = ["Here are tips to potentially make your code run faster",
            "                 (if you think of new ones, suggest them on the mailing list)."]
    if p.float64_notes:
        tips.append("  - Try the float32 dtype (floatX=float32): float64 is slower, and cannot run "
                    "on most GPUs.")
    if p.executor_kind != "native code":
        tips.append("  - The reference executor ran this function: per-op times are Python's; "
                    "use device=cpu for native code.")
    names = {st.info.op_name for st in p.applies.values()}
    if any(n.startswith("Dot") for n in names):
        tips.append("  - A Dot was not specialized to Gemv/Gemm: check the shapes are matrices/vectors.")
    if len(tips) == 2:
        tips.append("  Sorry, no tip for today.")
    return tips


def number_value(a: Any) -> Any:
    """A number input's value (a 0-d array or a Python number), else None."""
    if isinstance(a, (int, float, np.generic)):
        return a.item() if isinstance(a, np.generic) else a
    return a.item() if isinstance(a, np.ndarray) and a.ndim == 0 else None


def memory_lines(func: Any, module: Any, shapes: Any, values: Any = None) -> list[str]:
    """The memory engineer's `memory_profile(module, input_shapes)`
    (irc/conversion/tensor_to_loop/memory_profile.py) for the shapes of the first call (and the
    values of its number inputs, which sizes may depend on), as report lines."""
    if shapes is None:
        return ["not available before the first call (the sizes come from the inputs)"]
    if module is not None and user_ops(module):
        return ["not available: user ops (tensor.custom) decide their outputs' sizes when they run"]
    if module is not None and any(op.op_name in TRANSFER_OPS for op in module.walk()):
        return ["estimate: for cpu functions only (a GPU function's figures are measured: the GPU lines)"]
    # the lowering (every pattern module) loads with the first report, not with `import irc`
    from ..conversion.tensor_to_loop.memory_profile import memory_profile
    try:
        m = memory_profile(module, shapes, input_values=values)
    except Exception as e:  # a profile must never break the program's exit
        return [f"not available: memory_profile failed: {type(e).__name__}: {e}"]
    if not isinstance(m, dict):
        return str(m).splitlines()
    kb = {k: v / 1024.0 for k, v in m.items() if isinstance(v, (int, float))}
    lines = [f"(for the input shapes of the first call: {', '.join(str(tuple(s)) for s in shapes)})",
             f"Max peak memory with current setting: {kb.get('peak_bytes', 0):.1f}KB "
             f"(outputs {kb.get('output_bytes', 0):.1f}KB, temporaries {kb.get('temporary_bytes', 0):.1f}KB"
             f" allocated per call)"]
    if "peak_bytes_no_inplace" in kb:
        lines.append(f"Max peak memory without inplace: {kb['peak_bytes_no_inplace']:.1f}KB")
    if "peak_bytes_no_gc" in kb:
        lines.append(f"Max peak memory with allow_gc=False: {kb['peak_bytes_no_gc']:.1f}KB "
                     f"({kb.get('workspace_bytes_no_gc', 0):.1f}KB kept between calls, "
                     f"none allocated per call)")
    return lines
