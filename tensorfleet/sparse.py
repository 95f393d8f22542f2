"""``tf.sparse``: the sparse ops under their short names.

Each name is the same function as the ``tf.sparse_*`` one (``tf.sparse.to_dense``
is ``tf.sparse_tensor_to_dense``, ``tf.sparse.concat`` is ``tf.sparse_concat``...).
"""

from tensorfleet.framework.sparse_tensor import SparseTensor, SparseTensorValue  # noqa: F401
from tensorfleet.ops import sparse_ops as _s
from tensorfleet.ops import hash_ops as _hash

placeholder = _s.sparse_placeholder
to_dense = _s.sparse_tensor_to_dense
sparse_dense_matmul = _s.sparse_tensor_dense_matmul
matmul = _s.sparse_tensor_dense_matmul
reduce_sum = _s.sparse_reduce_sum
concat = _s.sparse_concat
reorder = _s.sparse_reorder
add = _s.sparse_add
retain = _s.sparse_retain
fill_empty_rows = _s.sparse_fill_empty_rows
segment_sum = _s.sparse_segment_sum
segment_mean = _s.sparse_segment_mean
segment_sqrt_n = _s.sparse_segment_sqrt_n
cross = _hash.sparse_cross
cross_hashed = _hash.sparse_cross_hashed
from tensorfleet.ops import sparse_ops_census as _more  # noqa: E402
reshape = _more.sparse_reshape
transpose = _more.sparse_transpose
slice = _more.sparse_slice  # noqa: A001
split = _more.sparse_split
reset_shape = _more.sparse_reset_shape
to_indicator = _more.sparse_to_indicator
reduce_max = _more.sparse_reduce_max
softmax = _more.sparse_softmax
maximum = _more.sparse_maximum
minimum = _more.sparse_minimum

__all__ = ["SparseTensor", "SparseTensorValue", "placeholder", "to_dense",
           "sparse_dense_matmul", "matmul", "reduce_sum", "concat", "reorder", "add", "retain",
           "fill_empty_rows", "segment_sum", "segment_mean", "segment_sqrt_n"]
__all__ += ["cross", "cross_hashed"]
__all__ += ["reshape", "transpose", "slice", "split", "reset_shape", "to_indicator",
            "reduce_max", "softmax", "maximum", "minimum"]
