"""irc.function: inputs, outputs (single/list/dict), updates, givens, In/Out, modes, the
toposort view, the IR layout and stages."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.runtime.errors import OutputMismatchError
from irc.runtime.function import Function, SteadyFunction, function_class


def fvec(name=None):
    return T.vector(name, dtype="float32")


def test_single_list_and_dict_outputs():
    x = T.dvector("x")
    y = T.dvector("y")
    a = np.arange(3.0)
    b = np.ones(3)
    f1 = irc.function([x, y], x + y)
    np.testing.assert_allclose(f1(a, b), a + b)
    f2 = irc.function([x, y], [x + y, x * y])
    r = f2(a, b)
    assert isinstance(r, list) and len(r) == 2
    np.testing.assert_allclose(r[1], a * b)
    f3 = irc.function([x, y], {"sum": x + y, "prod": x * y})
    d = f3(a, b)
    assert set(d) == {"sum", "prod"}
    np.testing.assert_allclose(d["prod"], a * b)
    assert irc.function([x], [], on_unused_input="ignore")(a) == []


def test_keyword_arguments_and_defaults():
    x = T.dscalar("x")
    y = T.dscalar("y")
    f = irc.function([x, irc.In(y, value=10.0)], x - y)
    assert f(1.0) == -9.0
    assert f(1.0, 2.0) == -1.0
    assert f(y=3.0, x=1.0) == -2.0


def test_updates_are_applied_after_all_outputs():
    w = irc.shared(np.zeros(3), name="w")
    c = irc.shared(np.asarray(0.0), name="c")
    x = T.dvector("x")
    f = irc.function([x], [w + x, c], updates=[(w, w + x), (c, c + 1)])
    out, count = f(np.ones(3))
    np.testing.assert_allclose(out, 1.0)   # computed from the old w
    assert count == 0.0
    np.testing.assert_allclose(w.get_value(), 1.0)
    assert c.get_value() == 1.0
    f(np.ones(3))
    np.testing.assert_allclose(w.get_value(), 2.0)


def test_updates_swap_simultaneously():
    a = irc.shared(np.asarray(1.0), name="a")
    b = irc.shared(np.asarray(2.0), name="b")
    f = irc.function([], [], updates={a: b, b: a})
    f()
    assert (a.get_value(), b.get_value()) == (2.0, 1.0)


def test_update_dict_from_tutorial_and_layout():
    x = T.dmatrix("x")
    w = irc.shared(np.ones(4), name="w")
    b = irc.shared(np.asarray(0.0), name="b")
    p = 1 / (1 + T.exp(-T.dot(x, w) - b))
    f = irc.function([x], p > 0.5, updates={w: w - 0.1 * T.dot(x.T, p), b: b - 0.1 * p.sum()},
                     name="train")
    text = f.ir("tensor")
    assert 'irc.shared = "w"' in text and 'irc.shared = "b"' in text
    assert "irc.update = 1" in text and "irc.update = 2" in text
    assert "test_function.py" in text  # ops carry the user's line
    assert f.name == "train"
    r = f(np.ones((2, 4)))
    assert r.dtype == bool and r.shape == (2,)


def test_givens_and_cycles():
    x = T.dscalar("x")
    y = T.dscalar("y")
    z = x * 2
    f = irc.function([y], z, givens={x: y + 1})
    assert f(1.0) == 4.0
    # x stands for z = x * 2 with x itself (substituted once): x is then an input not given
    with pytest.raises(ValueError, match="was not given"):
        irc.function([y], z + y, givens={x: z})
    with pytest.raises(RuntimeError, match="which is an input of this function"):
        irc.function([x], z, givens={x: x + 1})


def test_out_borrow_marks_result():
    x = T.dvector("x")
    f = irc.function([x], irc.Out(T.exp(x), borrow=True))
    assert "irc.borrow" in f.ir("tensor")
    np.testing.assert_allclose(f(np.zeros(2)), 1.0)


def test_outputs_are_copies():
    x = T.dvector("x")
    f = irc.function([x], [x, x])
    a = np.ones(2)
    r1, r2 = f(a)
    assert r1 is not a and r1 is not r2
    r1[0] = 5
    assert a[0] == 1 and r2[0] == 1


def test_toposort_view_uses_theano_classes():
    x = irc.shared(np.ones(10, dtype="float32"), name="x")
    f = irc.function([], T.exp(x))
    nodes = f.maker.fgraph.toposort()
    assert any(isinstance(n.op, T.Elemwise) for n in nodes)
    assert str(nodes[0]).startswith("Elemwise{exp,no_inplace}(")
    assert f.maker.fgraph.toposort()[0].inputs[0].type is not None


def test_ir_stages():
    x = T.dvector("x")
    f = irc.function([x], x * 1.0 + 0.0, mode="FAST_COMPILE")
    assert f.ir("tensor").count("tensor.") >= 2
    assert "canonicalize" in f.maker.stages or "optimized" in f.maker.stages
    assert f.ir("optimized")
    with pytest.raises(KeyError, match="available"):
        f.ir("no-such-stage")


def test_modes_agree():
    x = T.dvector("x")
    e = T.log(1 + T.exp(x)) * 2
    a = np.linspace(-3, 3, 7)
    results = [irc.function([x], e, mode=m)(a) for m in ("FAST_RUN", "FAST_COMPILE", "DebugMode")]
    for r in results[1:]:
        np.testing.assert_allclose(r, results[0], rtol=1e-12)


def test_debugmode_reports_mismatch():
    from irc.runtime.debugmode import compare
    compare("output #0", np.float32([1, 2]), np.float32([1, 2.00001]))
    with pytest.raises(OutputMismatchError, match="output #0"):
        compare("output #0", np.float32([1, 2]), np.float32([1, 2.1]))
    compare("output #1", np.float32([3.0]), np.float32([np.inf]))  # a stabilized result


def test_debugmode_accepts_stabilized_float32():
    x = T.fvector("x")
    p = 1 / (1 + T.exp(-x))
    f = irc.function([x], [T.log(1 - p), T.log(p)], mode="DebugMode")
    a = np.linspace(-30, 30, 41).astype("float32")
    lo, _ = f(a)
    assert np.all(np.isfinite(lo[:30]))


def test_debugmode_arbiter_still_catches_wrong_values():
    from irc.runtime.debugmode import compare
    got, ref = np.float32([11.7935]), np.float32([11.79925])
    compare("output #1", got, ref, truth=np.float64([11.7935001]))
    with pytest.raises(OutputMismatchError, match="output #1"):
        compare("output #1", got, ref, truth=np.float64([11.79925]))


def test_dump_ir_folder(tmp_path):
    x = T.dvector("x")
    with irc.config.change_flags(dump_ir=str(tmp_path)):
        irc.function([x], T.exp(x), name="dumped")
    files = sorted(p.name for p in tmp_path.rglob("*.mlir"))
    assert files and files[0].startswith("000_input")


def test_profile_collects_op_times():
    x = T.dvector("x")
    f = irc.function([x], T.exp(x) + 1, profile=True)
    f(np.ones(3))
    assert f.profile is not None and f.profile.calls == 1 and f.profile.op_time


def test_printing():
    x = T.dvector("x")
    y = T.exp(x) + x * 2
    assert irc.pp(y) == "exp(x) + (x * 2.0)" or "exp(x)" in irc.pp(y)
    text = irc.printing.debugprint(y, file="str")
    assert "[id A]" in text and "exp" in text
    f = irc.function([x], y)
    assert "Elemwise" in irc.printing.debugprint(f, file="str")


def test_lazy_public_names():
    assert irc.In is irc.frontend.function.In and irc.Out is irc.frontend.function.Out
    assert callable(irc.function) and callable(irc.shared)
    assert irc.tensor is T and hasattr(irc.printing, "debugprint")


def test_warn_float64_and_assert_no_cpu_op(cuda_without_gpu):
    x = T.dvector("x")
    with irc.config.change_flags(warn_float64="raise"):
        with pytest.raises(TypeError, match="float64"):
            irc.function([x], x * 2)
    with irc.config.change_flags(device="cuda", assert_no_cpu_op="raise"):
        irc.function([x], x * 2)  # elementwise: on the device
        irc.function([x], x.sum())  # reductions: on the device too
        m = T.dmatrix("m")
        irc.function([m, x], T.dot(m, x))  # products: cuBLAS calls
        with pytest.raises(AssertionError, match=r"'tensor.cumulative' .*runs on the cpu"):
            irc.function([x], T.cumsum(x))


def test_ir_stages_parse_back():
    from irc.ir.parser import parse_module
    from irc.ir.printer import print_op
    a, b = T.dvector("x"), T.dvector("x")  # same name twice: printed %x, %x_1
    w = irc.shared(np.ones(2), name="w")
    f = irc.function([a, b], [a + b * w, T.exp(a)], updates={w: w * 2}, name="two words")
    for stage in ("tensor", "optimized"):
        text = f.ir(stage)
        assert print_op(parse_module(text, "f.mlir"), debuginfo=True).rstrip() == text.rstrip()
    assert "@two_words(" in f.ir("tensor")


def test_default_update():
    counter = irc.shared(np.asarray(0.0), name="counter")
    counter.default_update = counter + 1
    x = T.dscalar("x")
    f = irc.function([x], x + counter)
    assert f(1.0) == 1.0 and f(1.0) == 2.0
    assert counter.get_value() == 2.0


class ReplayingExecutor:
    """A CPU executor that says it can repeat calls, its `replayer` answering `answers` in turn."""

    can_replay = True

    def __init__(self, inner, answers):
        self.inner, self.answers, self.asked = inner, list(answers), 0
        self.native = inner.native
        self.fresh_results = inner.fresh_results

    def run(self, *args, **kwargs):
        return self.inner.run(*args, **kwargs)

    def replayer(self, values, outs):
        self.asked += 1
        return self.answers.pop(0)


def _steady_copy(f, answers):
    executor = ReplayingExecutor(f.executor, answers)
    cls = function_class(executor, f.inputs)
    assert cls is SteadyFunction
    return cls(f.maker, executor, f.inputs, f.shared, f.output_spec, f.updated, f.name), executor


def test_only_functions_that_can_replay_look_for_a_steady_call():
    x = irc.shared(np.arange(4.0), name="x")
    f = irc.function([], x * 2)
    assert type(f) is Function and not hasattr(f, "_steady")
    v = T.dvector("v")
    assert type(irc.function([v], v + x)) is Function


def test_a_steady_call_is_looked_for_until_the_executor_says_never():
    x = irc.shared(np.arange(4.0), name="x")
    f = irc.function([], x * 2)
    g, executor = _steady_copy(f, [None, None, False])
    for _ in range(5):
        np.testing.assert_array_equal(g(), np.arange(4.0) * 2)
    assert executor.asked == 3 and not g._replayable and g._steady is None


def test_a_steady_call_replays_until_a_shared_variable_changes():
    x = irc.shared(np.arange(4.0), name="x")
    f = irc.function([], x * 2)
    replays = []

    class Run:
        def run(self):
            replays.append(1)
            return [np.full(4, 7.0)]

    g, executor = _steady_copy(f, [Run(), Run()])
    np.testing.assert_array_equal(g(), np.arange(4.0) * 2)  # the general path, then prepared
    np.testing.assert_array_equal(g(), np.full(4, 7.0))     # replayed
    x.set_value(np.ones(4))                                  # a new array: the general path again
    np.testing.assert_array_equal(g(), np.full(4, 2.0))
    assert executor.asked == 2 and len(replays) == 1


def test_a_keyword_naming_several_inputs_is_refused():
    """Theano's test_same_names: three inputs named 'x'; `f(1, 2, x=3)` cannot say which."""
    import irc.tensor as T
    a, x, s = T.scalars("xxx")
    f = irc.function([a, x, s], a + x + s)
    assert f(1, 2, 3) == 6
    with pytest.raises(TypeError, match="several inputs are named 'x'"):
        f(1, 2, x=3)
