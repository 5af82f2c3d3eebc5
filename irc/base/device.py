"""The device a computation runs on, as one typed value from the `device` flag to the PTX.

`Device.parse("gpu1")` is `Device("cuda", 1)`: the flag's spellings (`cpu`, `cuda`, `cudaN`, and
Theano's `gpu`, `gpuN`) become a kind and an optional index, once. The runtime resolves a
`Device` to its `Target`; from there on the device is the target's placement, the string tensor
types carry in IR (`tensor<?xf32, "cuda">`), given to passes as an option value.

`CUDA` is defined here, at the lowest level that needs it (the flag, the `gpu` dialect's
kernels, the placement passes' default, `gpu_from_host`), so every level reads one spelling."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

CPU = "cpu"
CUDA = "cuda"  # NVIDIA GPUs: the device kind, and the placement their tensors carry in IR types

KINDS = (CPU, CUDA)
_SPELLINGS = {"cpu": CPU, "cuda": CUDA, "gpu": CUDA}  # `gpu`: Theano's name for a CUDA device
_FLAG = re.compile(r"([a-z]+)(\d*)\Z")


@dataclass(frozen=True)
class Device:
    """A device kind (`cpu`, `cuda`) and, for a GPU, which one (None: the runtime's default)."""

    kind: str
    index: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown device kind {self.kind!r} (kinds: {', '.join(KINDS)})")
        if self.index is not None and (self.kind == CPU or self.index < 0):
            raise ValueError(f"device {self.kind} has no number {self.index}")

    @classmethod
    def parse(cls, text: Any) -> "Device":
        """`cpu`, `cuda`, `cudaN`, `gpu`, `gpuN` (any case, spaces around); ValueError otherwise."""
        m = _FLAG.match(str(text).strip().lower())
        kind = _SPELLINGS.get(m.group(1)) if m else None
        if kind is None or (kind == CPU and m.group(2)):
            raise ValueError(text)
        return cls(kind, int(m.group(2)) if m.group(2) else None)

    def __str__(self) -> str:
        """The flag's normalized spelling: `cpu`, `cuda`, `cuda1`."""
        return self.kind if self.index is None else f"{self.kind}{self.index}"
