"""`irc.Op` (Theano's `gof.Op`): the base class of ops users write in Python.

A user op defines `make_node(*inputs) -> Apply` (output types) and `perform(node, inputs,
output_storage)` (numpy in, `output_storage[k][0] = result` out); optionally `grad(inputs,
output_grads)`, `R_op(inputs, eval_points)`, `infer_shape`, `view_map`/`destroy_map`, and
`__props__` (the attributes two equal ops share: equal ops merge, as in Theano; without
`__props__` an op equals only itself).

It lowers to `tensor.custom {op = "module.Class{props}"}`; that text is the key under which the
op's `PerformRunner` is registered (`irc.dialects.tensor_custom.USER_OPS`), so the reference
semantics and the runtime find the Python object again. The runner checks what `perform`
gives back against what `make_node` declared, so a wrong output names the op and the user's
line instead of failing somewhere in the native code after it."""
from __future__ import annotations

import itertools
import secrets
from typing import Any, Sequence

import numpy as np

from ..dialects.tensor_custom import USER_OPS, register_user_op
from ..base.device import CUDA
from ..ir.attributes import Attribute, DenseArrayAttr, StringAttr
from ..ir.location import Location
from .graph import Apply, Op, Variable, node_built, user_location
from .tensor_type import TensorType
from .user_gpu_op import ThunkRunner

_instances = itertools.count(1)
# tells this process's ops without __props__ from those a pickle brought from another process
_PROCESS_TAG = secrets.token_hex(3)


class UserOpError(TypeError):
    """A user op is not written the way irc can run it (missing `perform`, unhashable props,
    a `make_node` that returns no Apply): the message names the op and the user's line."""


class UserOp(Op):
    """Theano's `Op` for users: subclass it, define `make_node` and `perform` (see the module
    docstring). `__props__ = None` (the default) means identity equality."""

    __props__: tuple[str, ...] | None = None  # type: ignore[assignment]
    ir_name = "tensor.custom"
    view_map: dict[int, list[int]] = {}
    destroy_map: dict[int, list[int]] = {}
    default_output: int | None = None
    _f16_ok = False  # a GPU op whose kernels store float16 and compute in float32 sets it
    host_inputs: tuple[int, ...] = ()  # a GPU op's 0-d inputs its launch reads on the host (irc's)

    # -- equality: Theano's __props__ protocol
    def _props(self) -> tuple:
        return tuple(getattr(self, p) for p in (self.__props__ or ()))

    def __eq__(self, other: object) -> bool:
        if self.__props__ is None:
            return self is other
        return type(self) is type(other) and self._props() == other._props()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        if self.__props__ is None:
            return id(self)
        return hash((type(self), self._props()))

    def __str__(self) -> str:
        if not self.__props__:
            return type(self).__name__
        return f"{type(self).__name__}{{{', '.join(str(p) for p in self._props())}}}"

    # -- building nodes
    def __call__(self, *inputs: Any, return_list: bool = False, **kwargs: Any) -> Variable | list[Variable]:
        location = user_location()
        check_props_hashable(self, location)
        if type(self).make_node is UserOp.make_node:
            raise UserOpError(f"{type(self).__name__} (at {location}) defines no make_node(*inputs): it "
                              f"must return irc.Apply(self, inputs, [output types' variables])")
        node = self.make_node(*inputs, **kwargs)
        if not isinstance(node, Apply):
            raise UserOpError(f"{self}.make_node (at {location}) returned {type(node).__name__}, "
                              f"not an irc.Apply")
        for k, out in enumerate(node.outputs):
            if not isinstance(out.type, TensorType):
                raise UserOpError(f"{self}.make_node (at {location}): output #{k} is not a tensor")
        node.location = location
        check_float16(self, node)
        node_built(node)
        if return_list:
            return list(node.outputs)
        if self.default_output is not None:
            return node.outputs[self.default_output]
        return node.outputs[0] if len(node.outputs) == 1 else node.outputs

    def make_node(self, *inputs: Variable) -> Apply:
        raise NotImplementedError

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list[list]) -> None:
        """Compute the outputs with numpy: `output_storage[k][0] = value`."""
        raise NotImplementedError

    def make_thunk(self, node: Apply, storage_map: dict, compute_map: dict, no_recycling: list) -> Any:
        """A GPU op's implementation (Theano's protocol): return a function of no arguments that
        reads `storage_map[input][0]` (device arrays) and sets `storage_map[output][0]`."""
        raise NotImplementedError

    # -- derivatives (Theano's signatures; `gradient_rules.user_op_grad` calls them)
    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:  # type: ignore[override]
        """The gradient of the cost with respect to each input, given those of the outputs."""
        raise NotImplementedError(f"{self} defines no grad(inputs, output_grads)")

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        """`grad` with the node's outputs at hand (Theano's L_op); defaults to `grad`."""
        return self.grad(inputs, output_grads)

    # -- lowering
    def ir_attributes(self) -> dict[str, Attribute]:
        key = free_key(self, user_op_key(self))
        if is_gpu_op(self):
            register_user_op(key, ThunkRunner(self))
            attrs: dict[str, Attribute] = {"op": StringAttr(key), "device": StringAttr(CUDA)}
            if self.host_inputs:
                attrs["host_operands"] = DenseArrayAttr(tuple(self.host_inputs))
            return attrs
        register_user_op(key, PerformRunner(self))
        return {"op": StringAttr(key)}

    def check_for_lowering(self, node: Apply) -> None:
        """Called when a graph using this op is compiled: irc runs it on the CPU by `perform`."""
        check_props_hashable(self, node.location)
        if not has_perform(self) and not is_gpu_op(self):
            raise UserOpError(f"{self} (used at {node.location}) has no perform(node, inputs, output_storage): "
                              f"irc runs a user op on the CPU by calling it (a GPU op defines make_thunk)")


