"""`loop`: buffers and loops, the level between value-semantic tensors and LLVM IR.

Buffers are `MemRefType`s: a base pointer plus an element offset, sizes and element strides.
Views (`transpose`, `subview`, `broadcast`, `reshape`) only compute a new offset/sizes/strides
triple, so transposes, slices and broadcasts (stride 0) never copy. Index arithmetic has its
own small set of ops here so that this level stays independent of the `scalar` dialect's
choices; element computation inside loops uses `scalar` ops.
"""
from __future__ import annotations

from typing import Sequence

from ..ir.assembly_forms import OperandListForm
from ..ir.attributes import DenseArrayAttr, IntegerAttr, StringAttr, UnitAttr
from ..ir.core import Block, Operation, Pure, Region, Terminator, Value
from ..ir.types import ScalarType, Type, i1, i32, index
from .builtin import DenseAttr, MemRefType


def _memref(op: Operation, v: Value, what: str = "operand") -> MemRefType:
    if not isinstance(v.type, MemRefType):
        raise op.error(f"{what} must be a memref, got {v.type}")
    return v.type


def _indices(op: Operation, values: Sequence[Value], what: str) -> None:
    for v in values:
        if v.type != index:
            raise op.error(f"{what} must be of type index, got {v.type}")


def dynamic_strides(rank: int) -> tuple[None, ...]:
    return (None,) * rank


def view_type(shape: Sequence[int | None], element: ScalarType, device: str | None = None) -> MemRefType:
    """The type of a view whose strides and offset are only known at run time (a view stays
    where its buffer is: `device`)."""
    return MemRefType(tuple(shape), element, dynamic_strides(len(shape)), None, device)


# ---------------------------------------------------------------------------- buffers
class AllocOp(Operation):
    """`%b = loop.alloc %n, %m : (index, index) -> memref<?x?xf32>`: a new contiguous buffer;
    one index operand per dynamic size."""

    name = "loop.alloc"
    assembly = "short"

    def verify_(self) -> None:
        t = _memref(self, self.result, "result")
        if t.strides is not None or t.offset != 0:
            raise self.error("allocates contiguous buffers only")
        if self.num_operands != sum(d is None for d in t.shape):
            raise self.error("needs one size operand per dynamic dimension")
        _indices(self, self.operands, "sizes")
        slot = self.attributes.get("irc.workspace")  # code generation keeps it across calls
        if slot is not None and not (isinstance(slot, IntegerAttr) and slot.value >= 0):
            raise self.error(f"'irc.workspace' must be a slot number (an integer >= 0), got {slot}")


class DeallocOp(Operation):
    """`loop.dealloc %b : memref<...>`: frees a buffer made by `loop.alloc`."""

    name = "loop.dealloc"
    assembly = "short"

    def verify_(self) -> None:
        if self.num_operands != 1 or self.results:
            raise self.error("takes one buffer and has no results")
        _memref(self, self.operand(0))


class GlobalOp(Operation):
    """`%c = loop.global {value = dense<...> : tensor<...>} : memref<...>`: read-only constant
    data baked into the compiled code."""

    name = "loop.global"
    assembly = "short"
    traits = (Pure,)

    def verify_(self) -> None:
        if not isinstance(self.attributes.get("value"), DenseAttr):
            raise self.error("requires a dense 'value'")
        t = _memref(self, self.result, "result")
        if any(d is None for d in t.shape) or t.strides is not None:
            raise self.error("result must be a static contiguous memref")
        value = self.attributes["value"].type
        if tuple(value.shape) != tuple(t.shape) or value.element != t.element:
            raise self.error(f"value of type {value} does not match the result {t}")


class IndexOp(Operation):
    """A pure op in the short form whose one result is an index (sizes, index arithmetic; the
    `gpu` dialect's grid coordinates)."""

    assembly = "short"
    traits = (Pure,)

    @classmethod
    def infer_result_types(cls, operand_types, attributes) -> list[Type]:
        return [index]


class DimOp(IndexOp):
    """`%n = loop.dim %b {axis = 0} : (memref<...>) -> index`."""

    name = "loop.dim"

    @property
    def axis(self) -> int:
        return self.attributes["axis"].value  # type: ignore[attr-defined]

    def verify_(self) -> None:
        t = _memref(self, self.operand(0))
        if not isinstance(self.attributes.get("axis"), IntegerAttr) or not 0 <= self.axis < t.rank:
            raise self.error("requires an integer 'axis' within the rank")


