"""Models made of feature columns: ``input_layer``, ``linear_model``, parse specs.

Both layers take the columns sorted by name (so the variable layout does not
depend on the order a program lists them in) and give every column a variable
scope of its own name: ``input_layer/<column>/...`` and
``linear_model/<column>/weights``, with ``linear_model/bias_weights``, the names
TensorFlow gives them, so checkpoints line up.
"""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.feature_column.base import (CategoricalColumn, DenseColumn, FeatureColumn,
                                             FeatureTransformationCache, hashed_ids,
                                             prefetch_hashed_ids, shape_num_elements)
from tensorfleet.feature_column.categorical import HashedCategoricalColumn
from tensorfleet.feature_column.dense import EmbeddingColumn, SharedEmbeddingColumn
from tensorfleet.framework.graph import GraphKeys, Tensor, get_default_graph
from tensorfleet.ops import array_ops
from tensorfleet.ops.array_concat_ops import concat
from tensorfleet.ops.embedding_ops import safe_embedding_lookup_sparse
from tensorfleet.ops.sparse_lookup_ops import (LookupParts, combine_many, fused_lookup_parts,
                                               prefetch_prepared)
from tensorfleet.ops.init_ops import Zeros
from tensorfleet.ops.math_ops import add_n, matmul
from tensorfleet.ops.nn_ops import bias_add
from tensorfleet.ops.variable_scope import get_variable, variable_scope

logger = logging.getLogger(__name__)

_SPARSE_COMBINERS = ("mean", "sqrtn", "sum")


def _check_columns(feature_columns: Any, kind: type, what: str) -> List[FeatureColumn]:
    if isinstance(feature_columns, FeatureColumn):
        feature_columns = [feature_columns]
    cols = list(feature_columns or [])
    if not cols:
        raise ValueError("feature_columns must not be empty.")
    for c in cols:
        if not isinstance(c, kind):
            raise ValueError(f"Items of feature_columns must be a {kind.__name__} for "
                             f"{what}. Given (type {type(c).__name__}): {c}.")
    names = [c.name for c in cols]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"Duplicate feature column name found for columns: {dup}")
    return sorted(cols, key=lambda c: c.name)


def _weight_collections(weight_collections: Optional[Sequence[str]]) -> List[str]:
    out = list(weight_collections or [])
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES):
        if key not in out:
            out.append(key)
    return out


def _flatten(tensor: Tensor, n: int) -> Tensor:
    out = array_ops.reshape(tensor, [-1, n])
    return out


def input_layer(features: Dict[str, Any], feature_columns: Sequence[DenseColumn],
                weight_collections: Optional[Sequence[str]] = None, trainable: bool = True,
                cols_to_vars: Optional[Dict[Any, List[Any]]] = None) -> Tensor:
    """The dense columns of ``features`` side by side: a float32 ``[batch, sum of sizes]``.

    Args:
      features: feature key -> ``Tensor`` or ``SparseTensor`` (a rank-1 tensor is one
        value per example).
      feature_columns: dense columns (numeric, bucketized, embedding, indicator).
      weight_collections: extra collections for the variables created.
      trainable: whether the embedding variables are trained.
      cols_to_vars: filled with column -> list of its variables when given.

    Raises:
      ValueError: no columns, a non-dense column, or two columns of one name.
    """
    cols = _check_columns(feature_columns, DenseColumn, "input_layer")
    cache = FeatureTransformationCache(features)
    collections = _weight_collections(weight_collections)
    outputs = []
    with variable_scope(None, default_name="input_layer", values=list(features.values())):
        _prefetch(cache, cols, [c.categorical_column for c in cols
                                if _batchable_embedding(c)])
        for col in cols:
            with variable_scope(None, default_name=col._var_scope_name) as scope:
                before = _scope_vars(scope.name)
                n = shape_num_elements(col.variable_shape, col.name)
                if _batchable_embedding(col):
                    tensor = col.get_lookup_parts(cache, weight_collections=collections,
                                                  trainable=trainable)
                else:
                    tensor = col.get_dense_tensor(cache, weight_collections=collections,
                                                  trainable=trainable)
                if isinstance(tensor, LookupParts) and tensor.width != n:
                    tensor = tensor.combine()
                outputs.append(tensor if isinstance(tensor, LookupParts)
                               else _flatten(tensor, n))
                if cols_to_vars is not None:
                    cols_to_vars[col] = [v for v in _scope_vars(scope.name) if v not in before]
        pieces = _combine_runs(outputs)
        out = pieces[0] if len(pieces) == 1 else concat(pieces, 1)
    out.set_shape([None, sum(int(o.shape[1]) for o in pieces)])
    return out


