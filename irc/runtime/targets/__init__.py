"""The table of targets: what `config.device` resolves to and what `irc-opt -t` renders with.

`resolve(device)` gives the target of a `Device` (or of its flag spelling, `"cuda1"`); a GPU
that cannot be used falls back to the cpu with one warning saying why, or raises
`DeviceUnavailable` with `force_device=True`. `stages()` lists every stage by name, MLIR text
first: `irc-opt -t ptx` finds its stage through the cuda target."""
from __future__ import annotations

import warnings
from typing import Any

from ...base.device import CPU, Device
from .base import MLIR, Stage, Target
from .cpu import CPU_TARGET
from .cuda import CUDA_TARGET


class DeviceUnavailable(RuntimeError):
    """The device the flags ask for cannot be used (no driver, no GPU, no PyCUDA)."""


TARGETS: dict[str, Target] = {t.name: t for t in (CPU_TARGET, CUDA_TARGET)}
_fallback_warned: set[str] = set()


def resolve(device: Device | str, force: bool = False) -> Target:
    """The target for `device`; falls back to the cpu (one warning per device) when the device
    cannot be used, unless `force`."""
    device = device if isinstance(device, Device) else Device.parse(device)
    target = TARGETS.get(device.kind)
    why = (f"no '{device.kind}' target is registered" if target is None
           else target.why_unavailable(device.index or 0))
    if why is None:
        return target
    if force:
        raise DeviceUnavailable(f"device={device} was asked for with force_device=True, but {why}")
    if str(device) not in _fallback_warned:
        _fallback_warned.add(str(device))
        warnings.warn(f"irc: device={device} is not usable ({why}); falling back to the cpu",
                      RuntimeWarning, stacklevel=3)
    return TARGETS[CPU]


def active(config: Any) -> Target:
    """The target `config` (device, force_device) selects now."""
    return resolve(config.requested_device, config.force_device)


def stages() -> dict[str, Stage]:
    """Every stage a target renders, by name, MLIR text first (the first target wins a name)."""
    table = {MLIR.name: MLIR}
    for target in TARGETS.values():
        for name, stage in target.stages.items():
            table.setdefault(name, stage)
    return table
