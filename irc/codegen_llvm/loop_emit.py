"""`LoopEmitter`: the part of loop-dialect-to-LLVM conversion that no target changes.

Both code generators walk a function's ops in order and map IR values to LLVM values or
`MemRef`s; views, element access, `loop.for`/`loop.parallel` nests, index arithmetic and scalar
ops come out the same for the host and for a kernel. A target subclass adds its entry ABI and
its own ops, and adjusts the few points where it differs through the hooks below (how a value
is held in registers versus memory, the type a scalar is computed in, fast-math flags).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator, Sequence

from llvmlite import ir

from ..dialects import loop as L
from ..dialects.builtin import MemRefType
from ..ir.attributes import BoolAttr, FloatAttr, IntegerAttr
from ..ir.core import Block, Operation, Value
from ..ir.diagnostics import UnsupportedError
from ..ir.types import ScalarType, index
from . import memref_desc as M
from .constants import global_bytes
from .memref_desc import I64, MemRef, i64
from .scalar_emit import ScalarEmitter, constant, memory_type

I8 = ir.IntType(8)


class LoopEmitter:
    """Emits the ops of one function body; `op_<dialect>_<name>` methods handle each op."""

    pass_name = "convert-to-llvm"  # names the converter in errors
    scope = ""                     # where the op was met, for errors (" in a kernel")

    def __init__(self, llmod: ir.Module, target_data, math: dict[str, Callable[..., ir.Value]] | None = None):
        self.llmod = llmod
        self.target_data = target_data
        self.math = math
        self.values: dict[Value, object] = {}

    def enter_builder(self, builder: ir.IRBuilder, values: dict) -> None:
        """Emit into `builder` with `values` as the IR-to-LLVM mapping (outlined bodies get their own)."""
        self.b = builder
        self.scalar = ScalarEmitter(builder, self.math)
        self.values = values

    def item_size(self, t: ScalarType) -> int:
        """Bytes of one element of type `t` in memory, in the target's data layout."""
        return memory_type(t).get_abi_size(self.target_data)

    # ------------------------------------------------------------------ dispatch
    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    def get(self, v: Value):
        return self.values[v]

    def op(self, op: Operation) -> None:
        name = op.op_name
        method = getattr(self, "op_" + name.replace(".", "_"), None)
        if method is not None:
            method(op)
        elif name.startswith("scalar."):
            self.scalar_op(op)
        else:
            raise UnsupportedError(f"{self.pass_name}: no lowering for '{name}'{self.scope}", op.location)

    # ------------------------------------------------------------------ hooks
    def from_memory(self, v: ir.Value, t: ScalarType) -> ir.Value:
        """A value of element type `t` as loaded (or passed) to the value computed with: bools
        are stored as one byte."""
        return self.b.trunc(v, ir.IntType(1)) if t.is_bool else v

    def to_memory(self, v: ir.Value, t: ScalarType) -> ir.Value:
        """The inverse of `from_memory`, before a store."""
        return self.b.zext(v, I8) if t.is_bool else v

    def compute_type(self, t: ScalarType) -> ScalarType:
        """The type a scalar of type `t` is computed in."""
        return t

    def fast_math(self, op: Operation, t: ScalarType) -> tuple[str, ...]:
        """Fast-math flags for scalar op `op` computing in `t`."""
        return ()

    def scalar_constant(self, t: ScalarType, value) -> ir.Value:
        return constant(t, value)

    def cast(self, x: ir.Value, src: ScalarType, dst: ScalarType) -> ir.Value:
        return self.scalar.cast(x, src, dst)

    # ------------------------------------------------------------------ buffers and views
    def global_constant(self, op: Operation, name: str, align: int, addrspace: int = 0) -> None:
        """`loop.global`: the constant's bytes as an internal global named `name`."""
        t: MemRefType = op.result.type
        data = global_bytes(op)
        arr = ir.ArrayType(I8, len(data))
        g = ir.GlobalVariable(self.llmod, arr, name=name, addrspace=addrspace)
        g.global_constant = True
        g.linkage = "internal"
        g.align = align
        g.initializer = ir.Constant(arr, data)
        self.values[op.result] = M.contiguous(self.b, t, g, [i64(d) for d in t.shape])

    def op_loop_dim(self, op: Operation) -> None:
        self.values[op.result] = self.get(op.operand(0)).sizes[op.attributes["axis"].value]

    def op_loop_transpose(self, op: Operation) -> None:
        self.values[op.result] = M.transpose(self.get(op.operand(0)), op.result.type, op.perm)

    def op_loop_subview(self, op: Operation) -> None:
        src: MemRef = self.get(op.operand(0))
        r = src.type.rank
        vals = [self.get(v) for v in op.operands[1:]]
        self.values[op.result] = M.subview(self.b, src, op.result.type, vals[:r], vals[r:2 * r], vals[2 * r:])

    def op_loop_broadcast(self, op: Operation) -> None:
        sizes = [self.get(v) for v in op.operands[1:]]
        self.values[op.result] = M.broadcast(self.get(op.operand(0)), op.result.type, op.dims, sizes)

    def op_loop_reshape(self, op: Operation) -> None:
        src: MemRef = self.get(op.operand(0))
        t: MemRefType = op.result.type
        self.values[op.result] = M.contiguous(self.b, t, src.ptr, self.static_or(t.shape, op.operands[1:]))

    def static_or(self, shape: Sequence[int | None], dynamic: Sequence[Value]) -> list[ir.Value]:
        """The sizes of `shape`: its static ones as constants, each `?` from `dynamic` in order."""
        dyn = iter(self.get(v) for v in dynamic)
        return [i64(d) if d is not None else next(dyn) for d in shape]

    # ------------------------------------------------------------------ element access
    def op_loop_load(self, op: Operation) -> None:
        m: MemRef = self.get(op.operand(0))
        addr = m.address(self.b, [self.get(v) for v in op.operands[1:]])
        v = self.b.load(addr, typ=m.elem, align=m.elem.get_abi_size(self.target_data))
        self.values[op.result] = self.from_memory(v, m.type.element)

    def op_loop_store(self, op: Operation) -> None:
        m: MemRef = self.get(op.operand(1))
        v = self.to_memory(self.get(op.operand(0)), m.type.element)
        addr = m.address(self.b, [self.get(x) for x in op.operands[2:]])
        self.b.store(v, addr, align=m.elem.get_abi_size(self.target_data))

    def op_loop_prefetch(self, op: Operation) -> None:
        """A cache hint: dropped unless the target overrides this (the host does)."""

    def op_loop_align_gap(self, op: Operation) -> None:
        """(-address mod bytes) / element size, 0 where that is not a whole number of elements."""
        m: MemRef = self.get(op.operand(0))
        addr = self.b.ptrtoint(m.address(self.b, [self.get(v) for v in op.operands[1:]]), I64)
        size = i64(m.elem.get_abi_size(self.target_data))
        gap = self.b.and_(self.b.sub(i64(0), addr), i64(op.bytes - 1))
        whole = self.b.icmp_unsigned("==", self.b.urem(gap, size), i64(0))
        self.values[op.result] = self.b.select(whole, self.b.udiv(gap, size), i64(0))

    # ------------------------------------------------------------------ loops
    def op_loop_for(self, op: Operation) -> None:
        lb, ub, step = (self.get(v) for v in op.operands[:3])
        inits = [self.get(v) for v in op.operands[3:]]
        going = op.attributes.get(L.WHILE)
        for r, v in zip(op.results, self._loop(lb, ub, step, op.body, inits,
                                               going=None if going is None else going.value)):
            self.values[r] = v

    def op_loop_parallel(self, op: Operation) -> None:
        """The parallel dimensions as a sequential nest (a target may split the outer one)."""
        lbs, ubs, steps = op.bounds()
        self._nest(op.body, [(self.get(a), self.get(b), self.get(c)) for a, b, c in zip(lbs, ubs, steps)], [])

    def _nest(self, body: Block, dims, ivs: list) -> None:
        """The parallel dimensions as nested loops, the last one innermost."""
        if len(ivs) == len(dims):
            for arg, iv in zip(body.args, ivs):
                self.values[arg] = iv
            for op in body.ops[:-1]:  # the empty loop.yield is dropped
                self.op(op)
            return
        lb, ub, step = dims[len(ivs)]
        self._loop(lb, ub, step, None, [], inner=lambda iv: self._nest(body, dims, ivs + [iv]))

    def _loop(self, lb, ub, step, body: Block | None, inits: Sequence[ir.Value], inner=None,
              going: int | None = None) -> list:
        """A canonical loop `for (iv = lb; iv < ub; iv += step)` with carried values; with
        `going = k`, also left as soon as carried i1 value k is false (`loop.WHILE`)."""
        b = self.b
        pre = b.block
        header = b.append_basic_block("loop.header")
        body_bb = b.append_basic_block("loop.body")
        exit_bb = b.append_basic_block("loop.exit")
        b.branch(header)
        b.position_at_end(header)
        iv = b.phi(I64, "iv")
        iv.add_incoming(lb, pre)
        phis = []
        for v in inits:
            p = b.phi(v.type)
            p.add_incoming(v, pre)
            phis.append(p)
        more = b.icmp_signed("<", iv, ub)
        if going is not None:
            more = b.and_(more, phis[going])
        b.cbranch(more, body_bb, exit_bb)
        b.position_at_end(body_bb)
        if body is not None:
            self.values[body.args[0]] = iv
            for arg, p in zip(body.args[1:], phis):
                self.values[arg] = p
            for op in body.ops[:-1]:
                self.op(op)
            yielded = [self.get(v) for v in body.terminator.operands]
        else:
            inner(iv)
            yielded = []
        nxt = b.add(iv, step, flags=("nsw",))
        latch = b.block
        iv.add_incoming(nxt, latch)
        for p, v in zip(phis, yielded):
            p.add_incoming(v, latch)
        b.branch(header)
        b.position_at_end(exit_bb)
        return phis

    # ------------------------------------------------------------------ branches
    def op_loop_if(self, op: Operation) -> None:
        """Two basic blocks joined by phis of the yielded values (a memref's pointer, offset,
        sizes and strides each; equal constants stay constants, so a known stride stays known)."""
        b = self.b
        then_bb, else_bb, end_bb = (b.append_basic_block(n) for n in ("if.then", "if.else", "if.end"))
        b.cbranch(self.get(op.operand(0)), then_bb, else_bb)
        arms: list[tuple[list, ir.Block]] = []
        for taken, bb in ((True, then_bb), (False, else_bb)):
            b.position_at_end(bb)
            with self.branch_scope():
                block = op.branch(taken)
                for inner in block.ops[:-1]:
                    self.op(inner)
                arms.append(([self.get(v) for v in block.terminator.operands], b.block))
            b.branch(end_bb)
        b.position_at_end(end_bb)
        blocks = [bb for _, bb in arms]
        for k, r in enumerate(op.results):
            values = [vals[k] for vals, _ in arms]
            if isinstance(values[0], MemRef):
                self.values[r] = MemRef(values[0].type, self._phi([m.ptr for m in values], blocks),
                                        self._phi([m.offset for m in values], blocks),
                                        [self._phi(list(s), blocks) for s in zip(*(m.sizes for m in values))],
                                        [self._phi(list(s), blocks) for s in zip(*(m.strides for m in values))])
            else:
                self.values[r] = self._phi(values, blocks)

    @contextmanager
    def branch_scope(self) -> Iterator[None]:
        """Around the emission of one branch of a `loop.if` (a target keeps per-path state)."""
        yield

    def _phi(self, values: list, blocks: list) -> ir.Value:
        first = values[0]
        if all(v is first or (isinstance(v, ir.Constant) and isinstance(first, ir.Constant)
                              and v.type == first.type and v.constant == first.constant) for v in values):
            return first
        phi = self.b.phi(first.type)
        for v, bb in zip(values, blocks):
            phi.add_incoming(v, bb)
        return phi

    # ------------------------------------------------------------------ index arithmetic
    def op_loop_constant(self, op: Operation) -> None:
        self.values[op.result] = i64(op.value)

    def _index_binary(self, op: Operation) -> None:
        a, c = (self.get(v) for v in op.operands)
        floordiv = lambda x, y: self.scalar.op_floordiv([x, y], index, ())  # noqa: E731
        self.values[op.result] = index_binary(self.b, op.op_name, a, c, floordiv)

    op_loop_add = op_loop_sub = op_loop_mul = op_loop_floordiv = op_loop_min = op_loop_max = _index_binary

    # ------------------------------------------------------------------ scalar computation
    def scalar_op(self, op: Operation) -> None:
        name = op.op_name
        if name == "scalar.constant":
            attr = op.attributes["value"]
            value = attr.value if isinstance(attr, (FloatAttr, IntegerAttr, BoolAttr)) else attr
            self.values[op.result] = self.scalar_constant(op.result.type, value)
            return
        args = [self.get(v) for v in op.operands]
        if name == "scalar.cast":
            self.values[op.result] = self.cast(args[0], op.operand(0).type, op.result.type)
            return
        t: ScalarType = op.operand(1 if name == "scalar.select" else 0).type
        self.values[op.result] = self.scalar.emit(name, args, self.compute_type(t), self.fast_math(op, t))


def index_binary(b: ir.IRBuilder, name: str, a: ir.Value, c: ir.Value,
                 floordiv: Callable[[ir.Value, ir.Value], ir.Value]) -> ir.Value:
    """The i64 value of index op `name` (one of `loop.INDEX_BINARY`) of a and c, constants
    folded (a division by a constant 0 is left to `floordiv`, which says what it gives)."""
    if isinstance(a, ir.Constant) and isinstance(c, ir.Constant) and (name != "loop.floordiv" or c.constant):
        return i64(L.INDEX_BINARY[name](a.constant, c.constant))
    if name == "loop.floordiv":
        return floordiv(a, c)
    if name in ("loop.min", "loop.max"):
        return b.select(b.icmp_signed("<" if name == "loop.min" else ">", a, c), a, c)
    return {"loop.add": b.add, "loop.sub": b.sub, "loop.mul": b.mul}[name](a, c, flags=("nsw",))
