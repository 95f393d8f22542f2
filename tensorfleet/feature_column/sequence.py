"""Sequence feature columns: one value (or several) per time step of each example.

``sequence_categorical_column_with_*`` wrap the categorical columns so that their ids
keep the time axis: a ``[batch, T]`` (or ``[batch, T, k]``) ``SparseTensor`` of ids
becomes, through an ``embedding_column`` or ``indicator_column``, a dense
``[batch, T, d]`` tensor, a step at a time rather than combined over the example.
``sequence_numeric_column`` reads a ``SparseTensor`` of numbers, ``shape`` values per
step. ``sequence_input_layer`` puts the columns side by side (sorted by name, as
TensorFlow orders them) and returns the ``[batch, T, sum of sizes]`` input of an RNN
and the length of each example's sequence; steps beyond an example's length are
zeros (``default_value`` for numeric columns).

A sequence column fed to ``input_layer`` or ``linear_model`` raises a ValueError,
since those combine over the whole example.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.feature_column.base import (CategoricalColumn, FeatureColumn,
                                             FeatureTransformationCache, IdWeightPair,
                                             shape_num_elements)
from tensorfleet.feature_column.categorical import (categorical_column_with_hash_bucket,
    categorical_column_with_identity, categorical_column_with_vocabulary_file,
    categorical_column_with_vocabulary_list)
from tensorfleet.feature_column.dense import (EmbeddingColumn, IndicatorColumn, NumericFields,
    check_numeric_args)
from tensorfleet.framework.graph import Tensor, control_dependencies
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops import array_ops
from tensorfleet.ops.array_concat_ops import concat, stack
from tensorfleet.ops.array_indexing_ops import unsorted_segment_sum, where
from tensorfleet.ops.control_flow_ops import Assert
from tensorfleet.ops.embedding_ops import safe_embedding_lookup_sparse
from tensorfleet.ops.math_ops import add, equal, floordiv, greater_equal, maximum, multiply
from tensorfleet.ops.math_ops_reduce import reduce_all
from tensorfleet.ops.parsing_ops import VarLenFeature
from tensorfleet.ops.segment_ops import unsorted_segment_max
from tensorfleet.ops.sparse_ops import sparse_tensor_to_dense
from tensorfleet.ops.variable_scope import variable_scope
from tensorfleet.feature_column.layers import _scope_vars, _weight_collections


def _sparse_input(value: Any, column: str) -> SparseTensor:
    if not isinstance(value, SparseTensor):
        raise ValueError(f"Column {column}: a sequence feature must be a SparseTensor "
                         f"([batch, T] or [batch, T, k]), got {type(value).__name__}")
    return value


def _rank(sp: SparseTensor, column: str) -> int:
    rank = sp.indices.shape[1] if sp.indices.shape.ndims == 2 else None
    rank = getattr(rank, "value", rank)
    if rank not in (2, 3):
        raise ValueError(f"Column {column}: a sequence feature must have rank 2 or 3, "
                         f"got indices of shape {sp.indices.shape}")
    return int(rank)


def sequence_length(sp: SparseTensor, num_elements: int = 1) -> Tensor:
    """The number of steps of each example: one past its last step with a value,
    counting ``num_elements`` values as one step (0 for an example without values)."""
    batch = sp.dense_shape[0]
    steps = add(sp.indices[:, 1], np.int64(1))
    last = unsorted_segment_max(steps, sp.indices[:, 0], batch)
    # An example without values has no segment: its max is the dtype's lowest.
    last = maximum(last, np.int64(0))
    if num_elements == 1:
        return last
    return floordiv(add(last, np.int64(num_elements - 1)), np.int64(num_elements))


class SequenceCategoricalColumn(CategoricalColumn):
    """A categorical column whose ids keep their time step: ``[batch, T, k]`` ids."""

    def __init__(self, categorical_column: CategoricalColumn):
        self.categorical_column = categorical_column

    @property
    def name(self) -> str:
        return self.categorical_column.name

    @property
    def parse_example_spec(self) -> Dict[str, Any]:
        return self.categorical_column.parse_example_spec

    @property
    def num_buckets(self) -> int:
        return self.categorical_column.num_buckets

    def transform_feature(self, cache: FeatureTransformationCache) -> Any:
        return self.categorical_column.transform_feature(cache)

    def get_sparse_tensors(self, cache: FeatureTransformationCache) -> IdWeightPair:
        raise ValueError(f"Column {self.name} is a sequence column: use its embedding or "
                         f"indicator column in sequence_input_layer, not in input_layer or "
                         f"linear_model, which combine over the whole example")

    def get_sequence_sparse_tensors(self, cache: FeatureTransformationCache) -> IdWeightPair:
        """The ids (and weights) as ``[batch, T, k]`` ``SparseTensor``s: a ``[batch, T]``
        input gets a third dimension of 1, so that steps are never combined."""
        pair = self.categorical_column.get_sparse_tensors(cache)
        return IdWeightPair(_to_rank3(pair.id_tensor, self.name),
                            None if pair.weight_tensor is None
                            else _to_rank3(pair.weight_tensor, self.name))

    def __repr__(self) -> str:
        return f"SequenceCategoricalColumn(categorical_column={self.categorical_column!r})"


def _to_rank3(sp: SparseTensor, column: str) -> SparseTensor:
    if _rank(sp, column) == 3:
        return sp
    zeros = array_ops.zeros_like(sp.indices[:, :1])
    return SparseTensor(concat([sp.indices, zeros], 1), sp.values,
                        concat([sp.dense_shape, np.array([1], np.int64)], 0))


def _per_step(ids: SparseTensor) -> Tuple[SparseTensor, Tensor, Tensor]:
    """``[batch, T, k]`` ids as ``[batch * T, k]`` (one row per step), with batch and T."""
    batch, steps = ids.dense_shape[0], ids.dense_shape[1]
    rows = add(multiply(ids.indices[:, 0], steps), ids.indices[:, 1])
    flat = SparseTensor(stack([rows, ids.indices[:, 2]], axis=1), ids.values,
                        stack([multiply(batch, steps), ids.dense_shape[2]]))
    return flat, batch, steps


def _sequence_dense(column: Any, cache: FeatureTransformationCache,
                    weight_collections: Any, trainable: bool) -> Tuple[Tensor, Tensor]:
    """``(dense [batch, T, size], sequence_length)`` of a sequence dense column."""
    if isinstance(column, SequenceNumericColumn):
        return column.get_sequence_dense_tensor(cache)
    pair = column.categorical_column.get_sequence_sparse_tensors(cache)
    flat, batch, steps = _per_step(pair.id_tensor)
    weights = None if pair.weight_tensor is None else _per_step(pair.weight_tensor)[0]
    length = sequence_length(pair.id_tensor)
    if isinstance(column, EmbeddingColumn):
        table = column._weights(weight_collections, trainable)
        dense = safe_embedding_lookup_sparse(table, flat, sparse_weights=weights,
                                             combiner=column.combiner,
                                             name=f"{column.name}_weights",
                                             max_norm=column.max_norm)
        width = column.dimension
    else:
        nb = column.categorical_column.num_buckets
        values = array_ops.cast(flat.values, _dtypes.int64)
        cells = where(greater_equal(values, 0),
                      add(multiply(flat.indices[:, 0], np.int64(nb)), values),
                      array_ops.fill(array_ops.shape(values), np.int64(-1)))
        counts = array_ops.ones_like(values, dtype=_dtypes.float32) if weights is None \
            else array_ops.cast(weights.values, _dtypes.float32)
        dense = unsorted_segment_sum(counts, cells, multiply(flat.dense_shape[0],
                                                             np.int64(nb)))
        width = nb
    shape = stack([array_ops.cast(batch, _dtypes.int32), array_ops.cast(steps, _dtypes.int32),
                   width])
    return array_ops.reshape(dense, shape), length


class SequenceNumericColumn(NumericFields, FeatureColumn):
    """Numbers per time step, ``shape`` of them a step, from a ``SparseTensor``."""

    @property
    def parse_example_spec(self) -> Dict[str, Any]:
        return {self.key: VarLenFeature(self.dtype)}

    def transform_feature(self, cache: FeatureTransformationCache) -> SparseTensor:
        value = _sparse_input(cache.get(self.key), self.name)
        if self.normalizer_fn is not None:
            value = self.normalizer_fn(value)
        return value

    def get_sequence_dense_tensor(self, cache: FeatureTransformationCache
                                  ) -> Tuple[Tensor, Tensor]:
        """``(dense [batch, T] + shape, sequence_length)``; missing values are
        ``default_value``."""
        sp = cache.get(self)
        rank = _rank(sp, self.name)
        dense = sparse_tensor_to_dense(sp, default_value=array_ops.cast(
            self.default_value, sp.dtype))
        dense = array_ops.cast(dense, _dtypes.float32)
        shape = concat([array_ops.shape(dense)[:1], np.array([-1], np.int32),
                        np.array(self.shape, np.int32)], 0)
        n = shape_num_elements(self.variable_shape, self.name)
        return (array_ops.reshape(dense, shape),
                sequence_length(sp, n if rank == 2 else 1))

    def __repr__(self) -> str:
        return (f"SequenceNumericColumn(key={self.key!r}, shape={self.shape}, "
                f"default_value={self.default_value}, dtype={self.dtype.name})")


def sequence_categorical_column_with_hash_bucket(key: str, hash_bucket_size: int,
                                                 dtype: Any = _dtypes.string
                                                 ) -> SequenceCategoricalColumn:
    """Hashed ids per time step (see ``categorical_column_with_hash_bucket``)."""
    return SequenceCategoricalColumn(
        categorical_column_with_hash_bucket(key, hash_bucket_size, dtype))


def sequence_categorical_column_with_identity(key: str, num_buckets: int,
                                              default_value: Optional[int] = None
                                              ) -> SequenceCategoricalColumn:
    """Integer ids per time step (see ``categorical_column_with_identity``)."""
    return SequenceCategoricalColumn(
        categorical_column_with_identity(key, num_buckets, default_value))


def sequence_categorical_column_with_vocabulary_file(
        key: str, vocabulary_file: str, vocabulary_size: Optional[int] = None,
        num_oov_buckets: int = 0, default_value: Optional[int] = None,
        dtype: Any = _dtypes.string) -> SequenceCategoricalColumn:
    """Vocabulary ids per time step (see ``categorical_column_with_vocabulary_file``)."""
    return SequenceCategoricalColumn(categorical_column_with_vocabulary_file(
        key, vocabulary_file, vocabulary_size, num_oov_buckets, default_value, dtype))


def sequence_categorical_column_with_vocabulary_list(
        key: str, vocabulary_list: Sequence[Any], dtype: Any = None, default_value: int = -1,
        num_oov_buckets: int = 0) -> SequenceCategoricalColumn:
    """Vocabulary ids per time step (see ``categorical_column_with_vocabulary_list``)."""
    return SequenceCategoricalColumn(categorical_column_with_vocabulary_list(
        key, vocabulary_list, dtype, default_value, num_oov_buckets))


def sequence_numeric_column(key: str, shape: Any = (1,), default_value: float = 0.0,
                            dtype: Any = _dtypes.float32,
                            normalizer_fn: Optional[Callable[[Any], Any]] = None
                            ) -> SequenceNumericColumn:
    """A numeric feature per time step, ``shape`` values a step.

    Raises:
      ValueError: a bad key, a shape that is not positive integers or a non-numeric
        dtype.
      TypeError: ``normalizer_fn`` is not callable.
    """
    shape_t, dt = check_numeric_args(key, shape, dtype, normalizer_fn,
                                     "sequence_numeric_column")
    return SequenceNumericColumn(key, shape_t, float(default_value), dt, normalizer_fn)


def _is_sequence_dense(column: Any) -> bool:
    return isinstance(column, SequenceNumericColumn) or (
        isinstance(column, (EmbeddingColumn, IndicatorColumn))
        and isinstance(column.categorical_column, SequenceCategoricalColumn))


def sequence_input_layer(features: Dict[str, Any], feature_columns: Sequence[Any],
                         weight_collections: Optional[Sequence[str]] = None,
                         trainable: bool = True,
                         cols_to_vars: Optional[Dict[Any, List[Any]]] = None
                         ) -> Tuple[Tensor, Tensor]:
    """The sequence columns of ``features`` side by side, step by step.

    Args:
      features: feature key -> ``SparseTensor`` (``[batch, T]`` or ``[batch, T, k]``).
      feature_columns: ``sequence_numeric_column`` s and embedding / indicator columns
        of ``sequence_categorical_column_with_*`` columns.
      weight_collections: extra collections for the embedding variables.
      trainable: whether the embedding variables are trained.
      cols_to_vars: filled with column -> list of its variables when given.

    Returns:
      ``(input_layer, sequence_length)``: float32 ``[batch, T, sum of sizes]`` and int64
      ``[batch]``. Running it fails if the columns disagree on an example's length.

    Raises:
      ValueError: no columns, a column that is not a sequence dense column, or two
        columns of one name.
    """
    cols = list(feature_columns or []) if not isinstance(feature_columns, FeatureColumn) \
        else [feature_columns]
    if not cols:
        raise ValueError("feature_columns must not be empty.")
    for col in cols:
        if not _is_sequence_dense(col):
            raise ValueError(f"All feature_columns must be sequence dense columns (a "
                             f"sequence_numeric_column, or an embedding_column or "
                             f"indicator_column of a sequence_categorical_column_with_*). "
                             f"Given (type {type(col).__name__}): {col}")
    names = [c.name for c in cols]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"Duplicate feature column name found for columns: {dup}")
    cache = FeatureTransformationCache(features)
    collections = _weight_collections(weight_collections)
    outputs, lengths = [], []
    with variable_scope(None, default_name="sequence_input_layer",
                        values=list(features.values())):
        for col in sorted(cols, key=lambda c: c.name):
            with variable_scope(None, default_name=col._var_scope_name) as scope:
                before = _scope_vars(scope.name)
                dense, length = _sequence_dense(col, cache, collections, trainable)
                size = shape_num_elements(col.variable_shape, col.name)
                outputs.append(array_ops.reshape(dense, concat(
                    [array_ops.shape(dense)[:2], np.array([size], np.int32)], 0)))
                lengths.append(length)
                if cols_to_vars is not None:
                    cols_to_vars[col] = [v for v in _scope_vars(scope.name) if v not in before]
        length = lengths[0]
        if len(lengths) > 1:
            checks = [Assert(reduce_all(equal(length, other)),
                             [f"sequence_input_layer: columns {names[0]!r} and others "
                              f"disagree on the sequence lengths", length, other])
                      for other in lengths[1:]]
            with control_dependencies(checks):
                length = array_ops.identity(length)
        out = outputs[0] if len(outputs) == 1 else concat(outputs, -1)
    return out, length


__all__ = ["SequenceCategoricalColumn", "SequenceNumericColumn", "sequence_input_layer",
           "sequence_categorical_column_with_hash_bucket",
           "sequence_categorical_column_with_identity",
           "sequence_categorical_column_with_vocabulary_file",
           "sequence_categorical_column_with_vocabulary_list", "sequence_length",
           "sequence_numeric_column"]
