"""Philox4x32-10 as defined in `irc/dialects/philox.py`: the published known-answer vectors of
Random123 (the generator's reference implementation) and, where installed, randomgen's Philox
(number=4, width=32) word for word."""
from __future__ import annotations

import numpy as np
import pytest

from irc.dialects.philox import draw_words, philox4x32, sample, uniform_from_words

# Random123's kat_vectors for philox4x32 with 10 rounds: (counter, key) -> block
KNOWN_ANSWERS = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize("counter,key,expected", KNOWN_ANSWERS)
def test_known_answers(counter, key, expected):
    assert [int(w) for w in philox4x32(key, counter)] == list(expected)


def test_matches_randomgen_word_for_word():
    randomgen = pytest.importorskip("randomgen")
    key = (0x12345678, 0x9ABCDEF0)
    # randomgen advances the counter before each block: start one below the first wanted
    g = randomgen.Philox(key=key[0] | key[1] << 32, counter=(1 << 64) * 7 + 4, number=4, width=32)
    raw = g.random_raw(4 * 100)
    c = np.arange(5, 105, dtype=np.uint64)
    ours = np.stack(philox4x32(key, (c, 0, 7, 0)), axis=1).ravel()
    np.testing.assert_array_equal(raw.astype(np.uint64), ours)


def test_counter_layout_puts_the_element_then_the_draw():
    state = np.array([11, 22, (5 << 32) + 3], dtype=np.int64)
    words = draw_words(state, 3)
    direct = philox4x32((11, 22), (np.arange(3), 0, 3, 5))
    for a, b in zip(words, direct):
        np.testing.assert_array_equal(a, b)


def test_uniform_takes_the_top_bits():
    top = np.array([0, 0xFFFFFFFF, 0x80000000], dtype=np.uint64)
    np.testing.assert_array_equal(uniform_from_words(top, top, "float32"),
                                  np.array([0, 1 - 2.0 ** -24, 0.5], dtype=np.float32))
    np.testing.assert_array_equal(uniform_from_words(top, top, "float64"), [0, 1 - 2.0 ** -53, 0.5 + 2.0 ** -28])


def test_sample_rejects_an_unknown_distribution():
    with pytest.raises(ValueError, match="unknown distribution 'gamma'"):
        sample(np.zeros(3, np.int64), (2,), "gamma", "float32")