def _batchable_embedding(col: FeatureColumn) -> bool:
    """Whether ``input_layer`` may combine ``col``'s lookup with its neighbours' in one
    op (a shared embedding keeps its own combine)."""
    return isinstance(col, EmbeddingColumn) and not isinstance(col, SharedEmbeddingColumn)


def _combine_runs(outputs: Sequence[Any]) -> List[Tensor]:
    """The ``[batch, n]`` pieces of ``input_layer`` in column order: every run of
    adjacent lookups combined side by side in one op, the other columns as they are."""
    pieces: List[Tensor] = []
    run: List[LookupParts] = []
    for item in list(outputs) + [None]:
        if isinstance(item, LookupParts):
            run.append(item)
            continue
        if len(run) == 1:
            pieces.append(_flatten(run[0].combine(), int(run[0].width)))
        elif run:
            pieces.append(combine_many(run, "concat", name="embedding_lookups"))
        run = []
        if item is not None:
            pieces.append(item)
    return pieces


def _hashed_leaves(col: Any) -> List[HashedCategoricalColumn]:
    """The hashed string columns that ``col`` reads ids from (itself, or the column
    under an embedding, indicator or weighted column)."""
    if isinstance(col, HashedCategoricalColumn):
        return [col] if col.dtype is _dtypes.string else []
    inner = getattr(col, "categorical_column", None)
    return _hashed_leaves(inner) if isinstance(inner, CategoricalColumn) else []


def _prefetch(cache: FeatureTransformationCache, cols: Sequence[FeatureColumn],
              looked_up: Sequence[Any]) -> None:
    """Hashes every hashed string column of ``cols`` in one op, then prepares the ids of
    the hashed string columns among ``looked_up`` (the categorical columns whose ids
    a fused lookup reads) in one op, before the columns are built one by one. Ids of
    other columns get their own prepare op when their lookup is built."""
    prefetch_hashed_ids(cache, [(leaf.key, leaf.hash_bucket_size) for c in cols
                                for leaf in _hashed_leaves(c)])
    ids = []
    for col in looked_up:
        if isinstance(col, HashedCategoricalColumn) and col.dtype is _dtypes.string:
            sp = hashed_ids(cache, col.key, col.hash_bucket_size)
            if sp is not None:
                ids.append(sp)
    if prefetch_prepared(ids, name="prepared_ids"):
        logger.debug("prepared the ids of %d categorical columns in one op", len(ids))


def _scope_vars(scope_name: str) -> List[Any]:
    from_graph = get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES)
    prefix = scope_name + "/"
    return [v for v in from_graph if v.op.name.startswith(prefix)]


def _linear_term(col: FeatureColumn, cache: FeatureTransformationCache, units: int,
                 sparse_combiner: str, collections: List[str], trainable: bool) -> Any:
    """``col``'s ``[batch, units]`` term, or the ``LookupParts`` of a categorical
    column's fused lookup for ``linear_model`` to add up with the others in one op."""
    if isinstance(col, CategoricalColumn):
        pair = col.get_sparse_tensors(cache)
        weights = get_variable("weights", shape=[col.num_buckets, units],
                               dtype=_dtypes.float32, initializer=Zeros(),
                               trainable=trainable, collections=collections)
        if pair.weight_tensor is None:
            parts = fused_lookup_parts(weights, pair.id_tensor, combiner=sparse_combiner,
                                       name="weighted_sum")
            if parts is not None:
                return parts
        return safe_embedding_lookup_sparse(weights, pair.id_tensor,
                                            sparse_weights=pair.weight_tensor,
                                            combiner=sparse_combiner, name="weighted_sum")
    n = shape_num_elements(col.variable_shape, col.name)
    tensor = _flatten(col.get_dense_tensor(cache, weight_collections=collections,
                                           trainable=trainable), n)
    weights = get_variable("weights", shape=[n, units], dtype=_dtypes.float32,
                           initializer=Zeros(), trainable=trainable, collections=collections)
    return matmul(tensor, weights, name="weighted_sum")


