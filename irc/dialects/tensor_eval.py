"""The numpy semantics of every `tensor` op, in one place: `evaluate(op, input_arrays)`.

This IS the reference: constant folding, the frontend's reference executor and the tests all
run ops through it. Results are fresh arrays of exactly the result types' dtypes (float32 stays
float32). Run-time shapes are checked against the static types and against Theano's
broadcasting (only a dim typed as a static 1 broadcasts); a mismatch raises a ValueError naming
the op, its location and the shapes.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator, Sequence

import numpy as np

from ..ir.core import Block, Operation, Value
from ..ir.transforms import values_from_above
from ..ir.types import scalar_from_numpy
from . import conv_reference
from .builtin import TensorType
from .elementwise import TABLE_ROWS, lookup
from .philox import sample
from .conv_semantics import conv_geometry, pool_geometry, pooled_type
from .tensor_semantics import DYNAMIC, accumulator_type, as_slice, slice_bounds

Evaluator = Callable[[Operation, list], list]
EVALUATORS: dict[str, Evaluator] = {}


def evaluator(*names: str):
    def register(fn: Evaluator) -> Evaluator:
        for n in names:
            EVALUATORS[n] = fn
        return fn
    return register


class EvalError(ValueError):
    """A run-time error of the reference semantics (shapes that do not fit)."""


class EvalIndexError(EvalError, IndexError):
    """An integer index out of range (numpy's IndexError)."""


def _fail(op: Operation, message: str, cls: type[EvalError] = EvalError) -> EvalError:
    return cls(f"'{op.op_name}' at {op.location}: {message}")


def _shape_str(shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def evaluated_inputs(op: Operation) -> list[Value]:
    """The values `evaluate` takes arrays for: the operands, then (for an op whose regions read
    values from above, `tensor.if`) those values in first-use order."""
    return [*op.operands, *values_from_above(op)]


# called with (op, results) after every op evaluated, nested ones (a scan's steps, a branch's)
# included: a debugging mode's checks (`NanGuardMode`), set with `observing`
_OBSERVERS: list[Callable[[Operation, list], None]] = []


@contextmanager
def observing(observer: Callable[[Operation, list], None]) -> Iterator[None]:
    """Within this block, `observer(op, results)` sees every op `evaluate` runs."""
    _OBSERVERS.append(observer)
    try:
        yield
    finally:
        _OBSERVERS.remove(observer)


def evaluate(op: Operation, input_arrays: Sequence) -> list[np.ndarray]:
    """Run one tensor op on numpy arrays (one per `evaluated_inputs(op)`); returns one array
    per result."""
    fn = EVALUATORS.get(op.op_name)
    if fn is None:
        raise NotImplementedError(f"no reference semantics for '{op.op_name}'")
    inputs = evaluated_inputs(op) if op.regions else op.operands
    if len(input_arrays) != len(inputs):
        raise _fail(op, f"expects {len(inputs)} input(s), got {len(input_arrays)}")
    arrays = [_check_input(op, i, v, a) for i, (v, a) in enumerate(zip(inputs, input_arrays))]
    try:
        with np.errstate(all="ignore"):
            outs = fn(op, arrays)
    except EvalError:
        raise
    except (ValueError, ArithmeticError, IndexError) as e:  # numpy's own complaint, located
        raise _fail(op, str(e)) from e
    results = []
    for r, out in zip(op.results, outs):
        t = r.type
        if isinstance(t, TensorType):
            out = np.array(out, dtype=t.element.numpy_name, copy=True)
            if out.ndim != t.rank or any(d is not None and d != n for d, n in zip(t.shape, out.shape)):
                raise _fail(op, f"result #{r.index} has shape {_shape_str(out.shape)} at run time, "
                                f"but its type is {t} (an index out of range?)")
        results.append(out)
    for observer in _OBSERVERS:
        observer(op, results)
    return results


def _check_input(op: Operation, i: int, value: Value, array) -> np.ndarray:
    t = value.type
    a = np.asarray(array)
    if not isinstance(t, TensorType):
        return a
    if a.dtype.name != t.element.numpy_name:
        if isinstance(array, np.ndarray):
            raise _fail(op, f"input #{i} has dtype {a.dtype.name}, but its type is {t}")
        a = a.astype(t.element.numpy_name)  # a Python number
    if a.ndim != t.rank or any(d is not None and d != n for d, n in zip(t.shape, a.shape)):
        raise _fail(op, f"input #{i} has shape {_shape_str(a.shape)}, but its type is {t}")
    return a


def check_broadcast(op: Operation, arrays: Sequence[np.ndarray], values: Sequence[Value]) -> tuple:
    """The broadcast shape; only dims typed as a static 1 may differ from the others."""
    rank = arrays[0].ndim if arrays else 0
    shape = []
    for axis in range(rank):
        size = None
        first = None
        for a, v in zip(arrays, values):
            if v.type.shape[axis] == 1:
                continue
            if size is None:
                size, first = a.shape[axis], a
            elif a.shape[axis] != size:
                raise _fail(op, f"shapes {_shape_str(first.shape)} and {_shape_str(a.shape)} do not "
                                f"match in dim {axis} (only dims of static size 1 broadcast)")
        shape.append(1 if size is None else size)
    return tuple(shape)


# ---------------------------------------------------------------------------- elementwise
@evaluator(*[row.tensor_name for row in TABLE_ROWS])
def _elementwise(op, arrays):
    shape = check_broadcast(op, arrays, op.operands)
    out = lookup(op.op_name).reference(*arrays)
    return [np.broadcast_to(out, shape)]


@evaluator("tensor.cast")
def _cast(op, arrays):
    return [arrays[0].astype(op.results[0].type.element.numpy_name)]


@evaluator("tensor.constant")
def _constant(op, arrays):
    return [op.attributes["value"].array]


@evaluator("tensor.fused")
def _fused(op, arrays):
    shape = check_broadcast(op, arrays, op.operands)
    env: dict[int, np.ndarray] = {id(a): x for a, x in zip(op.regions[0].blocks[0].args, arrays)}
    for inner in op.regions[0].blocks[0].ops:
        args = [env[id(v)] for v in inner.operands]
        if inner.op_name == "scalar.yield":
            return [np.broadcast_to(a, shape) for a in args]
        env[id(inner.results[0])] = evaluate_scalar(inner, args)
    raise _fail(op, "body has no 'scalar.yield'")


@evaluator("tensor.if")
def _if(op, arrays):
    """Only the taken region runs (its ops through `evaluate`, nested ifs included)."""
    env = dict(zip(evaluated_inputs(op), arrays))
    return run_block(op.regions[0 if bool(arrays[0]) else 1].blocks[0], env)


def run_block(block: Block, env: dict) -> list:
    """Run a region's block op by op (nested regions included) with `env` holding an array
    for each value it reads from outside; returns the arrays its terminator yields. `env`
    gains the block's values."""
    for inner in block.ops[:-1]:
        env.update(zip(inner.results, evaluate(inner, [env[v] for v in evaluated_inputs(inner)])))
    return [env[v] for v in block.terminator.operands]


def evaluate_scalar(op: Operation, args: list) -> np.ndarray:
    """A scalar op applied to arrays (the vectorized interpretation of a fused body)."""
    dtype = op.results[0].type.numpy_name
    if op.op_name == "scalar.constant":
        return np.array(op.attributes["value"].value, dtype=dtype)
    if op.op_name == "scalar.cast":
        return np.asarray(args[0]).astype(dtype)
    return np.asarray(lookup(op.op_name).reference(*args)).astype(dtype, copy=False)


# ---------------------------------------------------------------------------- shapes
def _ints(op, key) -> tuple[int, ...]:
    return tuple(op.attributes[key].value)


@evaluator("tensor.dimshuffle")
def _dimshuffle(op, arrays):
    x = arrays[0]
    pattern = _ints(op, "pattern")
    kept = [p for p in pattern if p != -1]
    dropped = tuple(d for d in range(x.ndim) if d not in kept)
    x = x.reshape([n for d, n in enumerate(x.shape) if d not in dropped]) if dropped else x
    order = sorted(kept)
    x = x.transpose([order.index(p) for p in kept])
    return [x.reshape([1 if p == -1 else x.shape[kept.index(p)] for p in pattern])]


@evaluator("tensor.transpose")
def _transpose(op, arrays):
    return [arrays[0].transpose(_ints(op, "permutation"))]


@evaluator("tensor.reshape")
def _reshape(op, arrays):
    shape = list(_ints(op, "shape"))
    if len(arrays) == 2:
        sizes = arrays[1]
        if sizes.shape != (len(shape),):
            raise _fail(op, f"sizes operand has shape {_shape_str(sizes.shape)}, expected ({len(shape)},)")
        shape = [int(sizes[k]) if s == DYNAMIC else s for k, s in enumerate(shape)]
    try:
        return [arrays[0].reshape(shape)]
    except ValueError:
        raise _fail(op, f"cannot reshape an array of shape {_shape_str(arrays[0].shape)} "
                        f"into shape {_shape_str(shape)}") from None


@evaluator("tensor.broadcast")
def _broadcast(op, arrays):
    shape = check_broadcast(op, arrays, op.operands)
    return [np.broadcast_to(arrays[0], shape)]


@evaluator("tensor.dim")
def _dim(op, arrays):
    return [np.array(arrays[0].shape[op.attributes["axis"].value], dtype=np.int64)]


def _slices(op, rank: int) -> tuple[slice, ...]:
    return tuple(as_slice(*b) for b in slice_bounds(op.attributes, rank))


@evaluator("tensor.slice")
def _slice(op, arrays):
    return [arrays[0][_slices(op, arrays[0].ndim)]]


def _write_into(op, dest: np.ndarray, index: tuple, src: np.ndarray, places: str,
                add: bool = False) -> list[np.ndarray]:
    """A copy of `dest` with `src` written (or, `add`, added: repeated places sum) at `index`,
    the one check and copy of every insert; `places` names them in the error ({target}: their
    shape, {dest}: dest's)."""
    out = dest.copy()
    target = out[index].shape
    if src.shape != target:
        where = places.format(target=_shape_str(target), dest=_shape_str(dest.shape))
        raise _fail(op, f"src of shape {_shape_str(src.shape)} does not fit {where}")
    if add:
        np.add.at(out, index, src)
    else:
        out[index] = src
    return [out]


@evaluator("tensor.insert_slice")
def _insert_slice(op, arrays):
    dest, src = arrays
    return _write_into(op, dest, _slices(op, dest.ndim), src, "the slice of shape {target} of dest {dest}")


def _integer_index(op, x: np.ndarray, indices: Sequence[np.ndarray]) -> tuple:
    """The numpy index of `tensor.index`/`insert_index`: each index checked, -n <= i < n."""
    axes = _ints(op, "axes")
    index: list = [slice(None)] * x.ndim
    for axis, i in zip(axes, indices):
        n, k = x.shape[axis], int(i)
        if not -n <= k < n:
            raise _fail(op, f"index {k} is out of range for axis {axis} of size {n}", EvalIndexError)
        index[axis] = k
    return tuple(index)


@evaluator("tensor.index")
def _index(op, arrays):
    x = arrays[0]
    return [x[_integer_index(op, x, arrays[1:])]]


@evaluator("tensor.insert_index")
def _insert_index(op, arrays):
    dest, src = arrays[:2]
    return _write_into(op, dest, _integer_index(op, dest, arrays[2:]), src,
                       "dest {dest} at the index (shape {target})")


def _index_arrays(op, x: np.ndarray, indices: Sequence[np.ndarray]) -> tuple:
    """The numpy index of `tensor.gather`/`scatter`: every index checked, -n <= i < n."""
    for axis, i in enumerate(indices):
        n = x.shape[axis]
        bad = (i < -n) | (i >= n)
        if np.any(bad):
            raise _fail(op, f"index {int(i[bad].flat[0])} is out of range for axis {axis} of size {n}",
                        EvalIndexError)
    return tuple(np.broadcast_arrays(*indices))


@evaluator("tensor.gather")
def _gather(op, arrays):
    x = arrays[0]
    return [x[_index_arrays(op, x, arrays[1:])]]


@evaluator("tensor.scatter")
def _scatter(op, arrays):
    dest, src = arrays[:2]
    return _write_into(op, dest, _index_arrays(op, dest, arrays[2:]), src,
                       "the places of shape {target} the indices select in dest {dest}",
                       add=op.attributes["mode"].value == "add")


@evaluator("tensor.concat")
def _concat(op, arrays):
    axis = op.attributes["axis"].value
    for a in arrays[1:]:
        if any(n != m for d, (n, m) in enumerate(zip(arrays[0].shape, a.shape)) if d != axis):
            raise _fail(op, f"shapes {_shape_str(arrays[0].shape)} and {_shape_str(a.shape)} differ "
                            f"outside the concatenation axis {axis}")
    return [np.concatenate(arrays, axis=axis)]


@evaluator("tensor.to_device", "tensor.to_host")
def _transfer(op, arrays):
    return [arrays[0]]


# ---------------------------------------------------------------------------- reductions, products
_REDUCERS = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}


def _combine(kind: str, x: np.ndarray, axis) -> np.ndarray:
    """numpy's reduction, with sums and products accumulated in `accumulator_type` (numpy
    itself keeps an f16 accumulator for all but contiguous innermost-axis sums)."""
    if kind not in ("sum", "prod"):
        return _REDUCERS[kind](x, axis=axis)
    acc = np.dtype(accumulator_type(kind, scalar_from_numpy(x.dtype.name)).numpy_name)
    return np.asarray(_REDUCERS[kind](x, axis=axis, dtype=acc)).astype(x.dtype)


@evaluator("tensor.fused_reduce")
def _fused_reduce(op, arrays):
    """The body's values over the broadcast shape: the elementwise results as they are, the
    others reduced as `tensor.reduce` would."""
    values = _fused(op, arrays)
    n = op.num_elementwise
    return [np.ascontiguousarray(v) for v in values[:n]] + \
        [_reduce(op, [np.ascontiguousarray(v)])[0] for v in values[n:]]


@evaluator("tensor.reduce")
def _reduce(op, arrays):
    x = arrays[0]
    kind = op.attributes["kind"].value
    axes = _ints(op, "axes")
    if kind in ("max", "min", "argmax", "argmin") and any(x.shape[a] == 0 for a in axes):
        raise _fail(op, f"{kind} over an empty axis (input shape {_shape_str(x.shape)})")
    if kind in ("argmax", "argmin"):
        return [getattr(np, kind)(x, axis=axes[0])]
    return [_combine(kind, x, axes)]


def _inner(op, a: np.ndarray, b: np.ndarray, a_axis: int, b_axis: int) -> None:
    if a.shape[a_axis] != b.shape[b_axis]:
        raise _fail(op, f"shapes {_shape_str(a.shape)} and {_shape_str(b.shape)} are not aligned "
                        f"({a.shape[a_axis]} vs {b.shape[b_axis]})")


@evaluator("tensor.dot")
def _dot(op, arrays):
    a, b = arrays
    _inner(op, a, b, -1, 0)
    return [np.dot(a, b)]


def _blas(op, arrays):
    alpha = float(op.attributes["alpha"].value) if "alpha" in op.attributes else 1.0
    beta = float(op.attributes["beta"].value) if "beta" in op.attributes else 0.0
    a, b = arrays[:2]
    _inner(op, a, b, 1, 0)
    out = alpha * np.dot(a, b)
    if len(arrays) == 3:
        c = arrays[2]
        broadcasts = all(d == o or (d == 1 and t == 1) for d, o, t in
                         zip(c.shape, out.shape, op.operands[2].type.shape))
        if c.ndim != out.ndim or not broadcasts:
            raise _fail(op, f"accumulator of shape {_shape_str(c.shape)} does not match the product's "
                            f"shape {_shape_str(out.shape)}")
        out = out + beta * c
    epilogue = op.attributes.get("epilogue")
    if epilogue is not None:
        with np.errstate(all="ignore"):
            out = lookup(epilogue.value).reference(out)
    return [out.astype(op.results[0].type.element.numpy_name, copy=False)]


EVALUATORS["tensor.gemv"] = _blas
EVALUATORS["tensor.gemm"] = _blas


def _softmax_rows(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@evaluator("tensor.softmax")
def _softmax(op, arrays):
    with np.errstate(all="ignore"):
        return [_softmax_rows(arrays[0]).astype(arrays[0].dtype, copy=False)]


@evaluator("tensor.log_softmax")
def _log_softmax(op, arrays):
    x = arrays[0]
    with np.errstate(all="ignore"):
        s = x - x.max(axis=-1, keepdims=True)
        return [(s - np.log(np.exp(s).sum(axis=-1, keepdims=True))).astype(x.dtype, copy=False)]


@evaluator("tensor.softmax_grad")
def _softmax_grad(op, arrays):
    g, p = arrays
    if g.shape != p.shape:
        raise _fail(op, f"shapes {_shape_str(g.shape)} and {_shape_str(p.shape)} differ")
    return [((g - (g * p).sum(axis=-1, keepdims=True)) * p).astype(p.dtype, copy=False)]


@evaluator("tensor.fused_matvec")
def _fused_matvec(op, arrays):
    """z = A·x; the body row by row (elementwise results, then reductions over the rows);
    out = alpha·Aᵀ·g + beta·y2, g being the body's last value."""
    A, x = arrays[:2]
    acc = arrays[2] if op.acc is not None else None
    _inner(op, A, x, 1, 0)
    m = A.shape[0]
    rows = arrays[len(arrays) - op.num_rows:]
    for i, (a, v) in enumerate(zip(rows, op.row_operands)):
        if v.type.shape[0] != 1 and a.shape[0] != m:
            raise _fail(op, f"row operand #{i} has shape {_shape_str(a.shape)}, but A has {m} rows")
    env = dict(zip(op.body.args, [np.dot(A, x), *rows]))
    for inner in op.body.ops[:-1]:
        env[inner.results[0]] = evaluate_scalar(inner, [env[v] for v in inner.operands])
    values = [np.broadcast_to(env[v], (m,)) for v in op.body.ops[-1].operands]
    n = op.num_elementwise
    kind = op.kind
    reduced = [_combine(kind, v, 0) for v in values[n:-1]]
    out = op.alpha * np.dot(A.T, values[-1])
    if acc is not None:
        if acc.shape != out.shape:
            raise _fail(op, f"accumulator of shape {_shape_str(acc.shape)} does not match Aᵀ·g's "
                            f"shape {_shape_str(out.shape)}")
        out = out + op.beta * acc
    return [np.ascontiguousarray(v) for v in values[:n]] + reduced + [out]


# ---------------------------------------------------------------------------- creation and order
@evaluator("tensor.alloc")
def _alloc(op, arrays):
    value, sizes = arrays[0], [int(s) for s in arrays[1:]]
    for axis, (d, n) in enumerate(zip(value.shape, sizes)):
        if n < 0 or (op.operands[0].type.shape[axis] != 1 and d != n):
            raise _fail(op, f"size {n} does not fit the value's dim {axis} of size {d}")
    return [np.broadcast_to(value, sizes)]


@evaluator("tensor.from_elements")
def _from_elements(op, arrays):
    return [np.array([a.item() for a in arrays], dtype=op.results[0].type.element.numpy_name)]


@evaluator("tensor.iota")
def _iota(op, arrays):
    n = int(arrays[0])
    if n < 0:
        raise _fail(op, f"negative length {n}")
    return [np.arange(n, dtype=np.int64)]


@evaluator("tensor.cumulative")
def _cumulative(op, arrays):
    axis = op.attributes["axis"].value
    fn = np.cumsum if op.attributes["kind"].value == "sum" else np.cumprod
    return [fn(arrays[0], axis=axis, dtype=arrays[0].dtype)]


@evaluator("tensor.sort")
def _sort(op, arrays):
    axis = op.attributes["axis"].value
    if op.attributes["kind"].value == "values":
        return [np.sort(arrays[0], axis=axis, kind="stable")]
    return [np.argsort(arrays[0], axis=axis, kind="stable").astype(np.int64)]


@evaluator("tensor.random")
def _random(op, arrays):
    state, sizes = arrays[0], [int(a) for a in arrays[1:]]
    if state.shape != (3,):
        raise _fail(op, f"the generator state must hold 3 values [key0, key1, draw], got shape "
                        f"{_shape_str(state.shape)}")
    if any(n < 0 for n in sizes):
        raise _fail(op, f"negative size {_shape_str(sizes)}")
    return [sample(state, tuple(sizes), op.attributes["distribution"].value, op.results[0].type.element.numpy_name)]


@evaluator("tensor.dynamic_slice")
def _dynamic_slice(op, arrays):
    x, start, stop = arrays
    index = [slice(None)] * x.ndim
    index[op.attributes["axis"].value] = slice(int(start), int(stop))
    return [x[tuple(index)].copy()]


# ---------------------------------------------------------------------------- convolution, pooling
def _conv_checks(op, x_shape, w_shape, gy_shape=None) -> tuple:
    """The geometry of a convolution op, after checking the run-time shapes it combines."""
    strides, pads, dilation, flip = conv_geometry(op.attributes)
    if x_shape[1] != w_shape[1]:
        raise _fail(op, f"the images {_shape_str(x_shape)} have {x_shape[1]} channels but the filters "
                        f"{_shape_str(w_shape)} have {w_shape[1]}")
    out = conv_reference.conv_output_shape(x_shape, w_shape, strides, pads, dilation)
    if out[2] < 1 or out[3] < 1:
        raise _fail(op, f"the images {_shape_str(x_shape)} (padded by {list(pads)}) are smaller than the "
                        f"filters {_shape_str(w_shape)} (dilated by {list(dilation)})")
    if gy_shape is not None and tuple(gy_shape) != out:
        raise _fail(op, f"the output gradient has shape {_shape_str(gy_shape)}, the convolution's output "
                        f"{_shape_str(out)}")
    return strides, pads, dilation, flip


def _check_hints(op, x: np.ndarray, w: np.ndarray) -> None:
    for key, a, what in (("input_shape", x, "images"), ("filter_shape", w, "filters")):
        hint = op.attributes.get(key)
        if hint is not None and any(h not in (-1, d) for h, d in zip(hint, a.shape)):
            raise _fail(op, f"the {what} have shape {_shape_str(a.shape)}, but {key} says "
                            f"{_shape_str(['?' if h == -1 else h for h in hint])}")


@evaluator("tensor.conv2d")
def _conv2d(op, arrays):
    x, w = arrays[:2]
    _check_hints(op, x, w)
    y = conv_reference.conv2d(x, w, *_conv_checks(op, x.shape, w.shape))
    if len(arrays) == 3:
        if arrays[2].shape != (w.shape[0],):
            raise _fail(op, f"the bias has shape {_shape_str(arrays[2].shape)}, the filters {_shape_str(w.shape)}")
        y = y + arrays[2][None, :, None, None]
    epilogue = op.attributes.get("epilogue")
    if epilogue is not None:
        with np.errstate(all="ignore"):
            y = lookup(epilogue.value).reference(y)
    return [y.astype(x.dtype, copy=False)]


@evaluator("tensor.conv2d_grad_input")
def _conv2d_grad_input(op, arrays):
    gy, w, x = arrays
    _check_hints(op, x, w)
    return [conv_reference.conv2d_grad_input(gy, w, x.shape, *_conv_checks(op, x.shape, w.shape, gy.shape))]


@evaluator("tensor.conv2d_grad_filters")
def _conv2d_grad_filters(op, arrays):
    x, gy, w = arrays
    _check_hints(op, x, w)
    return [conv_reference.conv2d_grad_filters(x, gy, w.shape, *_conv_checks(op, x.shape, w.shape, gy.shape))]


def _pooled_shape(op, x: np.ndarray) -> tuple:
    t = pooled_type(TensorType(x.shape, scalar_from_numpy(x.dtype)), op.attributes)
    return tuple(t.shape)


@evaluator("tensor.pool2d")
def _pool2d(op, arrays):
    mode, window, strides, pads, _ = pool_geometry(op.attributes)
    x = arrays[0]
    return [conv_reference.pool2d(x, _pooled_shape(op, x), mode, window, strides, pads)]


@evaluator("tensor.pool2d_grad")
def _pool2d_grad(op, arrays):
    mode, window, strides, pads, _ = pool_geometry(op.attributes)
    x, gy = arrays[0], arrays[-1]
    y = arrays[1] if mode == "max" else None
    want = _pooled_shape(op, x)
    for a in arrays[1:]:
        if a.shape != want:
            raise _fail(op, f"the pooled operands must have shape {_shape_str(want)}, got {_shape_str(a.shape)}")
    return [conv_reference.pool2d_grad(x, y, gy, mode, window, strides, pads)]