def has_perform(op: Any) -> bool:
    return type(op).perform is not UserOp.perform


def is_gpu_op(op: Any) -> bool:
    """An op whose work is a kernel of its own: `make_thunk` and no `perform`."""
    return type(op).make_thunk is not UserOp.make_thunk and not has_perform(op)


def check_float16(op: UserOp, node: Apply) -> None:
    """A GPU op takes float16 only when it says its kernels handle it (`_f16_ok`), as Theano."""
    if not is_gpu_op(op) or op._f16_ok:
        return
    for i, v in enumerate(node.inputs):
        if v.dtype == "float16":
            raise UserOpError(f"{op} (at {node.location}): input #{i} is float16, but {type(op).__name__} "
                              f"does not declare _f16_ok = True; a kernel that stores float16 and computes "
                              f"in float32 sets it (docs/extending.md), otherwise cast the input to float32")


def check_props_hashable(op: UserOp, location: Location) -> None:
    """Equal ops merge, so their props must hash: name the first one that does not."""
    for name in op.__props__ or ():
        if not hasattr(op, name):
            raise UserOpError(f"{type(op).__name__} (at {location}) lists {name!r} in __props__ but has "
                              f"no attribute {name!r}")
        value = getattr(op, name)
        try:
            hash(value)
        except TypeError:
            raise UserOpError(f"{type(op).__name__} (at {location}): prop {name!r} is a "
                              f"{type(value).__name__}, which is not hashable; __props__ values decide "
                              f"which ops are equal and must hash (use a tuple instead of a list, a "
                              f"frozenset instead of a set)") from None


def user_op_key(op: UserOp) -> str:
    """`module.Class{a=1, b='x'}`: the op's class and props as the IR shows them (the registry
    key); an op without `__props__` is told apart by a number, tagged with the process that numbered
    it so an op a pickle brings along never takes another's key (`module.Class#a1b2c3.3`)."""
    cls = type(op)
    path = f"{cls.__module__}.{cls.__qualname__}"
    key_text = getattr(op, "ir_key_text", None)
    if key_text is not None:
        return path + key_text()
    if op.__props__ is None:
        if "_irc_instance" not in op.__dict__:
            op.__dict__["_irc_instance"] = f"{_PROCESS_TAG}.{next(_instances)}"
        return f"{path}#{op.__dict__['_irc_instance']}"
    if not op.__props__:
        return path
    return path + "{" + ", ".join(f"{p}={getattr(op, p)!r}" for p in op.__props__) + "}"


def free_key(op: UserOp, key: str) -> str:
    """`key`, or `key~2`, `key~3`, ...: the first that is free or already this op's (a class
    defined again under the same name, as in a notebook, must not take over the old one's)."""
    candidate, n = key, 1
    while True:
        known = USER_OPS.get(candidate)
        if known is None or (type(known.op) is type(op) and known.op == op):
            return candidate
        n += 1
        candidate = f"{key}~{n}"


