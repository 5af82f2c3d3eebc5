"""Execution targets: what `config.device` names and what `irc.function` asks for an executor.

One registry, filled from the top (`irc/plugins.py` installs the loader; `cpu_target.py` and
`cuda/target.py` register themselves). A target says where its tensors live (`device`, the
placement written in tensor types; None for the host), compiles an optimized module into an
executor, stores shared values, and renders the stages only it has (`llvm`, `ptx`, ...).

`resolve(kind, number)` gives the target of a device (`config.device_kind`, `device_index`:
`gpu`/`gpuN` are normalized to `cuda`/`cudaN` by the config); a GPU that cannot be used falls
back to the cpu with one warning saying why, or raises with `force_device=True`."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

from ..base.registry import ensure


class DeviceUnavailable(RuntimeError):
    """The device the flags ask for cannot be used (no driver, no GPU, no PyCUDA)."""


def _host(value: Any) -> Any:
    """The host's storage: the value as is. A module-level function, not a lambda: a shared
    variable keeps its target's `to_storage` and must stay picklable."""
    return value


@dataclass(frozen=True)
class Target:
    """`compile(module, func, config, profiling) -> (executor, native or None)`;
    `why_unavailable(device_number) -> str | None`; `to_storage(np.ndarray) -> value` puts a shared value
    where the target keeps it; `stages[name](module) -> str` renders target-only IR stages."""

    name: str
    device: str | None
    compile: Callable[..., tuple[Any, Any]]
    why_unavailable: Callable[[int], str | None] = lambda number: None
    to_storage: Callable[[Any], Any] = _host
    stages: dict[str, Callable[[Any], str]] = field(default_factory=dict)
    # what `dump_ir` replays after the tensor pipeline: loop-level passes, then rendered stages
    loop_passes: tuple[str, ...] = ("lower-to-loops",)
    dump_stages: tuple[str, ...] = ()


TARGETS: dict[str, Target] = {}
_fallback_warned: set[str] = set()


def register_target(target: Target) -> None:
    TARGETS[target.name] = target


def resolve(kind: str, number: int | None = None, force: bool = False) -> Target:
    """The target for device `kind` ("cpu", "cuda") number `number`; falls back to the cpu (one
    warning) when the device cannot be used, unless `force`."""
    ensure("targets")
    flag = kind if number is None else f"{kind}{number}"
    target = TARGETS.get(kind)
    why = f"no '{kind}' target is registered" if target is None else target.why_unavailable(number or 0)
    if why is None:
        return target
    if force:
        raise DeviceUnavailable(f"device={flag} was asked for with force_device=True, but {why}")
    if flag not in _fallback_warned:
        _fallback_warned.add(flag)
        warnings.warn(f"irc: device={flag} is not usable ({why}); falling back to the cpu",
                      RuntimeWarning, stacklevel=3)
    return TARGETS["cpu"]


def active(config: Any) -> Target:
    """The target `config` (device, force_device) selects now."""
    return resolve(config.device_kind, config.device_index, config.force_device)
