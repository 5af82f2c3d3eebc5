"""The symbolic graph the user builds: variables, apply nodes, ops, and walks over them.

A `Variable` is a symbolic value of a `TensorType`; its `owner` is the `Apply` node that
computes it (None for inputs, constants and shared variables). An `Apply` is one use of an
`Op` on input variables, with its output variables and the user's source line (`location`).
Graphs are immutable once built: rewriting (givens) makes new nodes with `clone_replace`.

Lowering is mechanical: walk `toposort(outputs)`; every Apply becomes one tensor-dialect op
named `node.op.ir_name`, with operands `node.inputs` (in order), attributes
`node.op.ir_attributes()`, result types `[o.type.to_ir() for o in node.outputs]` and location
`node.location` (`ir_result_types(node, operand_types)` gives the result types: the
dialect's inference refined by the frontend's broadcast pattern). A `Constant` leaf becomes
`tensor.constant {value = c.to_dense_attr()}`; a
`SharedVariable` leaf (irc/frontend/shared.py) becomes a function argument."""
from __future__ import annotations

import functools
import os
import sys
import types
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ..base.config import config
from ..dialects import tensor as _tensor_dialect  # noqa: F401  (registers the ops lowered to)
from ..dialects.builtin import DenseAttr
from ..ir.attributes import Attribute
from ..ir.core import lookup_op
from ..ir.location import FileLineColLoc, Location, UNKNOWN_LOC
from .operators import TensorOperators
from .tensor_type import TensorType

__all__ = ["Tag", "Variable", "Constant", "Apply", "Op", "TensorType", "user_location", "toposort", "NODE_HOOKS", "node_built",
           "ancestors", "graph_inputs", "clone_replace", "io_toposort", "ir_result_types",
           "infer_via_dialect", "GraphCycleError"]


class Tag(types.SimpleNamespace):
    """Free-form annotations a user or a pass hangs on a variable (`x.tag.test_value = ...`)."""


# ---------------------------------------------------------------------------- locations
_IRC_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_location() -> Location:
    """The innermost Python line outside the irc package on the stack: the user's line that
    built the node, so IR dumps and errors point at the user's program."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not (filename.startswith(_IRC_DIR) or filename.startswith("<frozen")):
            break
        frame = frame.f_back
    if frame is None:
        return UNKNOWN_LOC
    line, col = frame.f_lineno, 1
    positions = _positions(frame.f_code)
    if positions and 0 <= frame.f_lasti // 2 < len(positions):
        pos = positions[frame.f_lasti // 2]
        if pos[0] is not None:
            line = pos[0]
        if pos[2] is not None:
            col = pos[2] + 1
    return FileLineColLoc(frame.f_code.co_filename, line or 0, col)


@functools.lru_cache(maxsize=256)
def _positions(code: types.CodeType) -> tuple:
    """(line, end line, col, end col) per instruction (Python >= 3.11; empty before)."""
    get = getattr(code, "co_positions", None)
    return tuple(get()) if get is not None else ()


# ---------------------------------------------------------------------------- variables
class Variable(TensorOperators):
    """A symbolic tensor: `type` (TensorType), `owner` (the Apply computing it, or None),
    `index` (which output of the owner), `name` (optional) and `tag` (annotations).

    Equality is identity (`==` does not build a comparison, as in Theano: use `T.eq`)."""

    __array_priority__ = 1000  # numpy defers to our reflected operators
    __array_ufunc__ = None

    def __init__(self, type: TensorType, owner: "Apply | None" = None, index: int | None = None,
                 name: str | None = None):
        if not isinstance(type, TensorType):
            raise TypeError(f"a Variable's type must be a TensorType, got {type!r}")
        self.type = type
        self.owner = owner
        self.index = index
        self.name = name
        self.tag = Tag()

    # -- type shortcuts
    @property
    def dtype(self) -> str:
        return self.type.dtype

    @property
    def ndim(self) -> int:
        return self.type.ndim

    @property
    def broadcastable(self) -> tuple[bool, ...]:
        return self.type.broadcastable

    def clone(self) -> "Variable":
        """A new leaf of the same type and name (owner not copied)."""
        v = type(self).__new__(type(self))
        v.__dict__.update(self.__dict__)
        v.owner, v.index, v.tag = None, None, Tag(**vars(self.tag))
        return v

    # -- printing
    def __str__(self) -> str:
        return _expr_str(self, _MAX_STR_DEPTH)

    def __repr__(self) -> str:
        """Theano's: with `config.print_test_value` on, the test value on a second line."""
        text = str(self)
        if config.print_test_value:
            value = self.test_value_for_printing()
            if value is not None:
                text += "\n" + repr(value)
        return text

    def test_value_for_printing(self) -> Any:
        """`tag.test_value` converted to this variable's type (as Theano stores it), or None."""
        if not hasattr(self.tag, "test_value"):
            return None
        try:
            return self.type.filter(self.tag.test_value)
        except TypeError:
            return self.tag.test_value

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other


