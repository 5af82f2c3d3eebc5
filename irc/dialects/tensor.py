"""`tensor`: one op per tensor operation, with value semantics, static ranks, dynamic sizes, a
static broadcast pattern (a static 1 broadcasts), a dtype and a placement.

The ops live in a few files by family; importing this module registers all of them:
`tensor_base` (base class, `constant`, shared shape rules), `tensor_elementwise` (one op per
row of the elementwise table, `cast`), `tensor_shape_ops` (dimshuffle, transpose, reshape,
broadcast, dim, slice, insert_slice, concat), `tensor_transfers` (to_device, to_host),
`tensor_linalg` (reduce, dot, gemv, gemm), `tensor_softmax` (softmax, log_softmax,
softmax_grad), `tensor_index` (index, insert_index: integer indexing), `tensor_fused` (fused),
`tensor_fused_reduce`, `tensor_fused_matvec`, `tensor_random` (random: Philox samples), `tensor_dynamic_slice` (run-time slice bounds), `tensor_if` (if, yield: a lazy conditional), `tensor_gather` (gather,
scatter: advanced indexing), `tensor_scan` (scan, scan_yield: a loop with a body region), `tensor_conv` (conv2d and its gradients), `tensor_pool` (pool2d, pool2d_grad), `tensor_custom` (custom: a user's op). Their numpy semantics are in `tensor_eval`.
"""
from __future__ import annotations

from .op_base import InferError
from .tensor_base import (DYNAMIC, FOLD_MAX_ELEMENTS, NO_BOUND, ConstantOp, TensorOp, broadcast_shapes,
                          constant_value)
from .tensor_elementwise import ELEMENTWISE_OPS, CastOp, ElementwiseOp
from .tensor_fused import FusedOp
from .tensor_index import IndexOp, InsertIndexOp
from .tensor_fused_reduce import FusedReduceOp
from .tensor_fused_matvec import FusedMatvecOp
from .tensor_linalg import REDUCE_KINDS, DotOp, GemmOp, GemvOp, ReduceOp
from .tensor_softmax import SOFTMAX_OPS, LogSoftmaxOp, SoftmaxGradOp, SoftmaxOp
from .tensor_shape_ops import (BroadcastOp, ConcatOp, DimOp, DimShuffleOp, InsertSliceOp, ReshapeOp, SliceOp,
                               TransposeOp)
from .tensor_transfers import ToDeviceOp, ToHostOp, transferred
from .tensor_creation import AllocOp, FromElementsOp, IotaOp
from .tensor_order import CumulativeOp, SortOp
from .tensor_random import RandomOp
from .tensor_dynamic_slice import DynamicSliceOp
from .tensor_gather import GatherOp, ScatterOp
from .tensor_if import IfOp, YieldOp
from .tensor_scan import ScanOp, ScanYieldOp
from .tensor_conv import CONV_OPS, Conv2dGradFiltersOp, Conv2dGradInputOp, Conv2dOp
from .tensor_pool import POOL_OPS, Pool2dGradOp, Pool2dOp
from .tensor_custom import CustomOp
from . import scalar  # noqa: F401  (fused bodies hold scalar ops)

__all__ = [
    "DYNAMIC", "FOLD_MAX_ELEMENTS", "NO_BOUND", "ConstantOp", "TensorOp", "broadcast_shapes",
    "constant_value",
    "ELEMENTWISE_OPS", "CastOp", "ElementwiseOp", "FusedOp", "IndexOp", "InsertIndexOp", "FusedReduceOp", "FusedMatvecOp", "REDUCE_KINDS", "DotOp", "GemmOp", "GemvOp",
    "ReduceOp", "BroadcastOp", "ConcatOp", "DimOp", "DimShuffleOp", "InsertSliceOp", "ReshapeOp", "SliceOp",
    "ToDeviceOp", "ToHostOp", "AllocOp", "FromElementsOp", "IotaOp", "CumulativeOp", "SortOp", "RandomOp", "DynamicSliceOp",
    "GatherOp", "ScatterOp",
    "transferred",
    "TransposeOp", "IfOp", "YieldOp", "InferError", "SOFTMAX_OPS", "SoftmaxOp", "LogSoftmaxOp", "SoftmaxGradOp",
    "ScanOp", "ScanYieldOp", "CONV_OPS", "Conv2dOp", "Conv2dGradInputOp", "Conv2dGradFiltersOp", "POOL_OPS",
    "Pool2dOp", "Pool2dGradOp", "CustomOp",
]
