"""A memref during code generation: a base pointer plus offset, sizes and element strides, all
kept as SSA values (no descriptor struct in memory), so views cost nothing and sizes or
strides known at compile time stay constants that LLVM folds (a unit inner stride is what
lets the loop vectorizer widen the loop).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from llvmlite import ir

from ..dialects.builtin import MemRefType
from .scalar_emit import memory_type

I64 = ir.IntType(64)


def i64(value: int) -> ir.Constant:
    return ir.Constant(I64, int(value))


@dataclass
class MemRef:
    """`ptr` points at element 0 of the underlying allocation; element (i, j, ...) lives at
    `ptr[offset + i*strides[0] + j*strides[1] + ...]`."""

    type: MemRefType
    ptr: ir.Value
    offset: ir.Value
    sizes: list[ir.Value]
    strides: list[ir.Value]

    @property
    def elem(self) -> ir.Type:
        return memory_type(self.type.element)

    def address(self, b: ir.IRBuilder, indices: Sequence[ir.Value]) -> ir.Value:
        """`getelementptr` (never integer address arithmetic) to one element."""
        linear: ir.Value = self.offset
        for idx, stride in zip(indices, self.strides):
            if isinstance(stride, ir.Constant) and stride.constant == 0:
                continue
            term = idx if (isinstance(stride, ir.Constant) and stride.constant == 1) else b.mul(idx, stride)
            linear = term if _is_zero(linear) else b.add(linear, term)
        return b.gep(self.ptr, [linear], inbounds=True, source_etype=self.elem)


def _is_zero(v: ir.Value) -> bool:
    return isinstance(v, ir.Constant) and v.constant == 0


def static_or(value: int | None, dynamic: ir.Value) -> ir.Value:
    """A compile-time constant where the type knows it, else the run-time value."""
    return i64(value) if value is not None else dynamic


def contiguous(b: ir.IRBuilder, t: MemRefType, ptr: ir.Value, sizes: Sequence[ir.Value]) -> MemRef:
    """A row-major buffer of `sizes` (static sizes from the type become constants)."""
    sizes = [static_or(d, s) for d, s in zip(t.shape, sizes)]
    strides: list[ir.Value] = []
    acc: ir.Value = i64(1)
    for axis in reversed(range(t.rank)):
        strides.append(acc)
        acc = mul(b, acc, sizes[axis])
    return MemRef(t, ptr, i64(0), sizes, list(reversed(strides)))


def mul(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """x * y, folded when both are constants or one is 1."""
    if isinstance(x, ir.Constant) and isinstance(y, ir.Constant):
        return i64(x.constant * y.constant)
    if isinstance(x, ir.Constant) and x.constant == 1:
        return y
    if isinstance(y, ir.Constant) and y.constant == 1:
        return x
    return b.mul(x, y)


def num_elements(b: ir.IRBuilder, sizes: Sequence[ir.Value]) -> ir.Value:
    n: ir.Value = i64(1)
    for s in sizes:
        n = mul(b, n, s)
    return n


def transpose(m: MemRef, t: MemRefType, perm: Sequence[int]) -> MemRef:
    return MemRef(t, m.ptr, m.offset, [m.sizes[p] for p in perm], [m.strides[p] for p in perm])


def subview(b: ir.IRBuilder, m: MemRef, t: MemRefType, offsets: Sequence[ir.Value],
            sizes: Sequence[ir.Value], steps: Sequence[ir.Value]) -> MemRef:
    offset = m.offset
    strides = []
    for off, step, stride in zip(offsets, steps, m.strides):
        offset = b.add(offset, b.mul(off, stride))
        strides.append(b.mul(stride, step))
    return MemRef(t, m.ptr, offset, [static_or(d, s) for d, s in zip(t.shape, sizes)], strides)


def broadcast(m: MemRef, t: MemRefType, dims: Sequence[int], sizes: Sequence[ir.Value]) -> MemRef:
    strides = []
    for d in dims:
        # new axes, and source axes of static size 1 stretched to any size, read one element
        strides.append(i64(0) if d < 0 or m.type.shape[d] == 1 else m.strides[d])
    return MemRef(t, m.ptr, m.offset, [static_or(d, s) for d, s in zip(t.shape, sizes)], strides)