TensorType.variable_class = Variable


class Constant(Variable):
    """A leaf with a known value (a read-only numpy array of the type's dtype)."""

    def __init__(self, type: TensorType, data: Any, name: str | None = None):
        super().__init__(type, None, None, name)
        arr = type.filter(data, allow_downcast=True)
        arr = np.array(arr, copy=True)
        arr.setflags(write=False)
        self.data = arr

    @property
    def value(self) -> np.ndarray:
        return self.data

    def test_value_for_printing(self) -> Any:
        return self.data

    def signature(self) -> tuple:
        """Two constants with equal signatures hold the same value (for merging)."""
        return (self.type, self.data.shape, self.data.tobytes())

    def to_dense_attr(self):
        """The `DenseAttr` for `tensor.constant`: the value with its full static shape."""
        return DenseAttr.from_array(self.data)

    def clone(self) -> "Constant":
        return self  # immutable

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        if self.data.size <= 8:
            return np.array2string(self.data, separator=", ") if self.data.ndim else str(self.data.item())
        return f"Constant{{{self.type}}}"


# ---------------------------------------------------------------------------- nodes and ops
class Apply:
    """One application of `op` to `inputs`, producing `outputs` (which point back here).

    `location` is the user's source line that built the node (a FileLineColLoc)."""

    def __init__(self, op: "Op", inputs: Sequence[Variable], outputs: Sequence[Variable],
                 location: Location | None = None):
        self.op = op
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        for v in self.inputs:
            if not isinstance(v, Variable):
                raise TypeError(f"input of {op} must be a Variable, got {type(v).__name__}")
        for i, out in enumerate(self.outputs):
            if out.owner is not None and (out.owner is not self or out.index != i):
                raise ValueError(f"output {i} of {op} already belongs to another node")
            out.owner, out.index = self, i
        self.location = location if location is not None else user_location()
        self.tag = Tag()

    @property
    def out(self) -> Variable:
        """The single output (Theano's `node.out`)."""
        if len(self.outputs) != 1:
            raise ValueError(f"{self.op} has {len(self.outputs)} outputs")
        return self.outputs[0]

    @property
    def nin(self) -> int:
        return len(self.inputs)

    @property
    def nout(self) -> int:
        return len(self.outputs)

    def clone_with_new_inputs(self, inputs: Sequence[Variable]) -> "Apply":
        """The same op on new inputs (types re-inferred); keeps this node's location."""
        node = self.op.make_node(*inputs)
        node.location = self.location
        return node

    def __str__(self) -> str:
        return _node_str(self, _MAX_STR_DEPTH)

    def __repr__(self) -> str:
        return str(self)


_MAX_STR_DEPTH = 12  # deeper subexpressions print as "..." (graphs can be thousands deep)


def _expr_str(v: Variable, depth: int) -> str:
    if v.name is not None or isinstance(v, Constant):
        return v.name if v.name is not None else str(v)
    if v.owner is None:
        return f"<{v.type}>"
    if len(v.owner.outputs) != 1:
        return f"{v.owner.op}.{v.index}"
    return _node_str(v.owner, depth)


def _node_str(node: "Apply", depth: int) -> str:
    if depth <= 0:
        return f"{node.op}(...)"
    return f"{node.op}({', '.join(_expr_str(i, depth - 1) for i in node.inputs)})"


