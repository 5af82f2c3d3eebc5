"""A builder for loop-dialect code: index arithmetic folded at build time (static sizes stay
constants), constants hoisted to the top of the function and shared, and loop nests as
context managers, so the lowering of each tensor op reads like the loops it makes."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator, Sequence

from ..dialects import loop as L
from ..dialects import scalar as S
from ..dialects.builtin import MemRefType
from ..ir.attributes import Attribute, IntegerAttr, StringAttr, TypeAttr
from ..ir.builder import Builder, InsertionPoint
from ..ir.core import Block, Operation, Region, Value
from ..ir.location import Location, UNKNOWN_LOC
from ..ir.types import ScalarType, i64, index

Index = Value  # an SSA value of type index
IV_NAMES = ("i", "j", "l", "m", "n", "p", "q")


class LoopBuilder:
    """Builds into `block`; `constants_block` (the function body) receives shared constants."""

    def __init__(self, block: Block, location: Location = UNKNOWN_LOC):
        self.top = block
        self.b = Builder(InsertionPoint.at_end(block), location)
        self._consts: dict[int, Value] = {}
        self._n_hoisted = 0

    @property
    def location(self) -> Location:
        return self.b.location

    @location.setter
    def location(self, loc: Location) -> None:
        self.b.location = loc

    # ------------------------------------------------------------------ index values
    def const(self, value: int) -> Index:
        v = self._consts.get(value)
        if v is None:
            op = L.ConstantOp([], [index], {"value": L.index_attr(value)}, (), (), UNKNOWN_LOC)
            self.top.insert(self._n_hoisted, op)
            self._n_hoisted += 1
            v = self._consts[value] = op.result
        return v

    @staticmethod
    def static_value(v: Index) -> int | None:
        owner = v.owner
        return owner.value if isinstance(owner, L.ConstantOp) else None

    def _binary(self, cls: type[Operation], a: Index, b: Index) -> Index:
        x, y = self.static_value(a), self.static_value(b)
        if x is not None and y is not None:
            return self.const(L.INDEX_BINARY[cls.name](x, y))
        if cls is L.AddOp and (x == 0 or y == 0):
            return b if x == 0 else a
        if cls is L.MulOp and (x == 1 or y == 1):
            return b if x == 1 else a
        if cls is L.SubOp and y == 0:
            return a
        return self.b.create(cls, [a, b]).result

    def add(self, a: Index, b: Index) -> Index:
        return self._binary(L.AddOp, a, b)

    def sub(self, a: Index, b: Index) -> Index:
        return self._binary(L.SubOp, a, b)

    def mul(self, a: Index, b: Index) -> Index:
        return self._binary(L.MulOp, a, b)

    def floordiv(self, a: Index, b: Index) -> Index:
        return self._binary(L.FloorDivOp, a, b)

    def min(self, a: Index, b: Index) -> Index:
        return a if a is b else self._binary(L.MinOp, a, b)

    def max(self, a: Index, b: Index) -> Index:
        return a if a is b else self._binary(L.MaxOp, a, b)

    def assert_eq(self, a: Index, b: Index, msg: str) -> None:
        x, y = self.static_value(a), self.static_value(b)
        if a is b or (x is not None and x == y):
            return
        self.b.create(L.AssertEqOp, [a, b], {"msg": StringAttr(msg)}, result_types=[])

    def assert_nonnegative(self, n: Index, msg: str) -> None:
        """Fail the function with `msg` when `n`, a size or count read at run time, is negative."""
        self.assert_eq(self.max(n, self.const(0)), n, msg)

    def check_index(self, i: Index, n: Index, msg: str) -> Index:
        """numpy's integer index `i` on an axis of size `n`, made non-negative; the function
        fails with `msg` unless -n <= i < n (see `loop.check_index`)."""
        return self.b.create(L.CheckIndexOp, [i, n], {"msg": StringAttr(msg)}).result

    # ------------------------------------------------------------------ buffers
    def dim(self, buf: Value, axis: int) -> Index:
        d = buf.type.shape[axis]
        if d is not None:
            return self.const(d)
        return self.b.create(L.DimOp, [buf], {"axis": IntegerAttr(axis)}).result

    def alloc(self, t: MemRefType, sizes: Sequence[Index]) -> Value:
        dyn = [s for d, s in zip(t.shape, sizes) if d is None]
        return self.b.create(L.AllocOp, dyn, {}, result_types=[t]).result

    def load(self, buf: Value, indices: Sequence[Index]) -> Value:
        return self.b.create(L.LoadOp, [buf, *indices]).result

    def store(self, value: Value, buf: Value, indices: Sequence[Index]) -> None:
        self.b.create(L.StoreOp, [value, buf, *indices], result_types=[])

    def prefetch(self, buf: Value, indices: Sequence[Index], locality: int = 3) -> None:
        """Ask for buf[indices]'s cache line ahead of a read (see `loop.prefetch`)."""
        self.b.create(L.PrefetchOp, [buf, *indices], {"locality": IntegerAttr(locality)}, result_types=[])

    def align_gap(self, buf: Value, indices: Sequence[Index], nbytes: int = 64) -> Index:
        """Elements from buf[indices] to the first at an `nbytes`-aligned address (see
        `loop.align_gap`): where a loop over the last axis may split to read aligned vectors."""
        op = self.b.create(L.AlignGapOp, [buf, *indices], {"bytes": IntegerAttr(nbytes)}, result_types=[index])
        return op.result

    def create(self, cls: type[Operation], operands: Sequence[Value], attrs: dict[str, Attribute] | None,
               result_type) -> Value:
        return self.b.create(cls, operands, attrs or {}, result_types=[result_type]).result

    # ------------------------------------------------------------------ scalars
    def scalar(self, name: str, operands: Sequence[Value]) -> Value:
        """`scalar.<name>` of the elementwise table."""
        return self.b.create(S.SCALAR_OPS[name], operands).result

    def inline(self, body: Block, args: Sequence[Value]) -> list[Value]:
        """The ops of a fused op's scalar `body` cloned here on `args` (its block arguments);
        the values its terminator yields."""
        mapping: dict[Value, Value] = dict(zip(body.args, args))
        for inner in body.ops[:-1]:
            self.b.insert(inner.clone(mapping))
        return [mapping.get(v, v) for v in body.ops[-1].operands]

    def scalar_const(self, value, t: ScalarType) -> Value:
        return self.b.create(S.ConstantOp, [], {"value": S.scalar_attr(value, t)}).result

    def wrap_negative(self, i: Value, size: Value) -> Value:
        """numpy's negative index or bound `i` counted from the end: `i + size` where `i < 0`
        (both i64 scalars)."""
        negative = self.scalar("lt", [i, self.scalar_const(0, i64)])
        return self.scalar("select", [negative, self.scalar("add", [i, size]), i])

    def at_most(self, a: Index, n: int) -> Value:
        """An i1: size `a` is at most `n` (a choice the host makes from the sizes)."""
        return self.scalar("le", [self.cast(a, i64), self.scalar_const(n, i64)])

    def negate(self, flag: Value) -> Value:
        """The i1 `not flag`."""
        return self.scalar("eq", [flag, self.scalar_const(0, flag.type)])

    def cast(self, v: Value, to: ScalarType) -> Value:
        if v.type == to:
            return v
        return self.b.create(S.CastOp, [v], {"to": TypeAttr(to)}).result

    # ------------------------------------------------------------------ loops
    @contextmanager
    def parallel(self, ubs: Sequence[Index]) -> Iterator[list[Index]]:
        """A `loop.parallel` from 0 to `ubs` (step 1); yields the induction variables. Rank 0
        gives no loop at all."""
        if not ubs:
            yield []
            return
        zero, one = self.const(0), self.const(1)
        op = L.ParallelOp.create([zero] * len(ubs), list(ubs), [one] * len(ubs))
        op.location = self.location
        for arg, hint in zip(op.body.args, IV_NAMES):
            arg.name_hint = hint
        self.b.insert(op)
        with self.b.at(InsertionPoint.at_end(op.body)):
            yield list(op.body.args)
            self.b.create(L.YieldOp, [], result_types=[])

    @contextmanager
    def serial(self, ubs: Sequence[Index], one_trip_at_rank_0: bool = False) -> Iterator[list[Index]]:
        """Nested `loop.for`s from 0 to `ubs`, outermost first (checks that must stop at the
        first bad element run this way); yields the induction variables. Rank 0 gives no loop,
        or with `one_trip_at_rank_0` one trip: data read inside a loop is not replayed by the
        shape program, which runs the top level before the call."""
        if not ubs:
            if one_trip_at_rank_0:
                with self.for_(self.const(0), self.const(1)):
                    yield []
            else:
                yield []
            return
        with self.for_(self.const(0), ubs[0]) as scope:
            with self.serial(ubs[1:]) as inner:
                yield [scope.iv, *inner]

    @contextmanager
    def for_(self, lb: Index, ub: Index, step: Index | None = None, inits: Sequence[Value] = (),
             reduction: bool = False) -> Iterator["ForScope"]:
        """A `loop.for`; the body must call `scope.yield_(values)` when it has iter_args."""
        op = L.ForOp.create(lb, ub, step or self.const(1), inits, reduction)
        op.location = self.location
        op.body.args[0].name_hint = "k"
        for arg in op.body.args[1:]:
            arg.name_hint = "acc"
        self.b.insert(op)
        scope = ForScope(op)
        with self.b.at(InsertionPoint.at_end(op.body)):
            yield scope
            if not scope.yielded:
                self.b.create(L.YieldOp, [], result_types=[])

    @contextmanager
    def when(self, cond: Value) -> Iterator[None]:
        """A `loop.if` without results: its body runs only where the i1 `cond` holds."""
        op = L.IfOp([cond], [], {}, [Region([Block([])]), Region([Block([])])], (), self.location)
        self.b.insert(op)
        with self.b.at(InsertionPoint.at_end(op.branch(False))):
            self.b.create(L.YieldOp, [], result_types=[])
        with self.b.at(InsertionPoint.at_end(op.branch(True))):
            yield
            self.b.create(L.YieldOp, [], result_types=[])

    def if_else(self, cond: Value, types: Sequence[ScalarType], then: Callable[[], Sequence[Value]],
                otherwise: Callable[[], Sequence[Value]]) -> list[Value]:
        """A `loop.if` on the i1 `cond` giving values of `types`: `then()` and `otherwise()`
        build its branches and return what each yields; the op's results."""
        op = L.IfOp([cond], list(types), {}, [Region([Block([])]), Region([Block([])])], (), self.location)
        self.b.insert(op)
        for taken, build in ((True, then), (False, otherwise)):
            with self.b.at(InsertionPoint.at_end(op.branch(taken))):
                self.b.create(L.YieldOp, list(build()), result_types=[])
        return list(op.results)

    @contextmanager
    def kernel(self, name: str) -> Iterator["ForScope"]:
        """A one-trip `loop.for` marked `irc.kernel = name`: what is built in it is compiled
        once as a function of its own and called here (`ForOp`)."""
        with self.for_(self.const(0), self.const(1)) as scope:
            scope.op.attributes[L.KERNEL] = StringAttr(name)
            yield scope

    def yield_(self, scope: "ForScope", values: Sequence[Value]) -> None:
        self.b.create(L.YieldOp, list(values), result_types=[])
        scope.yielded = True


class ForScope:
    def __init__(self, op: L.ForOp):
        self.op = op
        self.yielded = False

    @property
    def iv(self) -> Index:
        return self.op.body.args[0]

    @property
    def iter_args(self) -> list[Value]:
        return list(self.op.body.args[1:])

    @property
    def results(self) -> list[Value]:
        return list(self.op.results)
