"""``tf.sparse``: the sparse ops under their short names.

Each name is the same function as the ``tf.sparse_*`` one (``tf.sparse.to_dense``
is ``tf.sparse_tensor_to_dense``, ``tf.sparse.concat`` is ``tf.sparse_concat``...).
"""

from tensorfleet.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorfleet.ops.hash_ops import (sparse_cross as cross,
    sparse_cross_hashed as cross_hashed)
from tensorfleet.ops.sparse_ops import (sparse_add as add, sparse_concat as concat,
    sparse_fill_empty_rows as fill_empty_rows, sparse_tensor_dense_matmul as matmul,
    sparse_maximum as maximum, sparse_minimum as minimum, sparse_placeholder as placeholder,
    sparse_reduce_max as reduce_max, sparse_reduce_sum as reduce_sum,
    sparse_reorder as reorder, sparse_reset_shape as reset_shape, sparse_reshape as reshape,
    sparse_retain as retain, sparse_segment_mean as segment_mean,
    sparse_segment_sqrt_n as segment_sqrt_n, sparse_segment_sum as segment_sum,
    sparse_slice as slice, sparse_softmax as softmax,
    sparse_tensor_dense_matmul as sparse_dense_matmul, sparse_split as split,
    sparse_tensor_to_dense as to_dense, sparse_to_indicator as to_indicator,
    sparse_transpose as transpose)
from tensorfleet.ops.accumulator_ops import SparseConditionalAccumulator

from tensorfleet.ops.sparse_construct_ops import (expand_dims, eye, from_dense, mask)
from tensorfleet.ops.sparse_reductions import (bincount, sparse_merge as merge,
    sparse_reduce_max_sparse as reduce_max_sparse,
    sparse_reduce_sum_sparse as reduce_sum_sparse)

__all__ = ["bincount", "merge", "reduce_max_sparse", "reduce_sum_sparse",
           "add", "concat", "cross", "cross_hashed", "expand_dims", "eye", "fill_empty_rows",
           "from_dense", "mask", "matmul", "maximum", "minimum", "placeholder", "reduce_max",
           "reduce_sum", "reorder", "reset_shape", "reshape", "retain", "segment_mean",
           "segment_sqrt_n", "segment_sum", "slice", "softmax", "sparse_dense_matmul",
           "SparseConditionalAccumulator", "SparseTensor", "SparseTensorValue", "split",
           "to_dense", "to_indicator", "transpose"]
