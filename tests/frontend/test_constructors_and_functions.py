"""Theano's constructors (typed TensorType instances, plurals), `Variable.eval`,
`Function.copy`, `irc.Mode`/`ProfileMode`, `irc.clone`, `irc.grad`."""
from __future__ import annotations

import io

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.runtime.errors import InputError


def test_prefixed_constructors_are_types():
    assert str(T.dscalar) == "TensorType(float64, scalar)"
    assert str(T.fmatrix) == "TensorType(float32, matrix)"
    x = T.dscalar("x")
    assert x.type is T.dscalar and x.name == "x"
    assert T.lrow("r").broadcastable == (True, False)
    assert T.icol().dtype == "int32"


@pytest.mark.parametrize("plural,dtype,ndim", [("dmatrices", "float64", 2), ("fscalars", "float32", 0),
                                               ("ivectors", "int32", 1), ("btensor3s", "int8", 3),
                                               ("wrows", "int16", 2), ("lcols", "int64", 2)])
def test_plural_constructors(plural, dtype, ndim):
    a, b = getattr(T, plural)("a", "b")
    assert (a.name, b.name, a.dtype, a.ndim) == ("a", "b", dtype, ndim)
    assert len(getattr(T, plural)(3)) == 3
    single = getattr(T, plural)("z")  # one one-letter name: one variable, as in Theano
    assert single.name == "z" and single.dtype == dtype


def test_unprefixed_plurals_take_floatx_and_comma_lists():
    x, y = T.scalars("x, y")
    assert (x.name, y.name, x.dtype) == ("x", "y", irc.config.floatX)
    with pytest.raises(TypeError, match="names"):
        T.matrices("a", 3)


def test_eval_converts_python_numbers():
    x, y = T.dscalars("x", "y")
    z = x + y
    assert np.allclose(z.eval({x: 16.3, y: 12.1}), 28.4)
    assert z.eval({x: 1, y: 2}) == 3.0
    i = T.iscalar("i")
    assert (i * 2).eval({i: 7}) == 14  # a Python int an int32 holds exactly
    with pytest.raises(InputError, match="losing precision"):
        (i * 2).eval({i: 2 ** 40})
    with pytest.raises(TypeError, match="keys must be symbolic"):
        z.eval({"x": 1.0})


def _accumulator():
    state = irc.shared(0)
    inc = T.iscalar("inc")
    return state, irc.function([inc], state, updates=[(state, state + inc)])


def test_copy_swaps_shared_variables_and_deletes_updates():
    state, acc = _accumulator()
    acc(1)
    acc(10)
    assert state.get_value() == 11
    new_state = irc.shared(0)
    new_acc = acc.copy(swap={state: new_state})
    assert new_acc(100) == [0]   # a copy returns a list (Theano's tutorial: [array(0)])
    assert (new_state.get_value(), state.get_value()) == (100, 11)
    null_acc = acc.copy(delete_updates=True)
    assert null_acc(9000) == [11] and state.get_value() == 11
    shared_code = acc.copy(share_memory=True, swap={state: new_state}, name="again")
    shared_code(1)
    assert (new_state.get_value(), state.get_value(), shared_code.name) == (101, 11, "again")
    assert shared_code.executor is acc.executor


def test_copy_rejects_bad_swaps():
    state, acc = _accumulator()
    with pytest.raises(ValueError, match="not a shared variable this function uses"):
        acc.copy(swap={irc.shared(0): irc.shared(1)})
    with pytest.raises(TypeError, match="same type"):
        acc.copy(swap={state: irc.shared(np.zeros(3))})


def test_mode_objects():
    x = T.dvector("x")
    for mode in (irc.Mode(optimizer=None), irc.Mode(linker="py"), irc.compile.mode.Mode("cvm_nogc", "fast_run"),
                 irc.compile.mode.get_default_mode().excluding("fusion")):
        f = irc.function([x], T.exp(x) * 2, mode=mode)
        assert np.allclose(f([0.0, 1.0]), 2 * np.exp([0.0, 1.0]))
    assert irc.function([x], T.exp(x) + 1, mode=irc.Mode(optimizer=None)).maker.mode == "NO_OPT"
    assert type(irc.function([x], T.exp(x), mode=irc.Mode(linker="py")).executor).__name__ == "ReferenceExecutor"
    with pytest.raises(ValueError, match="unknown linker"):
        irc.Mode(linker="nope")
    with pytest.raises(ValueError, match="unknown optimizer"):
        irc.Mode(optimizer="best")


def test_profile_mode_collects_profiles():
    mode = irc.ProfileMode()
    x = T.dvector("x")
    f = irc.function([x], T.exp(x).sum(), mode=mode)
    f(np.ones(5))
    assert len(mode.profiles) == 1
    out = io.StringIO()
    mode.print_summary(file=out)
    assert "Function profiling" in out.getvalue()


def test_clone_and_grad_aliases():
    x, y = T.dvectors("x", "y")
    z = (x * 2).sum()
    z2 = irc.clone(z, replace={x: y})
    assert irc.function([y], z2)([1.0, 2.0]) == 6.0
    fresh = irc.clone(z, share_inputs=False)
    (leaf,) = [v for v in irc.frontend.graph.graph_inputs(fresh) if v.owner is None and v.name == "x"]
    assert leaf is not x
    g = irc.grad(z, x)
    assert np.allclose(irc.function([x], g)([1.0, 5.0]), [2.0, 2.0])
    assert irc.gradient.grad is T.grad