# ---------------------------------------------------------------------------- views
class TransposeOp(Operation):
    """`%v = loop.transpose %b {perm = array<i64: 1, 0>}`: result axis i is source axis perm[i]."""

    name = "loop.transpose"
    assembly = "short"
    traits = (Pure,)

    @property
    def perm(self) -> tuple[int, ...]:
        return tuple(self.attributes["perm"])  # type: ignore[arg-type]

    def verify_(self) -> None:
        src = _memref(self, self.operand(0))
        if sorted(self.perm) != list(range(src.rank)):
            raise self.error("'perm' must be a permutation of the source axes")
        if self.result.type.shape != tuple(src.shape[p] for p in self.perm):
            raise self.error("result shape is not the permuted source shape")


class SubviewOp(Operation):
    """`%v = loop.subview %b, offsets..., sizes..., steps...`: per axis, the elements
    `offset + k * step` for k < size (negative steps allowed)."""

    name = "loop.subview"
    assembly = "short"
    traits = (Pure,)

    def verify_(self) -> None:
        src = _memref(self, self.operand(0))
        if self.num_operands != 1 + 3 * src.rank:
            raise self.error("needs an offset, a size and a step per axis")
        _indices(self, self.operands[1:], "offsets, sizes and steps")
        if _memref(self, self.result, "result").rank != src.rank:
            raise self.error("keeps the rank")


class BroadcastOp(Operation):
    """`%v = loop.broadcast %b, sizes... {dims = array<i64: -1, 0>}`: Theano's dimshuffle as a
    view. Result axis i reads source axis dims[i] (in any order), or is a new axis (-1) of
    stride 0; source axes of static size 1 may be dropped or stretched (stride 0). One index
    operand per result size."""

    name = "loop.broadcast"
    assembly = "short"
    traits = (Pure,)

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(self.attributes["dims"])  # type: ignore[arg-type]

    def verify_(self) -> None:
        src = _memref(self, self.operand(0))
        res = _memref(self, self.result, "result")
        if len(self.dims) != res.rank or self.num_operands != 1 + res.rank:
            raise self.error("needs one entry of 'dims' and one size per result axis")
        _indices(self, self.operands[1:], "sizes")
        used = [d for d in self.dims if d >= 0]
        if len(used) != len(set(used)) or any(d >= src.rank for d in used):
            raise self.error("'dims' must name distinct source axes")
        for axis in range(src.rank):
            if axis not in used and src.shape[axis] != 1:
                raise self.error(f"drops source axis {axis}, which is not of static size 1")


class ReshapeOp(Operation):
    """`%v = loop.reshape %b, sizes... : (memref<?x?xf32>, index) -> memref<?xf32>`: a new shape
    for a contiguous buffer (one index operand per dynamic result size)."""

    name = "loop.reshape"
    assembly = "short"
    traits = (Pure,)

    def verify_(self) -> None:
        src = _memref(self, self.operand(0))
        res = _memref(self, self.result, "result")
        if src.strides is not None or res.strides is not None or src.offset != 0:
            raise self.error("reshapes contiguous buffers only")
        if self.num_operands != 1 + sum(d is None for d in res.shape):
            raise self.error("needs one size operand per dynamic result dimension")


