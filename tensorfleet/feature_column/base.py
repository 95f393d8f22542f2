"""The base classes of feature columns and the per-call cache of their transformations.

A feature column names one input feature (or a transformation of others) and
knows how to turn the raw features dict into either a dense ``[batch, n]``
tensor (``DenseColumn``) or sparse ids with optional weights
(``CategoricalColumn``). ``FeatureTransformationCache`` builds each
transformation once per ``input_layer`` / ``linear_model`` call, so a column
used twice (in a cross and alone) costs one set of ops; the ids of hashed string
columns are kept on the graph, so the linear and the deep part share them.
"""

from __future__ import annotations

import collections
import logging
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops
from tensorfleet.ops.categorical_ops import dense_to_sparse_drop
from tensorfleet.ops.sparse_lookup_ops import string_to_hash_bucket_sparse

logger = logging.getLogger(__name__)

IdWeightPair = collections.namedtuple("IdWeightPair", ["id_tensor", "weight_tensor"])
IdWeightPair.__doc__ = "Sparse ids of a categorical column and their weights (or None)."


class FeatureColumn:
    """A named feature of the model input; subclasses say how it is built."""

    @property
    def name(self) -> str:
        """The column's name: the variable scope of its weights, the sort key of layers."""
        raise TypeError(f"{type(self).__name__} must define name")

    @property
    def parse_example_spec(self) -> Dict[str, Any]:
        """``{feature key: FixedLenFeature | VarLenFeature}`` needed to parse this column."""
        raise TypeError(f"{type(self).__name__} must define parse_example_spec")

    def transform_feature(self, cache: "FeatureTransformationCache") -> Any:
        """The column's transformed value, read from ``cache`` (built once per call)."""
        raise TypeError(f"{type(self).__name__} must define transform_feature")

    # TensorFlow's underscore spellings, used by code written against its columns.
    @property
    def _parse_example_spec(self) -> Dict[str, Any]:
        return self.parse_example_spec

    @property
    def _var_scope_name(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class DenseColumn(FeatureColumn):
    """A column that gives a dense float tensor ``[batch] + variable_shape``."""

    @property
    def variable_shape(self) -> TensorShape:
        """The shape of one example's dense value."""
        raise TypeError(f"{type(self).__name__} must define variable_shape")

    def get_dense_tensor(self, cache: "FeatureTransformationCache",
                         weight_collections: Any = None, trainable: bool = True) -> Tensor:
        """The dense value, creating any variables (embeddings) in the current scope."""
        raise TypeError(f"{type(self).__name__} must define get_dense_tensor")


class CategoricalColumn(FeatureColumn):
    """A column that gives sparse int64 ids in ``[0, num_buckets)`` (and weights)."""

    @property
    def num_buckets(self) -> int:
        """How many distinct ids the column can produce."""
        raise TypeError(f"{type(self).__name__} must define num_buckets")

    def get_sparse_tensors(self, cache: "FeatureTransformationCache") -> IdWeightPair:
        """The ids as a ``[batch, k]`` ``SparseTensor`` and their weights (or None)."""
        return IdWeightPair(cache.get(self), None)


class FeatureTransformationCache:
    """The raw features of one call and the columns' transformations built from them.

    A rank-1 raw feature is taken as one value per example (``[batch, 1]``), as
    TensorFlow does.
    """

    def __init__(self, features: Dict[str, Any]):
        if not isinstance(features, dict):
            raise TypeError(f"features must be a dict of feature key to Tensor or "
                            f"SparseTensor, got {type(features).__name__}")
        self._features = dict(features)
        self._cache: Dict[Any, Any] = {}

    def get(self, key: Union[str, FeatureColumn]) -> Any:
        """The raw feature ``key`` (a string) or the transformation of a column."""
        if key in self._cache:
            return self._cache[key]
        if isinstance(key, str):
            value = self._raw(key)
        elif isinstance(key, FeatureColumn):
            value = key.transform_feature(self)
            if value is None:
                raise ValueError(f"Column {key.name} is not supported in this context.")
        else:
            raise TypeError(f"Feature key must be a string or a feature column, got {key!r}")
        self._cache[key] = value
        return value

    def raw_feature(self, key: str) -> Any:
        """The feature ``key`` as given (a ``Tensor`` not yet expanded to ``[batch, 1]``,
        or a ``SparseTensor``), or None when the features have no such key."""
        if key not in self._features:
            return None
        value = self._features[key]
        if isinstance(value, (SparseTensor, SparseTensorValue)):
            return value
        if not isinstance(value, Tensor):
            # Converted once, so that every use reads the same tensor.
            value = self._features[key] = convert_to_tensor(value)
        return value

    def _raw(self, key: str) -> Any:
        if key not in self._features:
            raise ValueError(f"The feature {key!r} is not in features dictionary "
                             f"(it has {sorted(self._features)}).")
        value = self._features[key]
        if isinstance(value, SparseTensorValue):
            return SparseTensor.from_value(value)
        if isinstance(value, SparseTensor):
            return value
        t = convert_to_tensor(value)
        if t.shape.ndims == 0:
            raise ValueError(f"Feature {key!r} ({t.name}) is a scalar; it needs a batch "
                             f"dimension")
        if t.shape.ndims == 1:
            t = array_ops.expand_dims(t, -1)
        return t


# -- hashed ids built once per graph ---------------------------------------------------------
# A model lists a categorical column in its linear part and, through an embedding, in
# its deep part; each part builds its own FeatureTransformationCache. The ids of a
# hashed column over a dense string feature depend only on the raw tensor and the
# bucket count, so they are kept on the graph under that key and every later use reads
# them; ``prefetch_hashed_ids`` builds those of all such columns of a layer with one
# ``StringToHashBucketSparse`` op (one kernel call per step instead of two per column).

_STORE = "_feature_column_hashed_ids"


def _store(graph: Any) -> Dict[Tuple[Tensor, int], SparseTensor]:
    return graph.__dict__.setdefault(_STORE, {})


def dense_string_feature(cache: FeatureTransformationCache, key: str) -> Optional[Tensor]:
    """The raw feature ``key`` when it is a dense string tensor of rank >= 1, else None."""
    raw = cache.raw_feature(key)
    if isinstance(raw, Tensor) and raw.dtype is _dtypes.string and \
            raw.shape.ndims is not None and raw.shape.ndims >= 1:
        return raw
    return None


def _build(store: Dict[Tuple[Tensor, int], SparseTensor],
           pending: List[Tuple[Tensor, int]]) -> None:
    ids = string_to_hash_bucket_sparse([raw for raw, _ in pending], [nb for _, nb in pending],
                                       name="hashed_ids")
    for pair, sp in zip(pending, ids):
        store[pair] = sp


def hashed_ids(cache: FeatureTransformationCache, key: str,
               num_buckets: int) -> Optional[SparseTensor]:
    """The bucket ids of dense string feature ``key`` (the graph's copy when one was
    built), or None when the feature is not a dense string tensor."""
    raw = dense_string_feature(cache, key)
    if raw is None:
        return None
    store = _store(raw.graph)
    pair = (raw, int(num_buckets))
    if pair not in store:
        _build(store, [pair])
    return store[pair]


def prefetch_hashed_ids(cache: FeatureTransformationCache,
                        keys: Sequence[Tuple[str, int]]) -> None:
    """Builds, in one op, the ids of every ``(feature key, num_buckets)`` whose feature
    is a dense string tensor and whose ids the graph does not hold yet."""
    pending: List[Tuple[Tensor, int]] = []
    store = None
    for key, nb in keys:
        raw = dense_string_feature(cache, key)
        if raw is None:
            continue
        store = _store(raw.graph) if store is None else store
        pair = (raw, int(nb))
        if pair not in store and pair not in pending:
            pending.append(pair)
    if pending and store is not None:
        logger.debug("hashing %d categorical features in one op", len(pending))
        _build(store, pending)


def to_sparse_ids(value: Any, ignore_value: Any = None) -> SparseTensor:
    """A raw categorical feature as a ``SparseTensor`` without its "missing" entries
    (``""`` for strings, ``-1`` for integers) when it was dense."""
    if isinstance(value, SparseTensor):
        return value
    return dense_to_sparse_drop(value, ignore_value)


def check_string_or_int(value: Any, column: str) -> None:
    """Raises ValueError unless ``value`` holds strings or integers."""
    dt = value.dtype
    if dt is not _dtypes.string and not dt.is_integer:
        raise ValueError(f"Column {column}: feature must be string or integer, got "
                         f"{dt.name}")


def check_key(key: Any, what: str) -> str:
    """``key`` when it is a non-empty string, else ValueError."""
    if not isinstance(key, str) or not key:
        raise ValueError(f"{what}: key must be a non-empty string, got {key!r}")
    return key


def shape_num_elements(shape: TensorShape, column: str) -> int:
    """The element count of a fully defined shape; ValueError otherwise."""
    if not shape.is_fully_defined():
        raise ValueError(f"Column {column}: shape {shape} must be fully defined")
    return int(shape.num_elements())


__all__ = ["FeatureColumn", "DenseColumn", "CategoricalColumn", "IdWeightPair",
           "FeatureTransformationCache", "to_sparse_ids", "hashed_ids", "prefetch_hashed_ids"]
