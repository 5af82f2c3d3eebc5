"""`irc.config`: the user's view of the flags, which live in the base level (`irc/base/config.py`)
so that every level below the API can read them. This module also acts as the `config` object:
`irc.config.floatX = "float32"` is validated like `irc.config.config.floatX = ...`."""
from __future__ import annotations

import sys

from .base.config import FLAGS, Config, ConfigError, ConfigModule, Flag, change_flags, config, parse_flags_string

__all__ = ["FLAGS", "Config", "ConfigError", "Flag", "change_flags", "config", "parse_flags_string"]

sys.modules[__name__].__class__ = ConfigModule
