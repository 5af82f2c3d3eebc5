"""Neural-network functions (`T.nnet.*`), written with the primitive ops so every backend and
every rewrite (e.g. `stabilize`) sees them; sigmoid and softplus are table rows."""
from __future__ import annotations

from typing import Any

from .basic import (abs_, add, as_tensor_variable, cast, dimshuffle, eq, exp, expm1, gt, log, mul, neg, relu,
                    shape_padleft, sigmoid, softplus, sub, switch, true_div)
from .creation import arange
from .dtypes import upgrade_to_float
from .mathops import clip, max as max_, sum as sum_
from .join import Join
from .matrix_products import dot
from .numpy_run_ops import Unique
from .softmax_ops import LogSoftmax, Softmax

__all__ = ["sigmoid", "softplus", "relu", "softmax", "log_softmax", "logsoftmax", "binary_crossentropy",
           "categorical_crossentropy", "ultra_fast_sigmoid", "hard_sigmoid", "elu", "selu", "softmax_graph",
           "softmax_op", "sigmoid_binary_crossentropy", "confusion_matrix", "softsign"]


def _last_axis(x, axis: int) -> bool:
    return x.ndim >= 1 and axis in (-1, x.ndim - 1) and x.type.is_float


def _theano_operand(x: Any, axis: int | None) -> tuple[Any, int]:
    """Theano's `softmax(c)`/`logsoftmax(c)` (no axis) work on rows, and make a vector a 1×n
    row first (its `Softmax.make_node` pads it), so rnnslu's `s[:, 0, :]` finds that dim; an
    explicit `axis` (irc's, as Aesara's later) keeps the rank."""
    x = as_tensor_variable(x)
    if axis is None:
        return (shape_padleft(x) if x.ndim == 1 else x), -1
    return x, axis


def softmax(x: Any, axis: int | None = None):
    """exp(x - max) / sum(exp(x - max)) along `axis` (the last by default; a vector gives a 1×n
    matrix, as Theano): one `Softmax` op along the last axis, a composition along another."""
    x, axis = _theano_operand(x, axis)
    if _last_axis(x, axis):
        return Softmax()(x)
    e = exp(sub(x, max_(x, axis, keepdims=True)))
    return true_div(e, sum_(e, axis, keepdims=True))


def log_softmax(x: Any, axis: int | None = None):
    """x - max - log(sum(exp(x - max))): stable for large inputs (a `LogSoftmax` op along the
    last axis; a vector gives a 1×n matrix, as Theano)."""
    x, axis = _theano_operand(x, axis)
    if _last_axis(x, axis):
        return LogSoftmax()(x)
    shifted = sub(x, max_(x, axis, keepdims=True))
    return sub(shifted, log(sum_(exp(shifted), axis, keepdims=True)))


logsoftmax = log_softmax  # Theano's spelling
softmax_op = Softmax()  # Theano's instance of its op


def softmax_graph(c: Any):
    """Theano's unfused softmax: exp(c) / sum(exp(c)) along the last axis (no max subtracted)."""
    e = exp(as_tensor_variable(c))
    return true_div(e, sum_(e, -1, keepdims=True))


def binary_crossentropy(output: Any, target: Any):
    """-(target * log(output) + (1 - target) * log(1 - output)), elementwise."""
    return neg(mul(target, log(output)) + mul(sub(1.0, target), log(sub(1.0, output))))


def categorical_crossentropy(coding_dist: Any, true_dist: Any):
    """-sum(true_dist * log(coding_dist)) over the last axis. `true_dist` is a one-hot (or
    any) distribution of the same shape, or (for a matrix) integer class indices, one per row."""
    p, t = as_tensor_variable(coding_dist), as_tensor_variable(true_dist)
    if t.ndim == p.ndim:
        return neg(sum_(mul(t, log(p)), axis=-1))
    if p.ndim == 2 and t.ndim == 1 and not t.type.is_float:
        # the DLT's own form: a gather of log p, so log(softmax) still becomes log_softmax
        return neg(log(p)[arange(p.shape[0]), t])
    if t.ndim == p.ndim - 1 and not t.type.is_float:
        cols = arange(p.shape[p.ndim - 1])   # 0..K-1
        onehot = eq(dimshuffle(t, tuple(range(t.ndim)) + ("x",)), cast(cols, t.dtype))
        return neg(sum_(mul(onehot, log(p)), axis=-1))
    raise TypeError(f"categorical_crossentropy: true_dist {t.type} must match coding_dist {p.type} "
                    f"or be integer indices with one dimension less")


def sigmoid_binary_crossentropy(output: Any, target: Any):
    """`binary_crossentropy(sigmoid(output), target)` computed stably from the logits:
    softplus(-|output|) + output * ((output > 0) - target)."""
    output, target = as_tensor_variable(output), as_tensor_variable(target)
    return add(softplus(neg(abs_(output))), mul(output, sub(cast(gt(output, 0), output.dtype), target)))


def elu(x: Any, alpha: Any = 1):
    """x where x > 0, else alpha * (exp(x) - 1) (exponential linear unit)."""
    x = as_tensor_variable(x)
    return switch(gt(x, 0), x, mul(alpha, expm1(x)))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(x: Any):
    """scale * elu(x, alpha) with the self-normalizing constants."""
    return mul(_SELU_SCALE, elu(x, _SELU_ALPHA))


def confusion_matrix(actual: Any, pred: Any) -> list:
    """[counts, labels]: `counts[i, j]` is how many times label `labels[i]` was predicted as
    `labels[j]`; `labels` are the distinct values of both vectors, sorted (numpy runs that
    part: its size is the data's)."""
    actual, pred = as_tensor_variable(actual), as_tensor_variable(pred)
    if actual.ndim != 1 or pred.ndim != 1:
        raise ValueError(f"confusion_matrix: actual and pred must be vectors, got {actual.type} and {pred.type}")
    labels = Unique()(Join(0)(actual, pred))
    one_hot_actual = cast(eq(dimshuffle(actual, (0, "x")), labels), "int64")
    one_hot_pred = cast(eq(dimshuffle(pred, (0, "x")), labels), "int64")
    return [dot(one_hot_actual.T, one_hot_pred), labels]


def ultra_fast_sigmoid(x: Any):
    return sigmoid(x)


def _as_float(x: Any):
    """x in Theano's `upgrade_to_float` dtype (int8 -> float32, int32 -> float64): what its
    elementwise float ops compute in."""
    x = as_tensor_variable(x)
    dtype = upgrade_to_float(x.dtype)
    return x if x.dtype == dtype else cast(x, dtype)


def hard_sigmoid(x: Any):
    """clip(0.2 * x + 0.5, 0, 1), in x's float dtype (Theano's constants are of that dtype)."""
    return clip(mul(0.2, _as_float(x)) + 0.5, 0.0, 1.0)


def softsign(x: Any):
    """x / (1 + |x|) (Theano's `nnet.softsign`), in x's float dtype."""
    x = _as_float(x)
    return true_div(x, add(1.0, abs_(x)))


relu = relu
softplus = softplus
