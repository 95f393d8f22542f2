"""``tf.io.RaggedFeature``: a feature of ``tf.train.Example`` parsed into a
``RaggedTensor`` (``[batch, (values)]`` from ``parse_example``, a vector from
``parse_single_example``). It is read as a variable-length feature and its rows are the
examples' value lists, so an example without the feature gives an empty row."""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops.ragged_tensor import RaggedTensor


class RaggedFeature(NamedTuple):
    """A ragged feature: the values of ``value_key`` (the feature's own key by default)
    of each example as one row, with row splits of ``row_splits_dtype``.

    Nested row partitions (``partitions``) are not supported: a parse with any raises
    ValueError.
    """

    dtype: Any
    value_key: Optional[str] = None
    partitions: Tuple[Any, ...] = ()
    row_splits_dtype: Any = _dtypes.int32
    validate: bool = False


def ragged_source(key: str, spec: RaggedFeature) -> Tuple[str, Any]:
    """The example feature ``spec`` reads and its dtype.

    Raises:
      ValueError: partitions given, or a row_splits_dtype other than int32/int64.
    """
    if tuple(spec.partitions):
        raise ValueError(f"RaggedFeature {key!r}: partitions are not supported; only the "
                         f"one ragged dimension of the value list per example")
    if _dtypes.as_dtype(spec.row_splits_dtype) not in (_dtypes.int32, _dtypes.int64):
        raise ValueError(f"RaggedFeature {key!r}: row_splits_dtype must be int32 or int64, "
                         f"got {spec.row_splits_dtype!r}")
    source = key if spec.value_key is None else spec.value_key
    if not isinstance(source, str):
        raise TypeError(f"RaggedFeature {key!r}: value_key must be a string, got {source!r}")
    return source, spec.dtype


def ragged_result(sparse: SparseTensor, spec: RaggedFeature, single: bool) -> Any:
    """The parsed variable-length feature as ``spec`` gives it: its values (one example)
    or a RaggedTensor of one row per example."""
    if single:
        return sparse.values
    rows = sparse.indices[:, 0]
    nrows = sparse.dense_shape[0]
    splits_dtype = _dtypes.as_dtype(spec.row_splits_dtype)
    rt = RaggedTensor.from_value_rowids(sparse.values, rows, nrows, validate=False)
    return RaggedTensor.from_row_splits(rt.values, A.cast(rt.row_splits, splits_dtype),
                                        validate=False)


__all__ = ["RaggedFeature", "ragged_result", "ragged_source"]
