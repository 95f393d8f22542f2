"""Categorical feature columns: raw strings or integers to sparse ids.

``categorical_column_with_hash_bucket`` (FarmHash buckets, as TensorFlow),
``..._with_vocabulary_list`` / ``..._with_vocabulary_file`` (a fixed vocabulary,
out-of-vocabulary values hashed into extra buckets), ``..._with_identity``
(integer ids used as they are), ``weighted_categorical_column`` and
``crossed_column`` (hashed feature crosses, TensorFlow's ``SparseCross``).
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.feature_column.base import (CategoricalColumn, FeatureColumn,
                                             FeatureTransformationCache, IdWeightPair,
                                             check_key, check_string_or_int, hashed_ids,
                                             to_sparse_ids)
from tensorfleet.framework.graph import control_dependencies
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops import array_ops
from tensorfleet.ops.categorical_ops import as_string, vocabulary_lookup
from tensorfleet.ops.hash_ops import sparse_cross_hashed, string_to_hash_bucket_fast
from tensorfleet.ops.array_indexing_ops import where
from tensorfleet.ops.control_flow_ops import Assert
from tensorfleet.ops.math_ops import greater_equal, less, logical_and
from tensorfleet.ops.math_ops_reduce import reduce_all
from tensorfleet.ops.parsing_ops import VarLenFeature


def _categorical_dtype(dtype: Any, what: str) -> _dtypes.DType:
    dt = _dtypes.as_dtype(dtype)
    if dt is not _dtypes.string and not dt.is_integer:
        raise ValueError(f"{what}: dtype must be string or integer, got {dt.name}")
    return dt


class _SparseIds(CategoricalColumn):
    """A categorical column reading one raw feature ``key``."""

    def __init__(self, key: str, dtype: _dtypes.DType):
        self.key = key
        self.dtype = dtype

    @property
    def name(self) -> str:
        return self.key

    @property
    def parse_example_spec(self) -> Dict[str, Any]:
        return {self.key: VarLenFeature(self.dtype)}

    def _input(self, cache: FeatureTransformationCache) -> SparseTensor:
        sp = to_sparse_ids(cache.get(self.key))
        check_string_or_int(sp, self.name)
        if (sp.dtype is _dtypes.string) != (self.dtype is _dtypes.string):
            raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: "
                             f"{self.key}, column dtype: {self.dtype.name}, tensor dtype: "
                             f"{sp.dtype.name}")
        return sp


class HashedCategoricalColumn(_SparseIds):
    """Ids ``Fingerprint64(value) % hash_bucket_size`` (integers hashed as decimal strings)."""

    def __init__(self, key: str, hash_bucket_size: int, dtype: _dtypes.DType):
        super().__init__(key, dtype)
        self.hash_bucket_size = hash_bucket_size

    @property
    def num_buckets(self) -> int:
        return self.hash_bucket_size

    def transform_feature(self, cache: FeatureTransformationCache) -> SparseTensor:
        if self.dtype is _dtypes.string:
            # A dense string feature: one fused op, shared by every layer of the graph.
            shared = hashed_ids(cache, self.key, self.hash_bucket_size)
            if shared is not None:
                return shared
        sp = self._input(cache)
        values = sp.values if sp.dtype is _dtypes.string else as_string(sp.values)
        ids = string_to_hash_bucket_fast(values, self.hash_bucket_size, name="lookup")
        return SparseTensor(sp.indices, ids, sp.dense_shape)


class VocabularyCategoricalColumn(_SparseIds):
    """Ids from a fixed vocabulary (a list, or the lines of a file)."""

    def __init__(self, key: str, vocabulary: List[Any], dtype: _dtypes.DType,
                 default_value: int, num_oov_buckets: int):
        super().__init__(key, dtype)
        self.vocabulary = vocabulary
        self.default_value = default_value
        self.num_oov_buckets = num_oov_buckets

    @property
    def num_buckets(self) -> int:
        return len(self.vocabulary) + self.num_oov_buckets

    def transform_feature(self, cache: FeatureTransformationCache) -> SparseTensor:
        sp = self._input(cache)
        ids = vocabulary_lookup(sp.values, self.vocabulary, default_value=self.default_value,
                                num_oov_buckets=self.num_oov_buckets, name="lookup")
        return SparseTensor(sp.indices, ids, sp.dense_shape)


class IdentityCategoricalColumn(_SparseIds):
    """Integer ids used as they are; out of ``[0, num_buckets)`` fails, or becomes
    ``default_value`` when one is given."""

    def __init__(self, key: str, num_buckets: int, default_value: Optional[int]):
        super().__init__(key, _dtypes.int64)
        self._num_buckets = num_buckets
        self.default_value = default_value

    @property
    def num_buckets(self) -> int:
        return self._num_buckets

    def transform_feature(self, cache: FeatureTransformationCache) -> SparseTensor:
        sp = self._input(cache)
        ids = array_ops.cast(sp.values, _dtypes.int64)
        ok = logical_and(greater_equal(ids, 0), less(ids, self._num_buckets))
        if self.default_value is None:
            check = Assert(reduce_all(ok), [f"Column {self.name}: ids must be in "
                                            f"[0, {self._num_buckets})", ids])
            with control_dependencies([check]):
                ids = array_ops.identity(ids)
        else:
            ids = _where(ok, ids, self.default_value)
        return SparseTensor(sp.indices, ids, sp.dense_shape)


def _where(cond: Any, x: Any, default: int) -> Any:
    return where(cond, x, array_ops.fill(array_ops.shape(x), array_ops.constant(
        default, dtype=_dtypes.int64)))


class WeightedCategoricalColumn(CategoricalColumn):
    """A categorical column whose ids carry the weights of feature ``weight_feature_key``."""

    def __init__(self, categorical_column: CategoricalColumn, weight_feature_key: str,
                 dtype: _dtypes.DType):
        self.categorical_column = categorical_column
        self.weight_feature_key = weight_feature_key
        self.dtype = dtype

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def num_buckets(self) -> int:
        return self.categorical_column.num_buckets

    @property
    def parse_example_spec(self) -> Dict[str, Any]:
        spec = dict(self.categorical_column.parse_example_spec)
        if self.weight_feature_key in spec:
            raise ValueError(f"Parse config {spec[self.weight_feature_key]} already exists "
                             f"for {self.weight_feature_key}.")
        spec[self.weight_feature_key] = VarLenFeature(self.dtype)
        return spec

    def transform_feature(self, cache: FeatureTransformationCache) -> IdWeightPair:
        ids_pair = self.categorical_column.get_sparse_tensors(cache)
        if ids_pair.weight_tensor is not None:
            raise ValueError(f"Column {self.name}: the categorical column already has weights")
        weights = cache.get(self.weight_feature_key)
        if not isinstance(weights, SparseTensor):
            weights = to_sparse_ids(weights, ignore_value=0.0)
        if not weights.dtype.is_floating:
            weights = SparseTensor(weights.indices, array_ops.cast(weights.values,
                                                                   _dtypes.float32),
                                   weights.dense_shape)
        return IdWeightPair(ids_pair.id_tensor, weights)

    def get_sparse_tensors(self, cache: FeatureTransformationCache) -> IdWeightPair:
        return cache.get(self)


class CrossedColumn(CategoricalColumn):
    """Hashed crosses of string features and categorical columns."""

    def __init__(self, keys: Sequence[Any], hash_bucket_size: int, hash_key: Optional[int]):
        self.keys = tuple(keys)
        self.hash_bucket_size = hash_bucket_size
        self.hash_key = hash_key

    def _leaves(self) -> List[Any]:
        out: List[Any] = []
        for k in self.keys:
            out.extend(k._leaves() if isinstance(k, CrossedColumn) else [k])
        return out

    @property
    def name(self) -> str:
        return "_X_".join(sorted(k if isinstance(k, str) else k.name for k in self._leaves()))

    @property
    def num_buckets(self) -> int:
        return self.hash_bucket_size

    @property
    def parse_example_spec(self) -> Dict[str, Any]:
        spec: Dict[str, Any] = {}
        for k in self.keys:
            spec.update(k.parse_example_spec if isinstance(k, FeatureColumn)
                        else {k: VarLenFeature(_dtypes.string)})
        return spec

    def transform_feature(self, cache: FeatureTransformationCache) -> SparseTensor:
        inputs = []
        for k in self._leaves():
            if isinstance(k, str):
                # A raw feature is crossed as it is: TensorFlow keeps the "" of a dense one.
                inputs.append(cache.get(k))
                continue
            pair = k.get_sparse_tensors(cache)
            if pair.weight_tensor is not None:
                raise ValueError(f"crossed_column does not support weight_tensor, but the "
                                 f"given column populates weight_tensor. Given column: "
                                 f"{k.name}")
            inputs.append(pair.id_tensor)
        return sparse_cross_hashed(inputs, num_buckets=self.hash_bucket_size,
                                   hash_key=self.hash_key)


def categorical_column_with_hash_bucket(key: str, hash_bucket_size: int,
                                        dtype: Any = _dtypes.string) -> HashedCategoricalColumn:
    """Ids ``Fingerprint64(value) % hash_bucket_size`` of feature ``key``.

    Raises:
      ValueError: ``hash_bucket_size`` < 1, or a dtype that is neither string nor integer.
    """
    check_key(key, "categorical_column_with_hash_bucket")
    if hash_bucket_size is None or int(hash_bucket_size) < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: "
                         f"{hash_bucket_size}, key: {key}")
    return HashedCategoricalColumn(key, int(hash_bucket_size),
                                   _categorical_dtype(dtype, "categorical_column_with_hash_bucket"))


def _vocab_column(key: str, vocab: List[Any], dtype: _dtypes.DType, default_value: Any,
                  num_oov_buckets: int, what: str) -> VocabularyCategoricalColumn:
    if num_oov_buckets is None or int(num_oov_buckets) < 0:
        raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    if default_value is not None and int(default_value) != -1 and num_oov_buckets:
        raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
    if not vocab:
        raise ValueError(f"{what}: vocabulary of {key} must not be empty")
    if len(set(vocab)) != len(vocab):
        raise ValueError(f"Duplicate keys in vocabulary of {key}: {vocab}")
    return VocabularyCategoricalColumn(key, vocab, dtype, -1 if default_value is None
                                       else int(default_value), int(num_oov_buckets))


def categorical_column_with_vocabulary_list(key: str, vocabulary_list: Sequence[Any],
                                            dtype: Any = None, default_value: int = -1,
                                            num_oov_buckets: int = 0
                                            ) -> VocabularyCategoricalColumn:
    """Ids: the index of the value in ``vocabulary_list``; unknown values get
    ``default_value`` (-1, dropped by embeddings and indicators) or one of
    ``num_oov_buckets`` hashed buckets after the vocabulary.
    """
    check_key(key, "categorical_column_with_vocabulary_list")
    vocab = list(vocabulary_list or [])
    if dtype is None:
        dtype = _dtypes.string if vocab and isinstance(vocab[0], (str, bytes)) else _dtypes.int64
    dt = _categorical_dtype(dtype, "categorical_column_with_vocabulary_list")
    if vocab and (dt is _dtypes.string) != isinstance(vocab[0], (str, bytes)):
        raise ValueError(f"dtype {dt.name} is not compatible with vocabulary_list "
                         f"{vocab[:5]} of {key}")
    return _vocab_column(key, vocab, dt, default_value, num_oov_buckets,
                         "categorical_column_with_vocabulary_list")


def categorical_column_with_vocabulary_file(key: str, vocabulary_file: str,
                                            vocabulary_size: Optional[int] = None,
                                            num_oov_buckets: int = 0,
                                            default_value: Optional[int] = None,
                                            dtype: Any = _dtypes.string
                                            ) -> VocabularyCategoricalColumn:
    """As ``categorical_column_with_vocabulary_list``, the vocabulary being the lines of
    ``vocabulary_file`` (the first ``vocabulary_size`` of them when given).

    The file is read when the column is created, and the vocabulary travels inside
    the graph, so tasks on other machines need no copy of the file.
    """
    check_key(key, "categorical_column_with_vocabulary_file")
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if not os.path.isfile(vocabulary_file):
        raise errors.NotFoundError(None, None, f"vocabulary_file {vocabulary_file} of {key} "
                                               f"does not exist")
    dt = _categorical_dtype(dtype, "categorical_column_with_vocabulary_file")
    with open(vocabulary_file, "rb") as f:
        lines = f.read().splitlines()
    if vocabulary_size is not None:
        if int(vocabulary_size) < 1:
            raise ValueError(f"Invalid vocabulary_size {vocabulary_size} for {key}.")
        if int(vocabulary_size) > len(lines):
            raise ValueError(f"vocabulary_size {vocabulary_size} of {key} is larger than the "
                             f"{len(lines)} lines of {vocabulary_file}")
        lines = lines[:int(vocabulary_size)]
    vocab: List[Any] = [ln.decode("utf-8") for ln in lines] if dt is _dtypes.string else \
        [int(ln) for ln in lines]
    return _vocab_column(key, vocab, dt, default_value, num_oov_buckets,
                         "categorical_column_with_vocabulary_file")


def categorical_column_with_identity(key: str, num_buckets: int,
                                     default_value: Optional[int] = None
                                     ) -> IdentityCategoricalColumn:
    """Integer feature values used as ids in ``[0, num_buckets)``; others fail the step,
    or become ``default_value`` when it is given."""
    check_key(key, "categorical_column_with_identity")
    if num_buckets is None or int(num_buckets) < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and not 0 <= int(default_value) < int(num_buckets):
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), "
                         f"column_name {key}")
    return IdentityCategoricalColumn(key, int(num_buckets), default_value)


def weighted_categorical_column(categorical_column: CategoricalColumn, weight_feature_key: str,
                                dtype: Any = _dtypes.float32) -> WeightedCategoricalColumn:
    """``categorical_column`` whose ids are weighted by feature ``weight_feature_key``
    (same indices as the ids)."""
    if not isinstance(categorical_column, CategoricalColumn):
        raise ValueError(f"categorical_column must be a categorical column, got "
                         f"{categorical_column!r}")
    check_key(weight_feature_key, "weighted_categorical_column")
    dt = _dtypes.as_dtype(dtype)
    if not dt.is_floating:
        raise ValueError(f"dtype {dt.name} is not convertible to float.")
    return WeightedCategoricalColumn(categorical_column, weight_feature_key, dt)


def crossed_column(keys: Sequence[Any], hash_bucket_size: int,
                   hash_key: Optional[int] = None) -> CrossedColumn:
    """Hashed crosses of ``keys`` (feature names, read as strings, or categorical
    columns other than hashed ones, whose ids are crossed).

    Raises:
      ValueError: fewer than two keys, ``hash_bucket_size`` < 1, or an unsupported key.
    """
    if not hash_bucket_size or int(hash_bucket_size) < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for k in keys:
        if not isinstance(k, (str, CategoricalColumn)):
            raise ValueError(f"Unsupported key type. All keys must be either string, or "
                             f"categorical column except HashedCategoricalColumn. Given: {k}")
        if isinstance(k, HashedCategoricalColumn):
            raise ValueError(f"categorical_column_with_hash_bucket is not supported for "
                             f"crossing. Hashing before crossing will increase probability "
                             f"of collision. Instead, use the feature name as a string. "
                             f"Given: {k}")
    return CrossedColumn(keys, int(hash_bucket_size), hash_key)


__all__ = ["categorical_column_with_hash_bucket", "categorical_column_with_vocabulary_list",
           "categorical_column_with_vocabulary_file", "categorical_column_with_identity",
           "weighted_categorical_column", "crossed_column"]
