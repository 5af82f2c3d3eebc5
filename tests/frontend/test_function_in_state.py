"""`irc.function`'s Theano keywords about inputs: `accept_inplace`, and `In(update=, value=,
mutable=, borrow=, implicit=)` — inputs whose value the function keeps and updates."""
import numpy as np
import pytest

import irc
import irc.tensor as T


@pytest.mark.parametrize("accept", [True, False])
def test_accept_inplace_compiles_alike_and_leaves_the_inputs_alone(accept):
    x = T.dvector("x")
    f = irc.function([x], T.exp(x) * 2 + x, accept_inplace=accept)
    value = np.array([0.0, 1.0, -2.0])
    kept = value.copy()
    np.testing.assert_allclose(f(value), np.exp(kept) * 2 + kept, rtol=1e-12)
    np.testing.assert_array_equal(value, kept)


MODES = ["FAST_RUN", "FAST_COMPILE", "DebugMode", irc.Mode(linker="py")]


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_an_input_with_an_update_keeps_its_state_between_calls(mode):
    a = T.scalar()
    x, s = T.scalars("xs")
    f = irc.function([x, irc.In(a, value=1.0, name="a"), irc.In(s, value=0.0, update=s + a * x)],
                     s + a * x, mode=mode)
    assert f[a] == 1.0 and f[s] == 0.0 and f["a"] == 1.0
    assert f(3.0) == 3.0
    assert f(3.0, a=2.0) == 9.0          # 3 + 2 * 3
    assert f[a] == 1.0 and f[s] == 9.0   # a's value given for one call only; s's update sticks
    f[a] = 5.0
    assert f(3.0) == 24.0 and f[s] == 24.0
    assert f.value[s] == 24.0 and f.container[s].storage[0] == 24.0


def test_a_value_passed_for_an_updated_input_is_used_once_then_the_update_is_kept():
    x, s = T.scalars("xs")
    inc = irc.function([x, irc.In(s, update=s + x, value=10.0)], [])
    inc(1.0, 0.0)   # s = 0 for this call; then s = 0 + 1
    assert inc[s] == 1.0
    inc(2.0)
    assert inc[s] == 3.0


def test_two_functions_share_one_state_through_a_container():
    a = T.scalar()
    x, s = T.scalars("xs")
    f = irc.function([x, irc.In(a, value=1.0, name="a"),
                      irc.In(s, value=0.0, update=s + a * x, mutable=True)], s + a * x)
    g = irc.function([x, irc.In(a, value=1.0, name="a"),
                      irc.In(s, value=f.container[s], update=s - a * x, mutable=True)], s + a * x)
    f(1, 2)
    assert f[s] == 2 and g[s] == 2
    g(1, 2)   # s is implicit in g (its value is a container): (x, a) = (1, 2)
    assert f[s] == 0 and g[s] == 0
    reader = irc.function([x, irc.In(s, value=f.container[s])], s + x)   # reads, never writes
    f(1, 3)
    assert reader(1) == 4 and f[s] == 3
    with pytest.raises(TypeError, match="takes 1 input"):
        reader(1, 2)   # an implicit input is no argument


def test_implicit_false_lets_the_caller_pass_a_shared_state():
    x, s = T.scalars("xs")
    inc = irc.function([x, irc.In(s, update=s + x, value=10.0)], [])
    dec = irc.function([x, irc.In(s, update=s - x, value=inc.container[s], implicit=False)], [])
    assert dec[s] is inc[s]
    inc[s] = 2
    assert dec[s] == 2
    dec(1)
    assert inc[s] == 1
    dec(1, 0)
    assert inc[s] == -1 and dec[s] == -1


def test_array_state_never_writes_over_the_users_arrays():
    v = T.dvector("v")
    acc = T.dvector("acc")
    start = np.zeros(3)
    f = irc.function([v, irc.In(acc, value=start, update=acc + v)], acc * 2)
    step = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(f(step), [0, 0, 0])
    out = f(step)
    np.testing.assert_array_equal(out, [2, 4, 6])
    out[:] = -1   # the caller's output is not the function's state
    np.testing.assert_array_equal(f[acc], [2, 4, 6])
    np.testing.assert_array_equal(start, [0, 0, 0])
    np.testing.assert_array_equal(step, [1, 2, 3])


def test_an_update_that_equals_an_output_is_kept_apart_from_it():
    x, s = T.dvectors("x", "s")
    f = irc.function([x, irc.In(s, value=np.zeros(2), update=s + x)], s + x)
    out = f(np.ones(2))
    out[:] = 100.0
    np.testing.assert_array_equal(f[s], [1, 1])
    np.testing.assert_array_equal(f(np.ones(2)), [2, 2])


def test_lookup_by_variable_name_and_position():
    x, s = T.scalars("xs")
    f = irc.function([x, irc.In(s, value=4.0)], x * s)
    assert f.value[1] == 4.0 and f["s"] == 4.0 and f[s] == 4.0 and f[x] is None
    assert x in f.container and "s" in f and T.scalar() not in f.container
    with pytest.raises(KeyError, match="no input 'q'"):
        f["q"]
    with pytest.raises(TypeError, match="cannot store"):
        f[s] = [1.0, 2.0]


def test_in_checks_what_theano_checks():
    x, s = T.scalars("xs")
    from irc.frontend.lowering import MissingInputError
    with pytest.raises(MissingInputError):
        irc.function([irc.In(x, update=s + x)], x)
    with pytest.raises(TypeError, match="name must be a string"):
        irc.In(x, name=[])
    with pytest.raises(TypeError, match="update should be the same"):
        irc.In(x, update=T.dvector())
    with pytest.raises(TypeError, match="implicit input must be given a value"):
        irc.In(x, implicit=True)
    with pytest.raises(ValueError, match="mutable=True with borrow=False"):
        irc.In(x, mutable=True, borrow=False)
    inp = irc.In(x, update=x + 1)
    assert inp.mutable and inp.borrow and not inp.implicit
    assert not irc.In(x).mutable and not irc.In(x).borrow


def test_in_borrow_false_never_aliases_an_output_to_the_input():
    a = T.dmatrix()
    aval = np.random.RandomState(0).rand(3, 3)
    f = irc.function([irc.In(a, borrow=False)], irc.Out(a + 1, borrow=True))
    np.testing.assert_array_equal(f(aval), aval + 1)
    assert not np.may_share_memory(aval, f(aval))
    g = irc.function([irc.In(a, borrow=False)], irc.Out(a[0, :], borrow=True))
    np.testing.assert_array_equal(g(aval), aval[0, :])
    assert not np.may_share_memory(aval, g(aval))


def test_strict_and_allow_downcast_per_input():
    x = T.fvector("x")
    f = irc.function([irc.In(x, allow_downcast=True)], x * 2)
    np.testing.assert_array_equal(f(np.array([1.5, 2.0])), np.float32([3.0, 4.0]))
    g = irc.function([irc.In(x, strict=True)], x * 2)
    with pytest.raises(TypeError, match="strict"):
        g(np.array([1.0, 2.0]))


def test_copy_without_updates_drops_the_inputs_updates_too():
    x, s = T.scalars("xs")
    f = irc.function([x, irc.In(s, value=1.0, update=s + x)], s * x)
    g = f.copy(delete_updates=True)
    assert g(2.0) == [2.0] and g(2.0) == [2.0] and g[s] == 1.0   # a copy returns a list
    assert f(2.0) == 2.0 and f[s] == 3.0
