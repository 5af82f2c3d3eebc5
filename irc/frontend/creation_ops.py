"""`AllocShape` (tensor.alloc: a value broadcast to sizes given as 0-d int64 tensors, what
`T.alloc`, `T.zeros`, `T.ones` build) and `Iota` (tensor.iota: 0..n-1, under `T.arange`)."""
from __future__ import annotations

from .graph import Apply, Op, Variable, infer_via_dialect


def _check_sizes(op: Op, sizes: tuple[Variable, ...]) -> None:
    for k, s in enumerate(sizes):
        if s.ndim != 0 or s.dtype != "int64":
            raise TypeError(f"{op}: size {k} must be a 0-d int64 tensor, got {s.type}")


class AllocShape(Op):
    """`value` (one dim per size; broadcastable dims are repeated) at the given sizes."""

    ir_name = "tensor.alloc"

    def make_node(self, value: Variable, *sizes: Variable) -> Apply:  # type: ignore[override]
        _check_sizes(self, sizes)
        types = infer_via_dialect(self.ir_name, [value.type, *(s.type for s in sizes)], {})
        return Apply(self, [value, *sizes], [Variable(types[0])])

    def __str__(self) -> str:
        return "Alloc"


class Iota(Op):
    """The int64 vector 0, 1, ..., n - 1 for a 0-d int64 `n`."""

    ir_name = "tensor.iota"

    def make_node(self, n: Variable) -> Apply:  # type: ignore[override]
        _check_sizes(self, (n,))
        return Apply(self, [n], [Variable(infer_via_dialect(self.ir_name, [n.type], {})[0])])
