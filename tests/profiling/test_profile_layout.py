"""The profile's layout (Theano's) and its sums."""
import io
import re

import numpy as np

import irc
import irc.tensor as T
from irc.runtime.profile import ProfileStats, merge
from irc.runtime.profile_timing import TimingSource, device_of


def _summary(stats) -> str:
    buf = io.StringIO()
    stats.summary(buf)
    return buf.getvalue()


def test_layout_sections_and_columns(logreg):
    build, (x, y) = logreg
    f = build(profile=True)
    for _ in range(5):
        f(x, y)
    text = _summary(f.profile)
    for line in ("Function profiling", "  Message: train", "Time in 5 calls to Function.__call__",
                 "Time in Function.fn.__call__", "Total compile time", "Number of Apply nodes",
                 "pass Canonicalize time", "lower-to-loops time", "LLVM IR (convert-to-llvm) time",
                 "LLVM optimization time", "machine code time", "load (MCJIT) time",
                 "Class\n---", "Ops\n---", "Apply\n------", "Memory Profile", "Float64 check"):
        assert line in text, line
    head = "<% time> <sum %> <apply time> <time per call> <type> <#call> <#apply>"
    assert f"{head} <Class name>" in text and f"{head} <Op name>" in text
    assert "<% time> <sum %> <apply time> <time per call> <#call> <id> <Apply name>" in text
    assert re.search(r"Spent \S+s\(100\.00%\) in cpu Op, 0\.000s\(0\.00%\) in gpu Op and "
                     r"0\.000s\(0\.00%\) transfer Op", text)
    assert "CGemv" in text


def test_per_op_times_sum_and_counts(logreg):
    build, (x, y) = logreg
    f = build(profile=True)
    for _ in range(7):
        f(x, y)
    p = f.profile
    p.collect()
    assert p.calls == 7 and p.n_apply == len(p.applies)
    assert all(st.calls == 7 for st in p.applies.values())
    op_total = sum(st.seconds for st in p.applies.values())
    assert 0 < op_total <= p.fn_time <= p.call_time
    # the Class table's first "sum %" column ends at 100%
    table = _summary(p).split("Class\n---\n", 1)[1].split("\n\n", 1)[0]
    sums = [float(m) for m in re.findall(r"^\s+[\d.]+%\s+([\d.]+)%", table, re.M)]
    assert sums and abs(sums[-1] - 100.0) < 0.11


def test_profiles_sum_like_theano(logreg):
    build, (x, y) = logreg
    f, g = build(profile=True), build(profile=True, name="other")
    f(x, y)
    g(x, y)
    g(x, y)
    total = merge([f.profile, g.profile])
    assert total.calls == 3 and total.name == "Sum of all(2) printed profiles at exit"
    assert len(total.applies) == len(f.profile.applies) + len(g.profile.applies)
    assert "Sum of all(2)" in _summary(total)


def test_reference_timing_source_and_float64_notes():
    x = T.dvector("x")
    f = irc.function([x], T.exp(x) + 1, profile=True)
    f(np.ones(3))
    text = _summary(f.profile)
    assert "input 'x' is float64" in text
    assert f.profile.op_time  # raw per-op seconds stay available


def test_float64_made_from_narrower_inputs():
    x = T.fvector("x")
    f = irc.function([x], T.cast(x, "float64") * 2, profile=True)
    f(np.ones(3, "float32"))
    assert "makes float64 from narrower inputs" in _summary(f.profile)


def test_timing_source_protocol_and_device_split():
    from irc.runtime.profile_native import NativeTiming
    from irc.runtime.profile_timing import ReferenceTiming
    assert isinstance(ReferenceTiming(None), TimingSource)
    assert all(callable(getattr(NativeTiming, m)) for m in ("applies", "collect"))
    assert device_of("irc.elemwise.GpuElemwise") == "gpu"
    assert device_of("irc.transfer.HostFromGpu") == "transfer"
    assert device_of("irc.blas.CGemv") == "cpu"


def test_profile_mode_and_config_flag(logreg):
    build, (x, y) = logreg
    f = build(mode="ProfileMode")
    assert isinstance(f.profile, ProfileStats) and f.profile.at_exit
    with irc.config.change_flags(profile=True):
        g = build()
    g(x, y)
    assert g.profile is not None and g.profile.calls == 1
    from irc.runtime import profile as P
    for stats in (f.profile, g.profile):  # keep the test run's output free of at-exit reports
        if stats in P._AT_EXIT:
            P._AT_EXIT.remove(stats)


def test_memory_profile_of_a_minibatch_sliced_by_an_index_input():
    """A DLT-style step slices a shared dataset with its index input (`givens`): the buffers'
    sizes depend on the index's value, which the report takes from the first call (before,
    "not available"). The result: 256 float64 row sums, 2.0 KB."""
    values = np.arange(8192.0).reshape(1024, 8)
    data = irc.shared(values, name="data")
    i = T.lscalar("i")
    x = T.matrix("x")
    f = irc.function([i], (x ** 2).sum(axis=1), givens={x: data[i * 256:(i + 1) * 256]}, profile=True)
    np.testing.assert_array_equal(f(3), (values[768:1024] ** 2).sum(axis=1))
    text = _summary(f.profile)
    memory = text[text.index("Memory Profile"):]
    assert "not available" not in memory, memory
    assert "(outputs 2.0KB," in memory, memory
