"""`tensor.custom`: an op the user wrote in Python (`irc.Op` with `perform`), opaque to the compiler.

    %y = tensor.custom %x {op = "mymodule.DoubleOp{factor=2}"} : (tensor<?xf64>) -> tensor<?xf64>

A GPU user op (one with `make_thunk`) carries `device = "cuda"`: `insert-transfers` places it
on the device, except the operands listed in `host_operands` (0-d integers its launch reads on
the host, like GpuEye's sizes). `op` names the user's op: its class (module and qualified name) and its props, the text that
is also the key of `USER_OPS`, the registry that finds the Python object again. The frontend
registers an op when it lowers it; a pickled function carries the ops its module names and
registers them when it is loaded. Result types are whatever the op's `make_node` declared, so
they are written in the IR and never inferred.

Passes see a pure op they cannot look into: CSE merges two with equal `op` and operands (equal
ops merge, as Theano's `__props__` promise), nothing fuses it, nothing makes it in place,
`lower-to-loops` has no rule for it. The runtime runs it between the native parts of a
function (`irc/runtime/segmented.py`); the reference semantics here call the registered
implementation."""
from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Iterator, Protocol

from ..ir.attributes import DenseArrayAttr, StringAttr
from ..ir.core import Operation
from .builtin import TensorType
from .op_base import Bad
from .tensor_base import TensorOp, common_device
from .tensor_eval import EvalError, evaluator


class UserOpImpl(Protocol):
    """What the registry holds per user op (the frontend's adapter around the user's object)."""

    def run(self, op: Operation, arrays: list, check_inputs: bool, donated: frozenset = frozenset()) -> list:
        """The op's results for `arrays` (numpy, one per operand); with `check_inputs`, fail
        when the op changed an input it did not declare in `destroy_map` (DebugMode);
        `donated`: operands nothing reads afterwards, which `destroy_map` may overwrite."""


USER_OPS: dict[str, Any] = {}

# DebugMode turns this on around its runs: user ops then check that they left their inputs alone
_CHECK_INPUTS: contextvars.ContextVar[bool] = contextvars.ContextVar("irc_check_user_op_inputs", default=False)


@contextlib.contextmanager
def checking_inputs() -> Iterator[None]:
    """User ops run inside this block verify that they did not overwrite an input undeclared."""
    token = _CHECK_INPUTS.set(True)
    try:
        yield
    finally:
        _CHECK_INPUTS.reset(token)


def checking_inputs_now() -> bool:
    """Whether user ops run now must check their inputs (inside `checking_inputs`)."""
    return _CHECK_INPUTS.get()


def register_user_op(key: str, impl: Any) -> None:
    """Make `impl` the implementation of the ops whose `op` attribute is `key`."""
    USER_OPS[key] = impl


def user_op_impl(op: Operation) -> Any:
    """The registered implementation of a `tensor.custom` op, or a located error saying why not."""
    key = op.attributes["op"].value
    impl = USER_OPS.get(key)
    if impl is None:
        raise EvalError(f"'tensor.custom' at {op.location}: no user op '{key}' is known in this process: "
                        f"import the module defining it (and build the graph using it) before running "
                        f"this IR; irc-opt can print and transform it but not run it")
    return impl


def user_op_impls(root: Operation) -> dict[str, Any]:
    """{key: implementation} of the user ops `root` holds (what a pickled function carries)."""
    keys = [op.attributes["op"].value for op in root.walk() if op.op_name == "tensor.custom"]
    return {k: USER_OPS[k] for k in dict.fromkeys(keys) if k in USER_OPS}


def user_op_label(op: Operation) -> str:
    """`DoubleOp{factor=2}`: the op's class name and props, without its module."""
    key = op.attributes["op"].value
    head, brace, props = key.partition("{")
    return head.rsplit(".", 1)[-1] + brace + props


class CustomOp(TensorOp):
    """`tensor.custom %a, %b {op = "module.Class{props}"} : (...) -> (...)`; see the module
    docstring. Any number of tensor operands and results, all on one placement."""

    name = "tensor.custom"

    @classmethod
    def _infer(cls, operand_types, attributes):
        raise NotImplementedError  # the results are the user's make_node's: written, not inferred

    @classmethod
    def infer_result_types(cls, operand_types, attributes):
        raise NotImplementedError("tensor.custom: result types come from the user's make_node")

    def verify_(self) -> None:
        key = self.attributes.get("op")
        if not isinstance(key, StringAttr) or not key.value:
            raise self.error("requires a non-empty string 'op' attribute (the user op's class and props)")
        types = [v.type for v in (*self.operands, *self.results)]
        for i, t in enumerate(types):
            if not isinstance(t, TensorType):
                raise self.error(f"operands and results must be tensors, got {t} (#{i})")
        device = self.attributes.get("device")
        if device is not None and not isinstance(device, StringAttr):
            raise self.error(f"'device' must be a string (where the op's kernels run), got {device}")
        on_host = self.host_operands
        for i in on_host:
            if not 0 <= i < len(self.operands):
                raise self.error(f"'host_operands' entry {i} is not an operand index")
            if self.operands[i].type.device is not None:
                raise self.error(f"operand #{i} is listed in 'host_operands' but lives on "
                                 f"{self.operands[i].type.device!r}")
        try:
            common_device([t for k, t in enumerate(types) if k not in on_host])
        except Bad as e:
            raise self.error(str(e)) from None

    @property
    def host_operands(self) -> tuple[int, ...]:
        """Operands a device op reads on the host (sizes, flags: 0-d values a launch needs)."""
        marks = self.attributes.get("host_operands")
        return tuple(marks.value) if isinstance(marks, DenseArrayAttr) else ()

    def fold(self):
        return None  # the user's code runs at run time, not while compiling


@evaluator("tensor.custom")
def _custom(op: Operation, arrays: list) -> list:
    return user_op_impl(op).run(op, arrays, _CHECK_INPUTS.get())
