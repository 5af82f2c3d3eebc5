"""`MonitorMode` (Theano's `theano.compile.monitormode.MonitorMode`, debug_faq.txt "How do I
Step through a Compiled Function?"): callbacks before and after every op, with Theano's
(i, node, fn) arguments; and what its examples print (`debugprint` of a node, a Composite's
name as Theano writes it)."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.compile.monitormode import MonitorMode


def test_pre_and_post_see_each_op_with_its_values():
    seen = []
    x = T.dscalar("x")
    mode = MonitorMode(pre_func=lambda i, node, fn: seen.append(("pre", i, str(node), [c[0] for c in fn.inputs],
                                                                   [c[0] for c in fn.outputs])),
                       post_func=lambda i, node, fn: seen.append(("post", i, [c[0] for c in fn.outputs])))
    f = irc.function([x], [5 * x], mode=mode)
    assert f(3) == [15.0]
    assert seen == [("pre", 0, "Elemwise{mul,no_inplace}(TensorConstant{5.0}, x)", [5.0, 3.0], [None]),
                    ("post", 0, [15.0])]


def test_the_indices_follow_the_toposort_and_nodes_show_their_ops():
    calls = []
    x = T.dmatrix("x")
    f = irc.function([x], T.dot(x, x).sum(), mode=MonitorMode(post_func=lambda i, node, fn: calls.append(
        (i, type(node.op).__name__, np.shape(fn.outputs[0][0])))))
    np.testing.assert_allclose(f(np.eye(3) * 2), 12.0)
    assert [c[0] for c in calls] == list(range(len(f.maker.fgraph.toposort())))
    assert [c[1] for c in calls] == [type(n.op).__name__ for n in f.maker.fgraph.toposort()]
    assert calls[-1][2] == ()


def test_the_tutorials_nan_detector(capsys):
    def detect_nan(i, node, fn):
        for output in fn.outputs:
            if np.isnan(output[0]).any():
                print("*** NaN detected ***")
                irc.printing.debugprint(node)
                print("Inputs : %s" % [input[0] for input in fn.inputs])
                break

    x = T.dscalar("x")
    mode = irc.compile.MonitorMode(post_func=detect_nan).excluding("local_elemwise_fusion", "inplace")
    f = irc.function([x], [T.log(x) * x], mode=mode)
    assert isinstance(mode, MonitorMode) and mode.post_func is detect_nan
    assert np.isnan(f(0)[0])
    out = capsys.readouterr().out
    assert out.startswith("*** NaN detected ***\nElemwise{Composite{(log(i0) * i0)}} [id A] ''\n |x [id B]\n")
    f(2.0)
    assert capsys.readouterr().out == ""


def test_results_are_those_of_the_default_mode():
    x = T.dvector("x")
    y = T.tanh(x) * 3 - x ** 2
    plain = irc.function([x], y)
    monitored = irc.function([x], y, mode=MonitorMode())
    v = np.linspace(-2, 2, 9)
    np.testing.assert_allclose(monitored(v), plain(v), rtol=1e-12)


def test_a_callback_that_is_not_callable_is_refused():
    with pytest.raises(TypeError, match="post_func must be a function"):
        MonitorMode(post_func="print")


def test_composite_names_are_theanos_infix():
    x, y = T.dvectors("x", "y")
    f = irc.function([x, y], T.exp(-x) * 2 + y / 3 - x ** 3)
    text = irc.printing.debugprint(f, file="str")
    first = text.splitlines()[0]
    assert first.startswith("Elemwise{Composite{") and "(-i0)" in first and " * " in first and " / " in first
    assert "mul(" not in first and "add(" not in first


def test_debugprint_of_a_node_prints_its_outputs():
    x = T.dvector("x")
    node = (T.exp(x) + 1).owner
    assert irc.printing.debugprint(node, file="str") == irc.printing.debugprint(node.outputs[0], file="str")
