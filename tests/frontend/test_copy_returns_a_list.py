"""Theano's `Function.copy` (and `copy.copy`) returns the outputs as a list even where the
original returns one value: the tutorial's "Copying functions" prints `[array(0)]`, and Theano's
own test_copy_delete_updates reads `cpy(1)[0]`."""
from __future__ import annotations

import copy
import pickle

import numpy as np

import irc
import irc.tensor as T
from test_constructors_and_functions import _accumulator  # (the tutorial's accumulator, beside this file)


def test_the_tutorials_copies():
    state, accumulator = _accumulator()
    assert isinstance(accumulator(10), np.ndarray)   # the original still returns one array
    new_state = irc.shared(0)
    new_accumulator = accumulator.copy(swap={state: new_state})
    got = new_accumulator(100)
    assert isinstance(got, list) and len(got) == 1 and got[0] == 0 and got[0].shape == ()
    assert new_state.get_value() == 100 and state.get_value() == 10
    null_accumulator = accumulator.copy(delete_updates=True)
    assert null_accumulator(9000) == [10] and state.get_value() == 10


def test_theanos_copy_delete_updates_reads_the_first_element():
    x = T.fscalar("x")
    y, z = irc.shared(1, name="y"), irc.shared(2, name="z")
    ori = irc.function([x], x + y + z, updates={z: z * 2})
    cpy = ori.copy(delete_updates=True)
    for _ in range(3):
        assert cpy(1)[0] == 4


def test_every_kind_of_copy_returns_a_list_and_the_original_is_unchanged():
    state, accumulator = _accumulator()
    shared_code = accumulator.copy(share_memory=True)
    assert shared_code.executor is accumulator.executor
    assert isinstance(shared_code(1), list) and isinstance(copy.copy(accumulator)(1), list)
    assert isinstance(accumulator(1), np.ndarray)
    unpickled = pickle.loads(pickle.dumps(accumulator))
    assert isinstance(unpickled(1), np.ndarray) and isinstance(unpickled.copy()(1), list)
    assert isinstance(copy.deepcopy(accumulator)(1), np.ndarray)   # a deep copy is not `copy`


def test_a_list_or_dict_of_outputs_is_kept():
    x = T.dscalar("x")
    as_list = irc.function([x], [x * 2, x + 1]).copy()
    assert as_list(3.0) == [6.0, 4.0]
    as_dict = irc.function([x], {"double": x * 2}).copy()
    assert as_dict(3.0) == {"double": 6.0}
