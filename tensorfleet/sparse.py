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

__all__ = ["SparseTensor", "SparseTensorValue", "placeholder", "to_dense",
           "sparse_dense_matmul", "matmul", "reduce_sum", "concat", "reorder", "add", "retain",
           "fill_empty_rows", "segment_sum", "segment_mean", "segment_sqrt_n"]
__all__ += ["cross", "cross_hashed"]