# ---------------------------------------------------------------------------- element access
class _AccessForm:
    """The custom form `%b[%i, %j] {attrs} : memref<...>` of an op whose operands are a buffer
    and its indices (`loop.load`, `loop.prefetch`)."""

    def print_custom(self, printer) -> bool | None:
        if not self.operands or not isinstance(self.operand(0).type, MemRefType):
            return False
        printer.write(" ", printer.name(self.operand(0)), "[", printer.names(self.operands[1:]), "]",
                      printer.attr_dict(self.attributes), " : ", printer.type(self.operand(0).type))
        return None

    @classmethod
    def parse_access(cls, parser) -> tuple[list[Value], dict, MemRefType]:
        buf = parser.parse_operand_refs()
        indices = _parse_indices(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.expect(":", "':' and the memref type")
        t = parser.parse_type()
        if not isinstance(t, MemRefType):
            raise parser.error(f"expected a memref type, got {t}")
        return parser.resolve_operands(buf + indices, [t] + [index] * len(indices)), attrs, t


class LoadOp(_AccessForm, Operation):
    """`%v = loop.load %b[%i, %j] : memref<?x?xf32>`."""

    name = "loop.load"

    @classmethod
    def parse_custom(cls, parser) -> "LoadOp":
        operands, attrs, t = cls.parse_access(parser)
        return parser.create(cls, operands, [t.element], attrs)

    @classmethod
    def infer_result_types(cls, operand_types, attributes) -> list[Type]:
        return [operand_types[0].element]

    def verify_(self) -> None:
        t = _memref(self, self.operand(0))
        if self.num_operands != 1 + t.rank:
            raise self.error(f"needs {t.rank} indices")
        _indices(self, self.operands[1:], "indices")
        if self.result.type != t.element:
            raise self.error("result type must be the element type")


class PrefetchOp(_AccessForm, Operation):
    """`loop.prefetch %b[%i, %j] {locality = 3} : memref<?x?xf32>`: a hint that the element is
    read soon (with `write`: written), so that the fetch of its cache line overlaps the work
    before. `locality` 0..3 is how near the core the line should stay (3: every level, x86
    `prefetcht0`). It never faults; a target without prefetches drops it. A gemm that reads
    its accumulator (an update in place, W ← W − lr·Xᵀ·δ) asks for each tile of it before the
    tile's products: 3–5% of the update on two threads."""

    name = "loop.prefetch"

    @classmethod
    def parse_custom(cls, parser) -> "PrefetchOp":
        operands, attrs, _ = cls.parse_access(parser)
        return parser.create(cls, operands, [], attrs)

    @property
    def locality(self) -> int:
        a = self.attributes.get("locality")
        return a.value if isinstance(a, IntegerAttr) else 3

    @property
    def write(self) -> bool:
        return "write" in self.attributes

    def verify_(self) -> None:
        t = _memref(self, self.operand(0))
        if self.num_operands != 1 + t.rank or self.results:
            raise self.error(f"needs a buffer and {t.rank} indices, and has no result")
        _indices(self, self.operands[1:], "indices")
        a = self.attributes.get("locality")
        if a is not None and not (isinstance(a, IntegerAttr) and 0 <= a.value <= 3):
            raise self.error(f"'locality' must be an integer 0..3, got {a}")
        w = self.attributes.get("write")
        if w is not None and not isinstance(w, UnitAttr):
            raise self.error("'write' is a unit attribute")


class AlignGapOp(_AccessForm, Operation):
    """`%g = loop.align_gap %b[%i, %j] {bytes = 64} : memref<?x?xf32>`: how many elements
    after b[i, j] along the last axis (walked with unit stride) the first one at a
    `bytes`-aligned address lies, in [0, bytes / element size); 0 where no element lies on
    such an address (the gap is not a whole number of elements) or the target has no
    addresses (the GPU emulator). A loop split there reads whole aligned vectors after the
    split: a 64-byte vector at numpy's 16-byte alignment touches two cache lines, and the
    column sums of a matrix read 20% faster aligned. Code may use it to choose a split point
    only, never in a way that changes results."""

    name = "loop.align_gap"
    traits = (Pure,)

    @classmethod
    def parse_custom(cls, parser) -> "AlignGapOp":
        operands, attrs, _ = cls.parse_access(parser)
        return parser.create(cls, operands, [index], attrs)

    @classmethod
    def infer_result_types(cls, operand_types, attributes) -> list[Type]:
        return [index]

    @property
    def bytes(self) -> int:
        return self.attributes["bytes"].value  # type: ignore[attr-defined]

    def verify_(self) -> None:
        t = _memref(self, self.operand(0))
        if self.num_operands != 1 + t.rank or len(self.results) != 1 or self.result.type != index:
            raise self.error(f"needs a buffer and {t.rank} indices, and gives an index")
        _indices(self, self.operands[1:], "indices")
        a = self.attributes.get("bytes")
        if not (isinstance(a, IntegerAttr) and a.value > 0 and a.value & (a.value - 1) == 0):
            raise self.error(f"'bytes' must be a power of two, got {a}")


class StoreOp(Operation):
    """`loop.store %v, %b[%i, %j] : memref<?x?xf32>`."""

    name = "loop.store"

    def print_custom(self, printer) -> bool | None:
        if self.num_operands < 2 or not isinstance(self.operand(1).type, MemRefType):
            return False
        printer.write(" ", printer.names(self.operands[:2]), "[", printer.names(self.operands[2:]), "]",
                      printer.attr_dict(self.attributes), " : ", printer.type(self.operand(1).type))
        return None

    @classmethod
    def parse_custom(cls, parser) -> "StoreOp":
        refs = parser.parse_operand_refs()
        indices = _parse_indices(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.expect(":", "':' and the memref type")
        t = parser.parse_type()
        if not isinstance(t, MemRefType) or len(refs) != 2:
            raise parser.error("expected `loop.store %value, %buffer[indices] : memref<...>`")
        operands = parser.resolve_operands(refs + indices, [t.element, t] + [index] * len(indices))
        return parser.create(cls, operands, [], attrs)

    def verify_(self) -> None:
        t = _memref(self, self.operand(1))
        if self.num_operands != 2 + t.rank or self.results:
            raise self.error(f"needs a value, a buffer and {t.rank} indices")
        _indices(self, self.operands[2:], "indices")
        if self.operand(0).type != t.element:
            raise self.error("stored value must have the element type")


class GemmTileOp(Operation):
    """`loop.gemm_tile %a, <mr groups of indices of a>, %bp, %p, %q0, %q1, %tile, %blk
    {mr = 12, nr = 32, axis = 1}`: a product's register tile, the micro-kernel of
    `tensor_to_loop/gemm.py`, as one op:

        tile[blk, r, t] = Σ_{q0 ≤ q < q1} a[idx_r with q on `axis`] · bp[p, q, t]

    for r < mr, t < nr, each sum in the order of q (floats: one fused multiply-add per step, as
    the scalar loop did; integers: a wrapping multiply and add). Code generation writes it as
    a loop of one `nr`-lane vector of bp and mr broadcasts of a per step
    (`codegen_cpu/gemm_tile.py`): mr·nr scalar `fma`s written out for LLVM's SLP vectorizer to
    widen took most of a training step's cold compile. `bp` and `tile` are contiguous buffers
    whose last dimension is `nr`; numbers, not booleans."""

    name = "loop.gemm_tile"
    assembly = "short"

    def _count(self, key: str) -> int:
        a = self.attributes.get(key)
        if not isinstance(a, IntegerAttr) or a.value < (0 if key == "axis" else 1):
            raise self.error(f"requires an integer '{key}'")
        return a.value

    @property
    def mr(self) -> int:
        return self.attributes["mr"].value  # type: ignore[attr-defined]

    @property
    def nr(self) -> int:
        return self.attributes["nr"].value  # type: ignore[attr-defined]

    @property
    def axis(self) -> int:
        return self.attributes["axis"].value  # type: ignore[attr-defined]

    def a_indices(self) -> list[list[Value]]:
        """Per row r of the tile, the indices of a (the one on `axis` is ignored: q runs there)."""
        rank = self.operand(0).type.rank
        flat = self.operands[1:1 + self.mr * rank]
        return [list(flat[r * rank:(r + 1) * rank]) for r in range(self.mr)]

    def rest(self) -> tuple[Value, ...]:
        """(bp, p, q0, q1, tile, blk)."""
        return tuple(self.operands[1 + self.mr * self.operand(0).type.rank:])

    def verify_(self) -> None:
        mr, nr, axis = self._count("mr"), self._count("nr"), self._count("axis")
        a = _memref(self, self.operand(0), "a")
        if axis >= a.rank:
            raise self.error(f"'axis' {axis} is not an axis of a ({a})")
        if self.results or self.num_operands != 1 + mr * a.rank + 6:
            raise self.error(f"takes a, {mr}x{a.rank} indices, bp, p, q0, q1, tile and blk, and has no results")
        bp, p, q0, q1, tile, blk = self.rest()
        _indices(self, [*self.operands[1:1 + mr * a.rank], p, q0, q1, blk], "indices and bounds")
        for what, v, shape in (("bp", bp, (None, None, nr)), ("tile", tile, (None, mr, nr))):
            t = _memref(self, v, what)
            if t.rank != 3 or t.shape[2] != nr or (t.shape[1] != shape[1] and shape[1] is not None):
                raise self.error(f"{what} must be a memref<?x{'?' if shape[1] is None else shape[1]}x{nr}>, got {t}")
            if t.strides is not None or t.offset != 0:
                raise self.error(f"{what} must be contiguous (it is read or written {nr} lanes at a time)")
            if t.element != a.element:
                raise self.error(f"{what} holds {t.element}, a holds {a.element}")
        if a.element.is_bool:
            raise self.error(f"multiplies numbers, got {a.element}")


# ---------------------------------------------------------------------------- loops
KERNEL = "irc.kernel"  # on a loop.for: compiled as a shared kernel (see ForOp)
WHILE = "irc.while"    # on a loop.for: the iter_arg (its number) whose falsity ends the loop (see ForOp)


class ForOp(Operation):
    """`%r = loop.for %i = %lb to %ub step %s iter_args(%acc = %init) { ... loop.yield %x }`.

    Operands: lb, ub, step, inits. The body block takes the induction variable then one
    argument per iter_arg; results are the final iter_args. The attribute `reduction`
    (unit) marks iter_args that are reduction accumulators: codegen gives their float
    arithmetic `reassoc` so the loop vectorizes. The attribute `irc.kernel` (a string naming
    it for a reader) marks a one-trip loop that groups a piece many functions share: the
    CPU code generator compiles it once as a function of its own (`KERNEL`). The attribute
    `irc.while = k` says that once i1 iter_arg #k is false, the remaining iterations change
    nothing (their body is a `loop.if` on it), so code generation may leave the loop there —
    an early exit that a reader ignoring the attribute still gets right (`WHILE`)."""

    name = "loop.for"

    def print_custom(self, printer) -> bool | None:
        if self.num_operands < 3 or len(self.regions) != 1 or len(self.regions[0].blocks) != 1:
            return False
        body = self.regions[0].blocks[0]
        if len(body.args) != self.num_operands - 2:
            return False
        lb, ub, step = self.operands[:3]
        printer.write(" ", printer.name(body.args[0]), " = ", printer.name(lb), " to ", printer.name(ub),
                      " step ", printer.name(step))
        if self.results:
            pairs = [f"{printer.name(a)} = {printer.name(v)}"
                     for a, v in zip(body.args[1:], self.operands[3:])]
            printer.write(" iter_args(", ", ".join(pairs), ") -> (", printer.types(self.result_types), ")")
        printer.write(" ")
        printer.print_region(self.regions[0], entry_args=False)
        printer.write(printer.attr_dict(self.attributes))
        return None

    @classmethod
    def parse_custom(cls, parser) -> "ForOp":
        iv = parser.parse_value_def()
        parser.expect("=")
        bounds = [parser.parse_operand_refs()]
        parser.expect("to")
        bounds.append(parser.parse_operand_refs())
        parser.expect("step")
        bounds.append(parser.parse_operand_refs())
        if any(len(b) != 1 for b in bounds):
            raise parser.error("expected `loop.for %i = %lb to %ub step %s`")
        args: list[int] = []
        inits: list[int] = []
        types: list[Type] = []
        if parser.accept("iter_args"):
            parser.expect("(")
            while True:
                args.append(parser.parse_value_def())
                parser.expect("=")
                inits.append(parser.parse_operand_ref())
                if not parser.accept(","):
                    break
            parser.expect(")")
            parser.expect("->")
            parser.expect("(")
            types = parser.parse_type_list()
            parser.expect(")")
        operands = parser.resolve_operands([b[0] for b in bounds] + inits, [index] * 3 + types)
        region = parser.parse_region(entry_args=[(iv, index)] + list(zip(args, types)))
        attrs = parser.parse_optional_attr_dict()
        return parser.create(cls, operands, types, attrs, [region])

    @staticmethod
    def create(lb: Value, ub: Value, step: Value, inits: Sequence[Value] = (),
               reduction: bool = False) -> "ForOp":
        body = Block([index] + [v.type for v in inits])
        attrs = {"reduction": UnitAttr()} if reduction else {}
        op = ForOp([lb, ub, step, *inits], [v.type for v in inits], attrs, [Region([body])])
        return op

    @property
    def body(self) -> Block:
        return self.regions[0].blocks[0]

    @property
    def induction_var(self) -> Value:
        return self.body.args[0]

    @property
    def inits(self) -> tuple[Value, ...]:
        return self.operands[3:]

    def verify_(self) -> None:
        if self.num_operands < 3 or len(self.regions) != 1:
            raise self.error("needs lb, ub, step and one body region")
        _indices(self, self.operands[:3], "bounds and step")
        body = self.body
        types = [index] + [v.type for v in self.inits]
        if [a.type for a in body.args] != types:
            raise self.error("body arguments must be the index then the iter_args")
        if [r.type for r in self.results] != types[1:]:
            raise self.error("results must match the iter_args")
        term = body.terminator
        if not isinstance(term, YieldOp) or [v.type for v in term.operands] != types[1:]:
            raise self.error("body must end with a 'loop.yield' of the iter_args' types")
        k = self.attributes.get(WHILE)
        if k is not None and (not isinstance(k, IntegerAttr) or not 0 <= k.value < len(self.inits)
                              or self.inits[k.value].type != i1):
            raise self.error(f"'{WHILE}' must name an i1 iter_arg by its number")


class ParallelOp(Operation):
    """`loop.parallel (%i, %j) = (%l0, %l1) to (%u0, %u1) step (%s0, %s1) { ... }`: a loop nest
    whose iterations are independent (any order, any thread). Operands: lbs, ubs, steps."""

    name = "loop.parallel"

    def print_custom(self, printer) -> bool | None:
        if self.num_operands % 3 or len(self.regions) != 1 or len(self.regions[0].blocks) != 1:
            return False
        body = self.regions[0].blocks[0]
        if len(body.args) != self.rank:
            return False
        lbs, ubs, steps = self.bounds()
        printer.write(" (", printer.names(body.args), ") = (", printer.names(lbs), ") to (",
                      printer.names(ubs), ") step (", printer.names(steps), ") ")
        printer.print_region(self.regions[0], entry_args=False)
        printer.write(printer.attr_dict(self.attributes))
        return None

    @classmethod
    def parse_custom(cls, parser) -> "ParallelOp":
        parser.expect("(")
        ivs = [parser.parse_value_def()]
        while parser.accept(","):
            ivs.append(parser.parse_value_def())
        parser.expect(")")
        parser.expect("=")
        groups = []
        for i, word in enumerate(("", "to", "step")):
            if word:
                parser.expect(word)
            parser.expect("(")
            groups += parser.parse_operand_refs()
            parser.expect(")")
        if len(groups) != 3 * len(ivs):
            raise parser.error(f"expected {len(ivs)} lower bounds, upper bounds and steps")
        operands = parser.resolve_operands(groups, [index] * len(groups))
        region = parser.parse_region(entry_args=[(iv, index) for iv in ivs])
        attrs = parser.parse_optional_attr_dict()
        return parser.create(cls, operands, [], attrs, [region])

    @staticmethod
    def create(lbs: Sequence[Value], ubs: Sequence[Value], steps: Sequence[Value]) -> "ParallelOp":
        body = Block([index] * len(lbs))
        return ParallelOp([*lbs, *ubs, *steps], [], {}, [Region([body])])

    @property
    def body(self) -> Block:
        return self.regions[0].blocks[0]

    @property
    def rank(self) -> int:
        return self.num_operands // 3

    def bounds(self) -> tuple[tuple[Value, ...], tuple[Value, ...], tuple[Value, ...]]:
        n = self.rank
        ops = self.operands
        return ops[:n], ops[n:2 * n], ops[2 * n:]

    def verify_(self) -> None:
        if self.num_operands % 3 or self.num_operands == 0 or self.results:
            raise self.error("needs lbs, ubs and steps for each of at least one dimension")
        _indices(self, self.operands, "bounds and steps")
        if [a.type for a in self.body.args] != [index] * self.rank:
            raise self.error("body takes one index per dimension")
        term = self.body.terminator
        if not isinstance(term, YieldOp) or term.operands:
            raise self.error("body must end with an empty 'loop.yield'")


class IfOp(Operation):
    """`%r = "loop.if"(%c) ({ ... loop.yield %a } , { ... loop.yield %b }) : (i1) -> memref<?xf32>`.

    scf.if: runs the then-region when the i1 condition holds, else the else-region; each ends
    in a `loop.yield` of one value per result (scalars, indices or memrefs of the result's exact
    type). A yielded memref is a buffer its branch allocated and hands over: the op's result
    owns it (`plan_buffers` frees it after its last use)."""

    name = "loop.if"

    def branch(self, taken: bool) -> Block:
        return self.regions[0 if taken else 1].blocks[0]

    def verify_(self) -> None:
        if len(self.operands) != 1 or self.operand(0).type != i1:
            raise self.error("expects one i1 operand (the condition)")
        if len(self.regions) != 2 or any(len(r.blocks) != 1 or r.blocks[0].args for r in self.regions):
            raise self.error("expects two regions (then, else) of one block without arguments")
        for taken in (True, False):
            term = self.branch(taken).terminator
            what = "then" if taken else "else"
            if not isinstance(term, YieldOp):
                raise self.error(f"the {what} region must end with 'loop.yield'")
            if [v.type for v in term.operands] != self.result_types:
                raise self.error(f"the {what} region yields ({', '.join(str(v.type) for v in term.operands)})"
                                 f" but the results are ({', '.join(map(str, self.result_types))})")


class YieldOp(OperandListForm, Operation):
    """`loop.yield %a, %b : f32, f32`: ends a loop body (passing the next iter_args) or a
    branch of `loop.if` (passing its results)."""

    name = "loop.yield"
    traits = (Terminator, Pure)

    def verify_(self) -> None:
        if not isinstance(self.parent_op, (ForOp, ParallelOp, IfOp)):
            raise self.error("must end a 'loop.for' or 'loop.parallel' body or a 'loop.if' branch")


# ---------------------------------------------------------------------------- index arithmetic
class ConstantOp(Operation):
    """`%c = loop.constant {value = 4 : index} : index`."""

    name = "loop.constant"
    assembly = "short"
    traits = (Pure,)

    @classmethod
    def infer_result_types(cls, operand_types, attributes) -> list[Type]:
        return [attributes["value"].type]  # type: ignore[attr-defined]

    @property
    def value(self) -> int:
        return self.attributes["value"].value  # type: ignore[attr-defined]

    def verify_(self) -> None:
        attr = self.attributes.get("value")
        if not isinstance(attr, IntegerAttr) or attr.type != index or self.result.type != index:
            raise self.error("requires an index 'value' and an index result")


class _IndexBinary(IndexOp):
    def verify_(self) -> None:
        if self.num_operands != 2:
            raise self.error("takes two operands")
        _indices(self, [*self.operands, self.result], "operands and result")


class AddOp(_IndexBinary):
    """`%r = loop.add %a, %b : index`."""
    name = "loop.add"


class SubOp(_IndexBinary):
    name = "loop.sub"


class MulOp(_IndexBinary):
    name = "loop.mul"


class FloorDivOp(_IndexBinary):
    """Division rounding toward minus infinity (Python's `//`)."""
    name = "loop.floordiv"


class MinOp(_IndexBinary):
    name = "loop.min"


class MaxOp(_IndexBinary):
    name = "loop.max"


INDEX_BINARY = {"loop.add": lambda a, b: a + b, "loop.sub": lambda a, b: a - b,
                "loop.mul": lambda a, b: a * b, "loop.floordiv": lambda a, b: a // b,
                "loop.min": min, "loop.max": max}


class AssertEqOp(Operation):
    """`loop.assert_eq %a, %b {msg = "..."} : index, index`: the function fails with `msg`
    (before touching memory) when two sizes that must agree differ."""

    name = "loop.assert_eq"
    assembly = "short"

    @property
    def message(self) -> str:
        return self.attributes["msg"].value  # type: ignore[attr-defined]

    def verify_(self) -> None:
        if self.num_operands != 2 or self.results:
            raise self.error("takes two indices and has no results")
        _indices(self, self.operands, "operands")
        if not isinstance(self.attributes.get("msg"), StringAttr):
            raise self.error("requires a 'msg' string")


class CheckIndexOp(Operation):
    """`%j = loop.check_index %i, %n {msg = "..."} : (index, index) -> index`: numpy's rule for
    an integer index `i` on an axis of size `n` — the function fails with `msg` unless
    `-n <= i < n`; `j` is `i`, or `i + n` when `i` is negative. Its operands may be values read
    at run time (not only sizes), so only the native code checks it."""

    name = "loop.check_index"
    assembly = "short"

    @classmethod
    def infer_result_types(cls, operand_types, attributes) -> list[Type]:
        return [index]

    @property
    def message(self) -> str:
        return self.attributes["msg"].value  # type: ignore[attr-defined]

    def verify_(self) -> None:
        if self.num_operands != 2 or len(self.results) != 1:
            raise self.error("takes an index and a size and has one result")
        _indices(self, [*self.operands, self.result], "operands and result")
        if not isinstance(self.attributes.get("msg"), StringAttr):
            raise self.error("requires a 'msg' string")


class HostValueOp(Operation):
    """`%i = loop.host_value %n : (memref<i64, "cuda">) -> index`: the value of a 0-d integer
    argument that the caller passes from the host (a user input, not a shared variable), as an
    index the host side of a GPU function computes with (a minibatch's slice bounds from its
    index). The runtime knows it without reading the device: a host plan is recorded per value."""

    name = "loop.host_value"
    assembly = "short"

    @classmethod
    def infer_result_types(cls, operand_types, attributes) -> list[Type]:
        return [index]

    def verify_(self) -> None:
        if self.num_operands != 1 or len(self.results) != 1:
            raise self.error("takes one argument and has one result")
        v = self.operand(0)
        t = v.type
        if not (isinstance(t, MemRefType) and t.rank == 0 and t.element.is_integer):
            raise self.error(f"reads a 0-d integer buffer, got {t}")
        if isinstance(v, Value) and not isinstance(v.owner, Block):
            raise self.error("reads a function argument (a value the caller has on the host)")
        _indices(self, self.results, "result")


class CheckFlagOp(Operation):
    """`loop.check_flag %flag {msg = "..."} : memref<2xi32, "cuda">`: the function fails with
    `msg` (an IndexError) when `flag[0]` is not 0 once its kernels have run. The data checks of
    a GPU function: a kernel cannot stop the function, so the kernel that reads indices clamps
    them and writes 1 into `flag[0]` for a bad one (and into `flag[1]`, a slot nobody reads,
    for a good one: no branch, no atomics); the runtime reads the flag back after the call."""

    name = "loop.check_flag"
    assembly = "short"

    @property
    def message(self) -> str:
        return self.attributes["msg"].value  # type: ignore[attr-defined]

    def verify_(self) -> None:
        if self.num_operands != 1 or self.results:
            raise self.error("takes one flag buffer and has no results")
        t = self.operand(0).type
        if not (isinstance(t, MemRefType) and t.rank == 1 and t.element == i32 and t.device is not None):
            raise self.error(f"the flag must be a 1-d i32 device buffer, got {t}")
        if not isinstance(self.attributes.get("msg"), StringAttr):
            raise self.error("requires a 'msg' string")


# ops that make the function fail (return k > 0: the k-th of them in program order)
CHECKS = (AssertEqOp, CheckIndexOp)


# ---------------------------------------------------------------------------- helpers
def _parse_indices(parser) -> list[int]:
    parser.expect("[", "'[' and the indices")
    refs = parser.parse_operand_refs()
    parser.expect("]", "']' after the indices")
    return refs


def perm_attr(values: Sequence[int]) -> DenseArrayAttr:
    return DenseArrayAttr(tuple(int(v) for v in values))


def index_attr(value: int) -> IntegerAttr:
    return IntegerAttr(int(value), index)


__all__ = ["AllocOp", "DeallocOp", "GlobalOp", "IndexOp", "DimOp", "TransposeOp", "SubviewOp", "BroadcastOp",
           "ReshapeOp", "LoadOp", "StoreOp", "PrefetchOp", "AlignGapOp", "GemmTileOp", "ForOp", "ParallelOp", "YieldOp", "ConstantOp",
           "AddOp", "SubOp", "MulOp", "FloorDivOp", "MinOp", "MaxOp", "AssertEqOp", "CheckIndexOp", "CheckFlagOp", "HostValueOp", "CHECKS",
           "INDEX_BINARY", "view_type", "perm_attr", "index_attr"]