class PerformRunner:
    """Runs a user op's `perform` for `tensor.custom` (the registry's implementation): builds
    the `node` it is given from the IR types, checks what it returns, and (DebugMode) that it
    left its inputs alone unless `destroy_map` says otherwise."""

    def __init__(self, op: UserOp):
        self.op = op
        self._nodes: dict[Any, Apply] = {}  # IR op -> the node perform is given
        self.destroyed = frozenset(i for ins in (op.destroy_map or {}).values() for i in ins)

    def __getstate__(self) -> dict:
        return {"op": self.op, "_nodes": {}, "destroyed": self.destroyed}  # nodes: rebuilt from the IR

    def node_for(self, ir_op: Any) -> Apply:
        """An Apply of the op on variables of the IR op's types (what `perform` reads)."""
        node = self._nodes.get(ir_op)
        if node is None:
            ins = [TensorType.from_ir(v.type)() for v in ir_op.operands]
            outs = [TensorType.from_ir(r.type)() for r in ir_op.results]
            node = self._nodes[ir_op] = Apply(self.op, ins, outs, ir_op.location)
        return node

    def run(self, ir_op: Any, arrays: list, check_inputs: bool, donated: frozenset = frozenset()) -> list:
        """`donated`: operands whose arrays nobody reads afterwards (the executor knows): a
        `destroy_map` input among them is overwritten in place, the others are copied first."""
        op, where = self.op, ir_op.location
        if not has_perform(op):
            raise UserOpError(f"{op} (at {where}) has no perform(node, inputs, output_storage)")
        node = self.node_for(ir_op)
        destroyed = self.destroyed - donated
        if destroyed:  # never an array someone still reads
            arrays = [a.copy() if i in destroyed else a for i, a in enumerate(arrays)]
        before = [None if i in destroyed else a.copy() for i, a in enumerate(arrays)] if check_inputs else None
        storage: list[list] = [[None] for _ in node.outputs]
        try:
            op.perform(node, arrays, storage)
        except (ValueError, ArithmeticError, IndexError) as e:  # the runtime reports these, located
            raise ValueError(f"{op}.perform raised {type(e).__name__}: {e}") from e
        except Exception as e:
            e.add_note(f"raised by {op}.perform, for the op used at {where}")
            raise
        if before is not None:
            for i, (a, b) in enumerate(zip(arrays, before)):
                if b is not None and not np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"):
                    raise ValueError(f"{op}.perform wrote into its input #{i} without declaring it in "
                                     f"destroy_map (op used at {where}); declare destroy_map = {{0: [{i}]}} "
                                     f"(output 0 overwrites input {i}) or write into a copy")
        return [check_output(op, k, cell[0], var.type, where) for k, (cell, var) in
                enumerate(zip(storage, node.outputs))]


def check_output(op: UserOp, k: int, value: Any, declared: TensorType, where: Location) -> np.ndarray:
    """`value` as output #k of `op`, or a ValueError saying how it differs from `declared`."""
    prefix = f"{op}.perform (op used at {where}): output #{k}"
    if value is None:
        raise ValueError(f"{prefix} was not set: perform must assign output_storage[{k}][0]")
    if type(value) is np.ndarray and value.dtype.name == declared.dtype and value.ndim == declared.ndim \
            and not any(declared.broadcastable):
        return value  # the common case, checked at once
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if not isinstance(value, np.ndarray):
        raise ValueError(f"{prefix} is a {type(value).__name__}, expected a numpy array of {declared}")
    if value.dtype.name != declared.dtype:
        raise ValueError(f"{prefix} has dtype {value.dtype.name}, but make_node declared {declared} "
                         f"(dtype {declared.dtype}): cast it in perform or declare another type")
    if value.ndim != declared.ndim:
        raise ValueError(f"{prefix} has {value.ndim} dimension(s) (shape {value.shape}), but make_node "
                         f"declared {declared} ({declared.ndim} dimension(s))")
    for axis, (n, b) in enumerate(zip(value.shape, declared.broadcastable)):
        if b and n != 1:
            raise ValueError(f"{prefix} has shape {value.shape}, but make_node declared dim {axis} "
                             f"broadcastable (size 1) in {declared}")
    return value