class Op:
    """An operation of the graph. Subclasses define `make_node` (check and convert inputs,
    infer output types, return an Apply), `ir_name` (the tensor-dialect op it lowers to),
    `ir_attributes()`, and `grad(inputs, outputs, output_grads)` for reverse mode.

    Ops compare equal when they have the same class and the same `__props__` values."""

    __props__: tuple[str, ...] = ()
    ir_name: str = ""

    def make_node(self, *inputs: Variable) -> Apply:
        raise NotImplementedError(f"{type(self).__name__}.make_node")

    def __call__(self, *inputs: Any) -> Variable | list[Variable]:
        node = node_built(self.make_node(*inputs))
        return node.outputs[0] if len(node.outputs) == 1 else node.outputs

    def ir_attributes(self) -> dict[str, Attribute]:
        """The attributes of the tensor-dialect op this op lowers to."""
        return {}

    def grad(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable | None]) -> list[Variable | None]:
        """Gradients with respect to each input, given the node's outputs and the gradients
        of the cost with respect to them (None for an output the cost does not depend on).
        Return None for an input no gradient flows to (disconnected or not differentiable)."""
        raise NotImplementedError(f"{self} has no gradient")

    def _props(self) -> tuple:
        return tuple(getattr(self, p) for p in self.__props__)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._props() == other._props()  # type: ignore

    def __hash__(self) -> int:
        return hash((type(self), self._props()))

    def __str__(self) -> str:
        if not self.__props__:
            return type(self).__name__
        return f"{type(self).__name__}{{{', '.join(str(p) for p in self._props())}}}"

    def __repr__(self) -> str:
        return str(self)


# what runs on each node the user's program builds (an op call): `compute_test_value`
# (irc/frontend/compute_test_values.py, above this module, installs itself here)
NODE_HOOKS: list[Callable[[Apply], None]] = []


def node_built(node: Apply) -> Apply:
    """Run the hooks on a node just built by an op call (ops built by `make_node` directly —
    ifelse, scan — call this too); returns the node."""
    for hook in NODE_HOOKS:
        hook(node)
    return node


def _dialect_op(ir_name: str):
    """The tensor-dialect op class named `ir_name`, or None when the dialect has none."""
    return lookup_op(ir_name)


def infer_via_dialect(ir_name: str, input_types: Sequence[TensorType],
                      attributes: dict[str, Attribute]) -> list[TensorType] | None:
    """Output types from the tensor dialect's `infer_result_types` for `ir_name` (so the
    frontend and the IR share one set of rules); None if the dialect has no such op.
    A rejection by the dialect becomes a TypeError carrying its message."""
    cls = _dialect_op(ir_name)
    if cls is None:
        return None
    try:
        result = cls.infer_result_types([t.to_ir() for t in input_types], attributes)
    except NotImplementedError:
        return None
    except ValueError as e:
        raise TypeError(str(e)) from None
    return [TensorType.from_ir(t) for t in result]


def ir_result_types(node: "Apply", operand_types: Sequence[Any]) -> list:
    """The IR result types for lowering `node` on operands of `operand_types`: the dialect's
    inference, refined by what the frontend knows more (a dim it typed broadcastable, e.g. the
    one-element dim of `x[i]` before it is dropped, is a static 1 even where the dialect
    infers `?`). Use these, not bare inference, when building the op."""
    cls = _dialect_op(node.op.ir_name)
    if cls is None:
        raise NotImplementedError(f"no tensor-dialect op '{node.op.ir_name}' for {node.op}")
    inferred = cls.infer_result_types(list(operand_types), node.op.ir_attributes())
    out = []
    for t, var in zip(inferred, node.outputs):
        shape = tuple(1 if (d is None and b) else d for d, b in zip(t.shape, var.broadcastable))
        out.append(t.with_shape(shape))
    return out


# ---------------------------------------------------------------------------- walks
def _as_list(outputs: Variable | Iterable[Variable]) -> list[Variable]:
    return [outputs] if isinstance(outputs, Variable) else list(outputs)


def ancestors(outputs: Variable | Iterable[Variable],
              blockers: Iterable[Variable] = ()) -> list[Variable]:
    """Every variable the outputs depend on (themselves included), stopping at `blockers`;
    depth-first, inputs before the variables computed from them."""
    blocked = set(map(id, blockers))
    seen: set[int] = set()
    order: list[Variable] = []
    stack: list[tuple[Variable, bool]] = [(v, False) for v in reversed(_as_list(outputs))]
    while stack:
        var, done = stack.pop()
        if done:
            order.append(var)
            continue
        if id(var) in seen:
            continue
        seen.add(id(var))
        stack.append((var, True))
        if var.owner is not None and id(var) not in blocked:
            stack.extend((i, False) for i in reversed(var.owner.inputs) if id(i) not in seen)
    return order


def graph_inputs(outputs: Variable | Iterable[Variable],
                 blockers: Iterable[Variable] = ()) -> list[Variable]:
    """The leaves (no owner, or blocked) the outputs depend on, constants included."""
    blocked = set(map(id, blockers))
    return [v for v in ancestors(outputs, blockers) if v.owner is None or id(v) in blocked]


