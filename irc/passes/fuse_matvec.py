"""`fuse-matvec`: `gemv(A, x)` → a row-wise fused group → `gemv(Aᵀ, g)` becomes one
`tensor.fused_matvec`, whose loops read A once (a gradient step of a linear model reads the
data matrix twice otherwise; when it does not fit in a core's L2 cache, both passes come from
memory).

The match starts at the second product, `tensor.gemv %At, %g[, %y2]`:

* `%At` is a transposed view (`dimshuffle`/`transpose` with order [1, 0]) of a matrix A that is
  not itself a transposed view (its rows must be contiguous for the one pass to pay);
* `%g` is an elementwise result of a row-wise group G over vectors: `tensor.fused`,
  `tensor.fused_reduce` over axis 0, or a single elementwise op;
* G reads `%z = tensor.gemv %A, %x[, %y1]` — the same A — at the same row: z is not broadcast
  (a z typed with one row read by a longer group). The first product's alpha, beta and y1 go
  into the body (`z = alpha1·A·x + beta1·y1`, y1 becoming a row operand).

The fused op returns z and G's values when something else still reads them, G's reductions,
and `alpha·Aᵀ·g + beta·y2`. It stands where the second product stood; the ops between the
first product and the second that read z or G's values move after it. Nothing fires when that
would make a cycle: an operand of the fused op (a row operand of G, y2) computed from z or from
G's values outside the two (the group reading z at another row through a slice, y2 made from
G's sum, ...), nor after `inplace` has marked an op in between (the move could put a read after
an in-place write): the pass runs before `inplace`. Tagged `fusion`
(`optimizer_excluding=fusion` turns it off).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dialects import scalar as S
from ..dialects.builtin import ModuleOp, TensorType
from ..dialects.func import FuncOp
from ..dialects.op_base import float_attr
from ..dialects.tensor_fused_matvec import FusedMatvecOp
from ..ir.builder import Builder, InsertionPoint
from ..ir.core import Block, ElementwiseTrait, Operation, Region, Value
from ..ir.pass_manager import Pass, register_pass
from .fuse_elementwise import build_body, group_inputs

REDUCE_KINDS = ("sum", "prod", "max", "min")


@dataclass
class Match:
    """One fusable triple and what its fused op reads."""

    first: Operation            # z = gemv(A, x[, y1])
    group: Operation            # the row-wise group G
    second: Operation           # gemv(Aᵀ, g[, y2])
    z: Value
    g: Value


def transposed_source(v: Value) -> Value | None:
    """The matrix `v` is a [1, 0] view of (a `dimshuffle` or `transpose`), else None."""
    op = v.owner
    if not isinstance(op, Operation) or op.num_operands != 1 or op.operand(0).type.rank != 2:
        return None
    if op.op_name == "tensor.dimshuffle" and tuple(op.attributes["pattern"]) == (1, 0):
        return op.operand(0)
    if op.op_name == "tensor.transpose" and tuple(op.attributes["permutation"]) == (1, 0):
        return op.operand(0)
    return None


def host_vector(v: Value) -> bool:
    t = v.type
    return isinstance(t, TensorType) and t.rank == 1 and t.device is None


def row_wise(op: Operation) -> bool:
    """A group computed row by row over vectors: `fused`, `fused_reduce` over axis 0, or one
    elementwise op (not a broadcast: its second operand is only a shape)."""
    name = op.op_name
    if not op.results or not all(host_vector(v) for v in op.operands):
        return False
    if name == "tensor.fused_reduce":
        return tuple(op.attributes["axes"]) == (0,) and op.attributes["kind"].value in REDUCE_KINDS
    if name == "tensor.fused" or (name.startswith("tensor.") and op.has_trait(ElementwiseTrait)
                                  and name != "tensor.broadcast"):
        return all(host_vector(r) for r in op.results)
    return False


def elementwise_count(op: Operation) -> int:
    return op.num_elementwise if op.op_name == "tensor.fused_reduce" else len(op.results)


def match(second: Operation) -> Match | None:
    """The triple ending at `second`, when it may be fused (see the module docstring)."""
    if second.op_name != "tensor.gemv":
        return None
    A = transposed_source(second.operand(0))
    g = second.operand(1)
    group = g.owner
    block = second.parent
    if A is None or transposed_source(A) is not None or A.type.device is not None:
        return None
    if not isinstance(group, Operation) or group.parent is not block or not row_wise(group):
        return None
    if g.index >= elementwise_count(group):
        return None
    for z in group.operands:
        first = z.owner
        if (isinstance(first, Operation) and first.op_name == "tensor.gemv" and first.operand(0) is A
                and first.parent is block):
            break
    else:
        return None
    if z.type.shape == (1,) and any(v.type.shape != (1,) for v in group.operands):
        return None  # one row of z read at every row of the group: not row-wise in z
    if any("inplace" in op.attributes for op in _window(block, first, second)):
        return None  # `inplace` ran: moving reads past in-place writes is not safe
    if _forms_cycle(block, first, group, second):
        return None
    return Match(first, group, second, z, g)


def _window(block: Block, first: Operation, second: Operation) -> list[Operation]:
    """The ops from `first` to `second`, both included, in block order."""
    ops = block.ops
    return ops[ops.index(first):ops.index(second) + 1]


def _tainted(block: Block, first: Operation, group: Operation, second: Operation) -> list[Operation]:
    """The ops between `first` and `second` (in block order) that read z or G's values, directly
    or through each other (G excluded)."""
    seeds = {id(r) for r in (*first.results, *group.results)}
    tainted: list[Operation] = []
    for op in _window(block, first, second)[1:-1]:
        if op is group:
            continue
        if any(id(v) in seeds for inner in op.walk() for v in inner.operands):
            tainted.append(op)
            seeds.update(id(r) for r in op.results)
    return tainted


def _forms_cycle(block: Block, first: Operation, group: Operation, second: Operation) -> bool:
    """Whether an operand of the fused op would be computed from its own results."""
    bad = {id(op) for op in _tainted(block, first, group, second)} | {id(first), id(group)}
    z = first.results[0]
    reads = [v for v in group.operands if v is not z] + list(second.operands[2:])
    return any(isinstance(v.owner, Operation) and id(v.owner) in bad for v in reads)


# ---------------------------------------------------------------------------- the rewrite
def _group_body(group: Operation) -> tuple[Block, list[Value]]:
    """G as a scalar body and the values its arguments stand for."""
    if group.op_name in ("tensor.fused", "tensor.fused_reduce"):
        return group.regions[0].blocks[0], list(group.operands)
    inputs = group_inputs([group])
    return build_body([group], inputs, list(group.results)).blocks[0], inputs


def _outside_use(v: Value, skip: Operation, index: int | None = None) -> bool:
    """Whether `v` is read by anything but `skip` (at operand `index`, when given)."""
    return any(u.owner is not skip or (index is not None and u.index != index) for u in v.uses)


def fuse(mt: Match) -> FusedMatvecOp:
    """Replace the triple by one `tensor.fused_matvec` (placed where the second product was)."""
    first, group, second, z = mt.first, mt.group, mt.second, mt.z
    block = second.parent
    tainted = _tainted(block, first, group, second)
    A, x = first.operand(0), first.operand(1)
    y1 = first.operand(2) if first.num_operands == 3 else None
    src, inputs = _group_body(group)

    rows: list[Value] = []
    for v in inputs + ([y1] if y1 is not None else []):
        if v is not z and v not in rows:
            rows.append(v)
    element = A.type.element
    body = Block([element] + [v.type.element for v in rows])
    arg = dict(zip(rows, body.args[1:]))
    b = Builder(InsertionPoint.at_end(body), group.location)

    def const(value: float) -> Value:
        return b.create(S.ConstantOp, [], {"value": S.scalar_attr(value, element)}).results[0]

    zval: Value = body.args[0]
    alpha1 = float_attr(first.attributes, "alpha", 1.0)
    if alpha1 != 1.0:
        zval = b.create(S.SCALAR_OPS["mul"], [zval, const(alpha1)]).results[0]
    if y1 is not None:
        beta1 = float_attr(first.attributes, "beta", 0.0)
        term = arg[y1] if beta1 == 1.0 else b.create(S.SCALAR_OPS["mul"], [arg[y1], const(beta1)]).results[0]
        zval = b.create(S.SCALAR_OPS["add"], [zval, term]).results[0]
    mapping: dict[Value, Value] = {a: (zval if v is z else arg[v]) for a, v in zip(src.args, inputs)}
    for op in src.ops[:-1]:
        b.insert(op.clone(mapping))
    values = [mapping.get(v, v) for v in src.ops[-1].operands]

    n = elementwise_count(group)
    keep_z = _outside_use(z, group)
    kept = [r for r in group.results[:n] if _outside_use(r, second, 1)]
    reduced = [r for r in group.results[n:] if r.uses]
    olds = ([z] if keep_z else []) + kept + reduced + [second.results[0]]
    yields = ([zval] if keep_z else []) + [values[r.index] for r in kept + reduced] + [values[mt.g.index]]
    b.create(S.YieldOp, yields, result_types=[])

    attrs = {k: second.attributes[k] for k in ("alpha", "beta") if k in second.attributes}
    if reduced:
        attrs["kind"] = group.attributes["kind"]
    acc = list(second.operands[2:])
    fused = FusedMatvecOp([A, x, *acc, *rows], [v.type for v in olds], attrs, [Region([body])], (),
                          second.location)
    block.insert_before(second, fused)
    for old, new in zip(olds, fused.results):
        old.replace_all_uses_with(new)
    at = fused
    for op in tainted:  # they read the fused op's results now: after it, in their order
        op.detach()
        block.insert_after(at, op)
        at = op
    view = second.operand(0).owner
    for op in (second, group, first, view):
        if op.parent is block and not any(r.uses for r in op.results):
            op.erase()
    return fused


@register_pass
@dataclass
class FuseMatvec(Pass):
    """Fuse gemv(A, x) → a row-wise group → gemv(Aᵀ, g) into `tensor.fused_matvec`."""

    name = "fuse-matvec"
    summary = "fuse A·x, a row-wise fused group over it and Aᵀ·g into one pass over A"
    tags = ("fusion",)
    statistics = {"fused-matvecs": "tensor.fused_matvec ops made"}

    def run(self, module: Operation) -> None:
        assert isinstance(module, ModuleOp)
        for func in [op for op in module.body.ops if isinstance(op, FuncOp)]:
            for op in list(func.body.ops):
                if op.parent is not func.body:
                    continue  # erased by an earlier fusion
                mt = match(op)
                if mt is not None:
                    fuse(mt)
                    self.stats["fused-matvecs"] += 1