def linear_model(features: Dict[str, Any], feature_columns: Sequence[FeatureColumn],
                 units: int = 1, sparse_combiner: str = "sum",
                 weight_collections: Optional[Sequence[str]] = None, trainable: bool = True,
                 cols_to_vars: Optional[Dict[Any, List[Any]]] = None) -> Tensor:
    """A linear prediction ``[batch, units]`` from ``feature_columns``.

    A categorical column contributes the (``sparse_combiner``-combined) rows of its
    ``[num_buckets, units]`` weights picked by its ids; a dense column
    contributes ``value @ weights``. All weights start at zero, as does
    ``bias_weights`` (``[units]``).

    Raises:
      ValueError: no columns, duplicates, a bad ``units`` or ``sparse_combiner``.
    """
    if isinstance(units, bool) or not isinstance(units, (int, np.integer)) or units < 1:
        raise ValueError(f"linear_model: units must be a positive integer, got {units!r}")
    if sparse_combiner not in _SPARSE_COMBINERS:
        raise ValueError(f"linear_model: sparse_combiner must be one of "
                         f"{list(_SPARSE_COMBINERS)}, got {sparse_combiner!r}")
    cols = _check_columns(feature_columns, (DenseColumn, CategoricalColumn), "linear_model")
    cache = FeatureTransformationCache(features)
    collections = _weight_collections(weight_collections)
    terms = []
    with variable_scope(None, default_name="linear_model", values=list(features.values())):
        _prefetch(cache, cols, [c for c in cols if isinstance(c, CategoricalColumn)])
        for col in cols:
            with variable_scope(None, default_name=col._var_scope_name) as scope:
                before = _scope_vars(scope.name)
                terms.append(_linear_term(col, cache, int(units), sparse_combiner,
                                          collections, trainable))
                if cols_to_vars is not None:
                    cols_to_vars[col] = [v for v in _scope_vars(scope.name) if v not in before]
        bias = get_variable("bias_weights", shape=[int(units)], dtype=_dtypes.float32,
                            initializer=Zeros(), trainable=trainable, collections=collections)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = [bias]
        terms = _sum_lookups(terms, int(units))
        total = add_n(terms, name="weighted_sum_no_bias") if len(terms) > 1 else terms[0]
        return bias_add(total, bias, name="weighted_sum")


def _sum_lookups(terms: Sequence[Any], units: int) -> List[Tensor]:
    """``terms`` with all the ``LookupParts`` among them added up by one op, placed
    where the first of them was."""
    lookups = [t for t in terms if isinstance(t, LookupParts)]
    if len(lookups) > 1 and all(p.width == units for p in lookups):
        summed = combine_many(lookups, "sum", name="weighted_sums")
        summed.set_shape([None, units])
    else:
        summed = None
    out: List[Tensor] = []
    for t in terms:
        if not isinstance(t, LookupParts):
            out.append(t)
        elif summed is None:
            out.append(t.combine())
        elif t is lookups[0]:
            out.append(summed)
    return out


def make_parse_example_spec(feature_columns: Sequence[FeatureColumn]) -> Dict[str, Any]:
    """The ``tf.parse_example`` features dict that the columns need.

    Raises:
      ValueError: a non-column item, or two columns needing different specs for one key.
    """
    spec: Dict[str, Any] = {}
    for col in feature_columns:
        if not isinstance(col, FeatureColumn):
            raise ValueError(f"All feature_columns must be feature column instances. "
                             f"Given: {col}")
        for key, value in col.parse_example_spec.items():
            if key in spec and spec[key] != value:
                raise ValueError(f"feature_columns contain different parse_spec for key "
                                 f"{key}. Given {value} and {spec[key]}")
            spec[key] = value
    return spec


__all__ = ["input_layer", "linear_model", "make_parse_example_spec"]
