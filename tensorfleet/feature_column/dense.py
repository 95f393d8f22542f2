"""Dense feature columns: numbers, buckets, embeddings and indicators.

``numeric_column`` (a float feature of a fixed shape), ``bucketized_column``
(one-hot buckets of a numeric column; also categorical), ``embedding_column``
and ``shared_embedding_columns`` (a learned ``[num_buckets, dimension]``
variable combined per example with ``safe_embedding_lookup_sparse``; partitioned
across parameter servers when the enclosing variable scope has a partitioner)
and ``indicator_column`` (multi-hot counts or weights of a categorical column).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.feature_column.base import (CategoricalColumn, DenseColumn,
                                             FeatureTransformationCache, IdWeightPair,
                                             check_key, shape_num_elements)
from tensorfleet.framework.graph import Tensor, get_default_graph
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops
from tensorfleet.ops.array_concat_ops import stack
from tensorfleet.ops.array_indexing_ops import (one_hot, range as _range, tile, unsorted_segment_sum,
                                            where)
from tensorfleet.ops.categorical_ops import bucketize
from tensorfleet.ops.embedding_ops import safe_embedding_lookup_sparse
from tensorfleet.ops.sparse_lookup_ops import LookupParts, fused_lookup_parts
from tensorfleet.ops.init_ops import TruncatedNormal
from tensorfleet.ops.math_ops import add, greater_equal, multiply
from tensorfleet.ops.parsing_ops import FixedLenFeature
from tensorfleet.ops.variable_scope import get_variable

_COMBINERS = ("mean", "sqrtn", "sum")


class NumericFields:
    """What a numeric column is made of: a feature ``key``, the ``shape`` of one value,
    its ``default_value``, ``dtype`` and ``normalizer_fn`` (shared by the per-example and
    the per-time-step numeric columns)."""

    def __init__(self, key: str, shape: Tuple[int, ...], default_value: Any,
                 dtype: _dtypes.DType, normalizer_fn: Optional[Callable[[Tensor], Tensor]]):
        self.key = key
        self.shape = shape
        self.default_value = default_value
        self.dtype = dtype
        self.normalizer_fn = normalizer_fn

    @property
    def name(self) -> str:
        return self.key

    @property
    def variable_shape(self) -> TensorShape:
        return TensorShape(list(self.shape))


class NumericColumn(NumericFields, DenseColumn):
    """A real-valued feature of a fixed shape (``normalizer_fn`` applied, then float32)."""

    @property
    def parse_example_spec(self) -> Dict[str, Any]:
        return {self.key: FixedLenFeature(self.shape, self.dtype, self.default_value)}

    def transform_feature(self, cache: FeatureTransformationCache) -> Tensor:
        value = cache.get(self.key)
        if isinstance(value, SparseTensor):
            raise ValueError(f"The corresponding Tensor of numerical column must be a Tensor. "
                             f"SparseTensor is not supported. key: {self.key}")
        if self.normalizer_fn is not None:
            value = self.normalizer_fn(value)
        if not (value.dtype.is_floating or value.dtype.is_integer):
            raise ValueError(f"Column {self.key}: a numeric feature must be a number, got "
                             f"{value.dtype.name}")
        return value if value.dtype is _dtypes.float32 else array_ops.cast(value,
                                                                           _dtypes.float32)

    def get_dense_tensor(self, cache: FeatureTransformationCache,
                         weight_collections: Any = None, trainable: bool = True) -> Tensor:
        return cache.get(self)


class BucketizedColumn(DenseColumn, CategoricalColumn):
    """The bucket of each element of a numeric column: one-hot when dense, ids
    ``bucket + element * (len(boundaries) + 1)`` when categorical."""

    def __init__(self, source_column: NumericColumn, boundaries: Tuple[float, ...]):
        self.source_column = source_column
        self.boundaries = boundaries

    @property
    def name(self) -> str:
        return f"{self.source_column.name}_bucketized"

    @property
    def parse_example_spec(self) -> Dict[str, Any]:
        return self.source_column.parse_example_spec

    @property
    def _buckets_per_element(self) -> int:
        return len(self.boundaries) + 1

    @property
    def variable_shape(self) -> TensorShape:
        return TensorShape(list(self.source_column.shape) + [self._buckets_per_element])

    @property
    def num_buckets(self) -> int:
        return shape_num_elements(self.source_column.variable_shape, self.name) * \
            self._buckets_per_element

    def transform_feature(self, cache: FeatureTransformationCache) -> Tensor:
        return bucketize(cache.get(self.source_column), self.boundaries)

    def get_dense_tensor(self, cache: FeatureTransformationCache,
                         weight_collections: Any = None, trainable: bool = True) -> Tensor:
        return one_hot(array_ops.cast(cache.get(self), _dtypes.int64),
                       depth=self._buckets_per_element, on_value=1.0, off_value=0.0)

    def get_sparse_tensors(self, cache: FeatureTransformationCache) -> IdWeightPair:
        buckets = cache.get(self)
        n = shape_num_elements(self.source_column.variable_shape, self.name)
        batch = array_ops.shape(buckets, out_type=_dtypes.int64)[0]
        rows = array_ops.reshape(tile(array_ops.expand_dims(
            _range(0, batch, dtype=_dtypes.int64), 1), [1, n]), [-1])
        cols = tile(_range(0, n, dtype=_dtypes.int64), array_ops.expand_dims(
            array_ops.cast(batch, _dtypes.int32), 0))
        ids = add(array_ops.cast(array_ops.reshape(buckets, [-1]), _dtypes.int64),
                  multiply(cols, np.int64(self._buckets_per_element)))
        dense_shape = stack([batch, np.int64(n)])
        return IdWeightPair(SparseTensor(stack([rows, cols], axis=1), ids, dense_shape), None)


class EmbeddingColumn(DenseColumn):
    """A learned ``dimension``-vector per id of a categorical column, combined per example."""

    def __init__(self, categorical_column: CategoricalColumn, dimension: int, combiner: str,
                 initializer: Any, max_norm: Any, trainable: bool):
        self.categorical_column = categorical_column
        self.dimension = dimension
        self.combiner = combiner
        self.initializer = initializer
        self.max_norm = max_norm
        self.trainable = trainable

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_embedding"

    @property
    def parse_example_spec(self) -> Dict[str, Any]:
        return self.categorical_column.parse_example_spec

    @property
    def variable_shape(self) -> TensorShape:
        return TensorShape([self.dimension])

    def transform_feature(self, cache: FeatureTransformationCache) -> IdWeightPair:
        return self.categorical_column.get_sparse_tensors(cache)

    def _weights(self, weight_collections: Any, trainable: bool) -> Any:
        return get_variable("embedding_weights",
                            shape=[self.categorical_column.num_buckets, self.dimension],
                            dtype=_dtypes.float32, initializer=self.initializer,
                            trainable=self.trainable and trainable,
                            collections=weight_collections)

    def get_dense_tensor(self, cache: FeatureTransformationCache,
                         weight_collections: Any = None, trainable: bool = True) -> Tensor:
        out = self.get_lookup_parts(cache, weight_collections, trainable)
        return out.combine() if isinstance(out, LookupParts) else out

    def get_lookup_parts(self, cache: FeatureTransformationCache, weight_collections: Any = None,
                         trainable: bool = True) -> Any:
        """The fused lookup up to its combine (``LookupParts``), for a layer to combine
        with other columns' in one op; or the finished dense tensor when the fused
        form does not apply (weighted ids, ids that are not a rank-2 ``SparseTensor``)."""
        pair = cache.get(self)
        weights = self._weights(weight_collections, trainable)
        if pair.weight_tensor is None:
            parts = fused_lookup_parts(weights, pair.id_tensor, combiner=self.combiner,
                                       name=f"{self.name}_weights", max_norm=self.max_norm)
            if parts is not None:
                return parts
        return safe_embedding_lookup_sparse(
            weights, pair.id_tensor,
            sparse_weights=pair.weight_tensor, combiner=self.combiner,
            name=f"{self.name}_weights", max_norm=self.max_norm)


class SharedEmbeddingColumn(EmbeddingColumn):
    """An embedding column whose variable is shared with the other columns of its
    collection (the first one built creates it)."""

    def __init__(self, categorical_column: CategoricalColumn, dimension: int, combiner: str,
                 initializer: Any, max_norm: Any, trainable: bool, collection_name: str):
        super().__init__(categorical_column, dimension, combiner, initializer, max_norm,
                         trainable)
        self.shared_embedding_collection_name = collection_name

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def _var_scope_name(self) -> str:
        return self.shared_embedding_collection_name

    def _weights(self, weight_collections: Any, trainable: bool) -> Any:
        g = get_default_graph()
        existing = g.get_collection(self.shared_embedding_collection_name)
        if existing:
            weights = existing[0]
            shape = TensorShape(list(weights.shape))
            want = [self.categorical_column.num_buckets, self.dimension]
            if shape.as_list() != want:
                raise ValueError(f"Shared embedding {self.shared_embedding_collection_name} "
                                 f"has shape {shape}, column {self.name} needs {want}")
            return weights
        weights = super()._weights(weight_collections, trainable)
        g.add_to_collection(self.shared_embedding_collection_name, weights)
        return weights


class IndicatorColumn(DenseColumn):
    """A multi-hot ``[batch, num_buckets]`` of a categorical column: how many times each
    id occurs in the example (or the sum of its weights); ids < 0 are ignored."""

    def __init__(self, categorical_column: CategoricalColumn):
        self.categorical_column = categorical_column

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_indicator"

    @property
    def parse_example_spec(self) -> Dict[str, Any]:
        return self.categorical_column.parse_example_spec

    @property
    def variable_shape(self) -> TensorShape:
        return TensorShape([self.categorical_column.num_buckets])

    def transform_feature(self, cache: FeatureTransformationCache) -> Tensor:
        pair = self.categorical_column.get_sparse_tensors(cache)
        ids = pair.id_tensor
        nb = self.categorical_column.num_buckets
        values = array_ops.cast(ids.values, _dtypes.int64)
        rows = array_ops.cast(ids.indices[:, 0], _dtypes.int64)
        flat = where(greater_equal(values, 0), add(multiply(rows, np.int64(nb)), values),
                     array_ops.fill(array_ops.shape(values), np.int64(-1)))
        weights = array_ops.ones_like(values, dtype=_dtypes.float32) \
            if pair.weight_tensor is None else \
            array_ops.cast(pair.weight_tensor.values, _dtypes.float32)
        batch = ids.dense_shape[0]
        dense = unsorted_segment_sum(weights, flat, multiply(batch, np.int64(nb)))
        return array_ops.reshape(dense, stack([array_ops.cast(batch, _dtypes.int32), nb]))

    def get_dense_tensor(self, cache: FeatureTransformationCache,
                         weight_collections: Any = None, trainable: bool = True) -> Tensor:
        return cache.get(self)


def check_numeric_args(key: str, shape: Any, dtype: Any, normalizer_fn: Any,
                       what: str) -> Tuple[Tuple[int, ...], _dtypes.DType]:
    """The shape (a tuple of positive ints) and dtype of a numeric column, checked.

    Raises:
      ValueError: a bad key or shape, or a non-numeric dtype.
      TypeError: ``normalizer_fn`` is not callable.
    """
    check_key(key, what)
    shape_t = tuple(int(d) for d in ([shape] if isinstance(shape, int) else shape))
    if not shape_t or any(d < 1 for d in shape_t):
        raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, key: {key}")
    dt = _dtypes.as_dtype(dtype)
    if not (dt.is_floating or dt.is_integer):
        raise ValueError(f"dtype must be convertible to float. dtype: {dt.name}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return shape_t, dt


def numeric_column(key: str, shape: Any = (1,), default_value: Any = None,
                   dtype: Any = _dtypes.float32,
                   normalizer_fn: Optional[Callable[[Tensor], Tensor]] = None) -> NumericColumn:
    """A real-valued feature ``key`` of per-example ``shape``.

    Raises:
      ValueError: a bad shape, a non-numeric dtype or a ``default_value`` that does
        not fit the shape.
      TypeError: ``normalizer_fn`` is not callable.
    """
    shape_t, dt = check_numeric_args(key, shape, dtype, normalizer_fn, "numeric_column")
    if default_value is not None:
        arr = np.asarray(default_value, dtype=dt.np)
        n = int(np.prod(shape_t))
        if arr.size == 1 and arr.ndim == 0:
            default_value = tuple([arr.item()] * n) if n > 1 else (arr.item(),)
        elif arr.size != n:
            raise ValueError(f"The shape of default_value must be equal to given shape. "
                             f"default_value: {default_value}, shape: {shape_t}, key: {key}")
        else:
            default_value = tuple(arr.reshape(-1).tolist())
    return NumericColumn(key, shape_t, default_value, dt, normalizer_fn)


def bucketized_column(source_column: NumericColumn,
                      boundaries: Sequence[float]) -> BucketizedColumn:
    """Buckets of ``source_column`` between sorted ``boundaries`` (a value equal to a
    boundary goes to the bucket above it)."""
    if not isinstance(source_column, NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). "
                         f"Given: {source_column}")
    b = [float(x) for x in boundaries or []]
    if not b:
        raise ValueError("boundaries must be a sorted list.")
    if any(b[i] >= b[i + 1] for i in range(len(b) - 1)):
        raise ValueError(f"boundaries must be a sorted list. boundaries: {list(boundaries)}")
    return BucketizedColumn(source_column, tuple(b))


def _embedding_args(dimension: int, combiner: str, initializer: Any,
                    ckpt_to_load_from: Optional[str], tensor_name_in_ckpt: Optional[str]
                    ) -> Any:
    if dimension is None or int(dimension) < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of {list(_COMBINERS)}, got {combiner!r}")
    if ckpt_to_load_from is not None or tensor_name_in_ckpt is not None:
        raise ValueError("ckpt_to_load_from / tensor_name_in_ckpt are not supported: "
                         "initialize the embedding with an initializer, or restore it with "
                         "a tf.train.Saver after building the model")
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified. Embedding of column "
                         f"got {initializer!r}")
    return initializer if initializer is not None else \
        TruncatedNormal(mean=0.0, stddev=1.0 / math.sqrt(int(dimension)))


def embedding_column(categorical_column: CategoricalColumn, dimension: int,
                     combiner: str = "mean", initializer: Any = None,
                     ckpt_to_load_from: Optional[str] = None,
                     tensor_name_in_ckpt: Optional[str] = None, max_norm: Any = None,
                     trainable: bool = True) -> EmbeddingColumn:
    """A learned embedding of ``categorical_column`` (variable ``embedding_weights`` of
    shape ``[num_buckets, dimension]``, truncated-normal with stddev
    ``1/sqrt(dimension)`` by default).

    Raises:
      ValueError: a bad dimension or combiner, or ``ckpt_to_load_from`` (not supported).
    """
    if not isinstance(categorical_column, CategoricalColumn):
        raise ValueError(f"categorical_column must be a categorical column, got "
                         f"{categorical_column!r}")
    init = _embedding_args(dimension, combiner, initializer, ckpt_to_load_from,
                           tensor_name_in_ckpt)
    return EmbeddingColumn(categorical_column, int(dimension), combiner, init, max_norm,
                           trainable)


def shared_embedding_columns(categorical_columns: Sequence[CategoricalColumn], dimension: int,
                             combiner: str = "mean", initializer: Any = None,
                             shared_embedding_collection_name: Optional[str] = None,
                             ckpt_to_load_from: Optional[str] = None,
                             tensor_name_in_ckpt: Optional[str] = None, max_norm: Any = None,
                             trainable: bool = True) -> List[SharedEmbeddingColumn]:
    """Embedding columns that share one variable (the columns need equal ``num_buckets``).

    The variable's scope is ``shared_embedding_collection_name``, by default the
    sorted column names joined by ``_`` plus ``_shared_embedding``.
    """
    cols = list(categorical_columns or [])
    if not cols:
        raise ValueError("categorical_columns must not be empty")
    for c in cols:
        if not isinstance(c, CategoricalColumn):
            raise ValueError(f"All categorical_columns must be categorical columns, got {c!r}")
    if len({c.num_buckets for c in cols}) != 1:
        raise ValueError(f"To use shared_embedding_column, all categorical_columns must have "
                         f"the same number of buckets. Given column: "
                         f"{[(c.name, c.num_buckets) for c in cols]}")
    init = _embedding_args(dimension, combiner, initializer, ckpt_to_load_from,
                           tensor_name_in_ckpt)
    name = shared_embedding_collection_name or \
        "_".join(sorted(c.name for c in cols)) + "_shared_embedding"
    return [SharedEmbeddingColumn(c, int(dimension), combiner, init, max_norm, trainable, name)
            for c in cols]


def indicator_column(categorical_column: CategoricalColumn) -> IndicatorColumn:
    """A multi-hot dense representation of ``categorical_column``."""
    if not isinstance(categorical_column, CategoricalColumn):
        raise ValueError(f"categorical_column must be a categorical column, got "
                         f"{categorical_column!r}")
    return IndicatorColumn(categorical_column)


__all__ = ["numeric_column", "bucketized_column", "embedding_column",
           "shared_embedding_columns", "indicator_column"]
