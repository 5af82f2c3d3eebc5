"""Lowering: a frontend graph → one `builtin.module` holding one `func.func` (design.md, "A
compiled function, as IR").

Arguments: the user's inputs, then the shared variables the graph reads or updates (arg attr
`irc.shared = "name"`). Results: the user's outputs, then the new values of the updated shared
variables (res attr `irc.update = <arg index>`; `irc.borrow` for `Out(borrow=True)`). Every op
carries the user's Python line. `givens` are applied before (`clone_replace`).

With a device (`LoweringSpec.device`: the target's placement), shared variables are arguments on
the device (`tensor<?xf32, "cuda">`: the runtime keeps them there) read through one
`tensor.to_host` each, so the body stays a host graph that `insert-transfers` places; an output
written `gpu_from_host(...)` gets `irc.device = "cuda"`. User transfers are placement hints
(`transfers.py`), bound to their input.

An `IfElse` becomes a `tensor.if` whose regions compute what only their branch needs: the
graph is walked as if an ifelse depended on its condition alone (`_parents`), so a value is
lowered in the enclosing block only when something outside the branches needs it too
(`self.eager`); the rest of each branch is lowered inside its region, in a scope of its own.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from ..dialects.builtin import DenseAttr, ModuleOp, TensorType
from ..dialects.func import FuncOp, ReturnOp
from ..dialects.tensor_if import IfOp, YieldOp
from ..ir.attributes import Attribute, IntegerAttr, StringAttr, UnitAttr
from ..ir.core import OP_REGISTRY, Block, Operation, Region, Value, create_op
from ..ir.location import FileLineColLoc, Location, UNKNOWN_LOC
from ..ir.types import scalar_from_numpy
from .graph import ir_result_types
from .ifelse_op import IfElse
from .transfers import PlacementHint, returned_on_device


class MissingInputError(ValueError):
    """The graph needs a variable that is neither an input, a constant nor shared."""


@dataclass
class LoweringSpec:
    """What to lower: the user's inputs and outputs, and the updates (shared, new value)."""

    inputs: Sequence[Any]
    outputs: Sequence[Any]
    updates: Sequence[tuple[Any, Any]] = ()
    borrow: Sequence[bool] = ()
    name: str = "main"
    location: Location = UNKNOWN_LOC   # the user's `irc.function(...)` line
    device: str | None = None          # placement of shared variables and device results


@dataclass
class Lowered:
    """The module and what the runtime must know to call it."""

    module: Operation
    func: Operation
    shared: list[Any]           # shared variables, in argument order (after the inputs)
    update_args: list[int]      # for each update result: the argument index it replaces


def _is_shared(v: Any) -> bool:
    return hasattr(v, "get_value") and hasattr(v, "set_value")


def _is_constant(v: Any) -> bool:
    return getattr(v, "owner", None) is None and hasattr(v, "data") and not _is_shared(v)


def _inputs(v: Any) -> Sequence[Any]:
    """What `v`'s owner reads (nothing for a leaf): the edges of a walk over the whole graph."""
    owner = getattr(v, "owner", None)
    return owner.inputs if owner is not None else []


def _location(apply: Any) -> Location:
    loc = getattr(apply, "location", None)
    if isinstance(loc, Location):
        return loc
    if isinstance(loc, tuple) and len(loc) >= 2:
        return FileLineColLoc(str(loc[0]), int(loc[1]), int(loc[2]) if len(loc) > 2 else 1)
    return UNKNOWN_LOC


_IDENT = re.compile(r"[^A-Za-z0-9_]")


def name_hint(var: Any) -> str | None:
    """A printable SSA name from a variable's name (`%w`), or None."""
    name = getattr(var, "name", None)
    if not name:
        return None
    hint = _IDENT.sub("_", str(name))
    return hint if hint[:1].isalpha() or hint[:1] == "_" else "v" + hint


def symbol_name(name: str | None) -> str:
    return _IDENT.sub("_", name) if name else "main"


def describe(var: Any) -> str:
    name = getattr(var, "name", None)
    return f"'{name}'" if name else str(var)


