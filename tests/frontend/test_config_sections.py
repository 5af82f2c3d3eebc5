"""Theano's dotted flags (`config.unittests.rseed`) read and write through a section object,
and `irc.change_flags` (Theano's `theano.change_flags`) sets flags for a block or a function."""
from __future__ import annotations

import pytest

import irc
from irc.config import ConfigError, config


def test_a_dotted_flag_reads_through_its_section():
    assert config.unittests.rseed == "666"
    assert irc.config.unittests.rseed == "666"


def test_a_section_writes_with_validation_and_change_flags_restores():
    with irc.change_flags(**{"unittests.rseed": 5}):
        assert config.unittests.rseed == "5"
        config.unittests.rseed = "random"
        assert config.unittests.rseed == "random"
    assert config.unittests.rseed == "666"
    with pytest.raises(ConfigError, match="unittests.rseed"):
        config.unittests.rseed = "abc"


def test_an_unknown_section_name_is_still_an_unknown_flag():
    with pytest.raises(AttributeError, match="unknown config flag 'unittest'"):
        config.unittest


def test_change_flags_decorates_a_function():
    @irc.change_flags(floatX="float32")
    def floatx() -> str:
        return config.floatX

    before = config.floatX
    assert floatx() == "float32" and config.floatX == before


def test_cast_policy_reads_theanos_default_and_refuses_the_numpy_policy():
    assert config.cast_policy == "custom"
    with pytest.raises(ConfigError, match="cast_policy"):
        config.cast_policy = "numpy+floatX"