def toposort(outputs: Variable | Iterable[Variable],
             blockers: Iterable[Variable] = ()) -> list[Apply]:
    """The Apply nodes computing `outputs`, each after the nodes computing its inputs.

    Deterministic: depth-first in input order. Nodes behind `blockers` are left out."""
    blocked = set(map(id, blockers))
    nodes: list[Apply] = []
    seen: set[int] = set()
    for var in ancestors(outputs, blockers):
        node = var.owner
        if node is not None and id(var) not in blocked and id(node) not in seen:
            seen.add(id(node))
            nodes.append(node)
    return nodes


def io_toposort(inputs: Sequence[Variable], outputs: Sequence[Variable]) -> list[Apply]:
    """`toposort(outputs)` stopping at `inputs` (Theano's name)."""
    return toposort(outputs, inputs)


class GraphCycleError(ValueError):
    """A replacement (e.g. in `givens`) depends on the variable it replaces."""


def clone_replace(outputs: Variable | Sequence[Variable], replace: dict | None = None,
                  strict: bool = True) -> Variable | list[Variable]:
    """The outputs with each key of `replace` substituted by its value, everywhere.

    Each substitution is made once, as Theano's: a replacement that reads the variable it
    replaces reads the original (`{x: x + 1}` turns `x * 2` into `(x + 1) * 2`). Replacements
    are rewritten by the other pairs (so `{x: y, y: z}` puts z for x); a cycle through two or
    more pairs (`{a: b, b: a + 1}`) raises `GraphCycleError`. Unchanged subgraphs are shared,
    not copied. With `strict`, a replacement must have the same dtype and rank."""
    replace = dict(replace or {})
    for old, new in replace.items():
        if not isinstance(old, Variable):
            raise TypeError(f"cannot replace {old!r}: not a symbolic variable")
        if not isinstance(new, Variable):
            raise TypeError(f"cannot replace {old} by {new!r}: not a symbolic variable "
                            f"(wrap a value with T.constant or T.as_tensor_variable)")
        if strict and (old.type.dtype != new.type.dtype or old.type.ndim != new.type.ndim):
            raise TypeError(f"cannot replace {old} of type {old.type} by {new} of type {new.type}: "
                            f"dtype and number of dimensions must match (cast the replacement)")
    resolved: dict[Variable, Variable] = {}
    resolving: list[Variable] = []

    def resolve(key: Variable) -> Variable:
        """What `key` stands for in the result: its replacement, rebuilt with the other pairs."""
        if key in resolved:
            return resolved[key]
        if key in resolving:
            chain = " -> ".join(str(k) for k in resolving[resolving.index(key):] + [key])
            raise GraphCycleError(f"cycle in replacements: {key} is replaced by an expression that "
                                  f"depends on {key} itself through other replacements ({chain})")
        resolving.append(key)
        resolved[key] = _substitute(replace[key], replace, lambda v: v if v is key else resolve(v), {}, {})
        resolving.pop()
        return resolved[key]

    if isinstance(outputs, Variable):
        return _substitute(outputs, replace, resolve, {}, {})
    memo: dict[Variable, Variable] = {}
    node_memo: dict[int, Apply] = {}
    return [_substitute(o, replace, resolve, memo, node_memo) for o in outputs]


def _substitute(root: Variable, keys: dict, value_of: Any, memo: dict, node_memo: dict) -> Variable:
    """`root` rebuilt with each variable of `keys` it reaches replaced by `value_of(variable)`
    (iterative: graphs can be thousands of nodes deep). Nodes whose inputs are unchanged are
    kept; a changed node is cloned once (`memo`, `node_memo`: what one context rebuilt)."""
    stack: list[tuple[Variable, bool]] = [(root, False)]
    while stack:
        var, expanded = stack.pop()
        if var in memo:
            continue
        if var in keys:
            memo[var] = value_of(var)
            continue
        if var.owner is None:
            memo[var] = var
            continue
        if not expanded:
            stack.append((var, True))
            stack.extend((i, False) for i in reversed(var.owner.inputs) if i not in memo)
            continue
        node = var.owner
        new_inputs = [memo[i] for i in node.inputs]
        if all(a is b for a, b in zip(new_inputs, node.inputs)):
            memo[var] = var
        else:
            if id(node) not in node_memo:
                node_memo[id(node)] = node.clone_with_new_inputs(new_inputs)
            memo[var] = node_memo[id(node)].outputs[var.index]
    return memo[root]