class _Lowerer:
    def __init__(self, spec: LoweringSpec):
        self.spec = spec
        self.values: dict[int, Value] = {}   # id(variable) -> IR value
        self.keep: list[Any] = []            # keeps ids stable while lowering
        self.shared: list[Any] = []
        self.block = None
        self.func = None
        self.eager: set[int] = set()         # ids of variables the current block needs anyway

    # -- entry
    def lower(self) -> Lowered:
        spec = self.spec
        shared = self._collect_shared()
        self.shared = shared
        arg_vars = list(spec.inputs) + shared
        self.eager = self._unconditional([*spec.outputs, *(e for _, e in spec.updates)])
        arg_types = [v.type.to_ir() for v in spec.inputs] + [s.type.to_ir(spec.device) for s in shared]
        arg_attrs: list[dict[str, Attribute]] = [{} for _ in spec.inputs]
        arg_attrs += [{"irc.shared": StringAttr(str(s.name or f"shared{i}"))} for i, s in enumerate(shared)]
        func = FuncOp.create(symbol_name(spec.name), arg_types, [], arg_attrs, None, spec.location)
        self.func, self.block = func, func.body
        for var, arg in zip(arg_vars, func.body.args):
            arg.name_hint = name_hint(var)
            self._bind(var, self._host_view(arg))
        results = [self.value_of(v) for v in spec.outputs]
        update_args = []
        for svar, expr in spec.updates:
            results.append(self.value_of(expr))
            update_args.append(len(spec.inputs) + next(i for i, s in enumerate(shared) if s is svar))
        func.body.append(ReturnOp(results, [], {}, (), (), spec.location))
        for op in func.body.ops:  # a constant points at the line of its first user
            if op.op_name == "tensor.constant" and not op.location.known and op.results[0].uses:
                op.location = op.results[0].uses[0].owner.location
        func.update_function_type()
        res_attrs: list[dict[str, Attribute]] = []
        for i, out in enumerate(spec.outputs):
            attrs: dict[str, Attribute] = {}
            if i < len(spec.borrow) and spec.borrow[i]:
                attrs["irc.borrow"] = UnitAttr()
            if spec.device and returned_on_device(out):
                attrs["irc.device"] = StringAttr(spec.device)
            res_attrs.append(attrs)
        res_attrs += [{"irc.update": IntegerAttr(a)} for a in update_args]
        if any(res_attrs):
            func.set_res_attrs(res_attrs)
        module = ModuleOp.create([func])
        return Lowered(module, func, shared, update_args)

    def _host_view(self, arg: Value) -> Value:
        """A device argument's host copy, which the graph reads (insert-transfers cancels it)."""
        if getattr(arg.type, "device", None) is None:
            return arg
        op = create_op("tensor.to_host", [arg], [arg.type.with_device(None)], location=self.spec.location)
        self.block.append(op)
        return op.results[0]

    # -- graph walking
    def _bind(self, var: Any, value: Value) -> None:
        self.keep.append(var)
        self.values[id(var)] = value

    def _parents(self, var: Any) -> list[Any]:
        """What must be lowered before `var`: an ifelse's condition only (its branches are
        lowered inside its regions)."""
        owner = getattr(var, "owner", None)
        if owner is None:
            return []
        return [owner.inputs[0]] if isinstance(owner.op, IfElse) else list(owner.inputs)

    def _unconditional(self, roots: list[Any]) -> set[int]:
        """Ids of the variables computing `roots` needs whatever the conditions on the way."""
        return {id(v) for v in self._unlowered(roots, self._parents)}

    def _unlowered(self, roots: list[Any], parents: Any) -> list[Any]:
        """The variables not lowered yet that `roots` reach through `parents`."""
        seen: set[int] = set()
        out: list[Any] = []
        stack = list(roots)
        while stack:
            v = stack.pop()
            if id(v) in seen or id(v) in self.values:
                continue
            seen.add(id(v))
            out.append(v)
            stack.extend(parents(v))
        return out

    def _collect_shared(self) -> list[Any]:
        """Shared variables read by the graph (in first-use order) or updated."""
        found: list[Any] = []
        seen: set[int] = set()
        ins = {id(v) for v in self.spec.inputs}
        roots = [*self.spec.outputs, *(e for _, e in self.spec.updates)]
        stack = list(reversed(roots))
        while stack:
            v = stack.pop()
            if id(v) in seen or id(v) in ins:
                continue
            seen.add(id(v))
            if _is_shared(v):
                found.append(v)
            stack.extend(reversed(_inputs(v)))
        for svar, _ in self.spec.updates:
            if not any(svar is s for s in found):
                found.append(svar)
        return found

    def value_of(self, root: Any) -> Value:
        """The IR value of `root`, lowering whatever it depends on first (iteratively)."""
        stack: list[tuple[Any, bool]] = [(root, False)]
        while stack:
            var, expanded = stack.pop()
            if id(var) in self.values:
                continue
            if expanded:
                self._lower_var(var)
                continue
            stack.append((var, True))
            stack.extend((p, False) for p in reversed(self._parents(var)) if id(p) not in self.values)
        return self.values[id(root)]

    def _lower_var(self, var: Any) -> None:
        owner = getattr(var, "owner", None)
        if owner is None:
            if _is_constant(var):
                self._lower_constant(var)
                return
            raise MissingInputError(
                f"input {describe(var)} of type {var.type} is needed to compute the outputs but "
                f"was not given: add it to the inputs of irc.function (or give it a value with givens)")
        self._lower_apply(owner)

    def _lower_constant(self, var: Any) -> None:
        data = var.data
        # explicit type: numpy's ascontiguousarray makes a 0-d array 1-d
        attr = DenseAttr.from_array(data, TensorType(tuple(data.shape), scalar_from_numpy(data.dtype.name)))
        op = create_op("tensor.constant", [], [attr.type], {"value": attr}, location=UNKNOWN_LOC)
        self.block.append(op)
        op.results[0].name_hint = name_hint(var)
        self._bind(var, op.results[0])

    def _lower_apply(self, apply: Any) -> None:
        op_def = apply.op
        if isinstance(op_def, PlacementHint):
            self._bind(apply.outputs[0], self.values[id(apply.inputs[0])])
            return
        if isinstance(op_def, IfElse):
            self._lower_ifelse(apply)
            return
        check = getattr(op_def, "check_for_lowering", None)
        if check is not None:  # a user op: can irc run it?
            check(apply)
        name = op_def.ir_name
        attrs = dict(op_def.ir_attributes()) if hasattr(op_def, "ir_attributes") else {}
        operands = [self.values[id(v)] for v in apply.inputs]
        loc = _location(apply)
        if OP_REGISTRY.get(name) is None:
            raise NotImplementedError(f"no tensor-dialect op '{name}' for {type(op_def).__name__}")
        regions: list[Region] = []
        if hasattr(op_def, "inner_graph"):  # a loop: its step function is the op's region
            regions.append(self._region(*op_def.inner_graph(), loc))
            types = [o.type.to_ir() for o in apply.outputs]
        else:
            try:  # the frontend's types where it knows more (the one-element dim of `x[1:2]`)
                types = ir_result_types(apply, [v.type for v in operands])
            except NotImplementedError:  # an op whose types come from its region or its user
                types = [o.type.to_ir() for o in apply.outputs]
        op: Operation = create_op(name, operands, types, attrs, regions, location=loc)
        self.block.append(op)
        for out, res in zip(apply.outputs, op.results):
            res.name_hint = name_hint(out)
            self._bind(out, res)

    def _region(self, inputs: Sequence[Any], outputs: Sequence[Any], loc: Location) -> Region:
        """An inner graph lowered into one block: its placeholders are the block's arguments,
        its outputs what the block yields (`tensor.scan_yield`)."""
        block = Block([v.type.to_ir() for v in inputs])
        inner = _Lowerer(self.spec)
        inner.block, inner.func = block, self.func
        for var, arg in zip(inputs, block.args):
            arg.name_hint = name_hint(var)
            inner._bind(var, arg)
        inner.eager = inner._unconditional(list(outputs))  # (a branch's values the step needs anyway: once)
        values = [inner.value_of(v) for v in outputs]
        block.append(create_op("tensor.scan_yield", values, [], location=loc))
        self.keep.extend(inner.keep)
        return Region([block])
    def _lower_ifelse(self, apply: Any) -> None:
        thens, elses = apply.op.branches(apply.inputs)
        for v in self._branch_vars(list(thens) + list(elses)):  # needed outside anyway: first
            if id(v) in self.eager:
                self.value_of(v)
        blocks = [self._lower_region(list(vs), _location(apply)) for vs in (thens, elses)]
        types = [o.type.to_ir() for o in apply.outputs]
        op = IfOp.create(self.values[id(apply.inputs[0])], blocks[0], blocks[1], types, _location(apply))
        self.block.append(op)
        for out, res in zip(apply.outputs, op.results):
            res.name_hint = name_hint(out)
            self._bind(out, res)

    def _branch_vars(self, roots: list[Any]) -> list[Any]:
        """The not yet lowered variables of the branches' graphs (conditions of inner ifelses
        and their branches included)."""
        return self._unlowered(roots, _inputs)

    def _lower_region(self, roots: list[Any], loc: Location) -> Block:
        """One branch in a block of its own, ending in `tensor.yield`; what it lowers stays in
        its scope (the other branch and the code after the ifelse lower it again if needed)."""
        saved = self.block, self.values, self.eager
        self.block, self.values = Block([]), dict(self.values)
        self.eager = saved[2] | self._unconditional(roots)
        try:
            yields = [self.value_of(v) for v in roots]
            self.block.append(YieldOp(yields, [], {}, (), (), loc))
            return self.block
        finally:
            self.block, self.values, self.eager = saved


def lower(spec: LoweringSpec) -> Lowered:
    """Lower the graph described by `spec` to a module with one function."""
    return _Lowerer(spec).lower()
