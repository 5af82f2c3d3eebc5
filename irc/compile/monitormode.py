"""`irc.compile.monitormode` (Theano's `theano.compile.monitormode`): `MonitorMode`."""
from __future__ import annotations

from ..frontend.monitor_mode import MonitorMode

__all__ = ["MonitorMode"]
