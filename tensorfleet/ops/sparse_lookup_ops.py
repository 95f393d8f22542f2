"""Fused ops for categorical features: hashed ids of many columns, and per-row lookups.

Feature columns turn every categorical column into a handful of small ops
(drop the missing values, hash, drop negative ids, fill empty rows, unique,
gather, segment reduce, mask). Each op costs a kernel call per step, and a
Criteo-shaped model has dozens of such columns, twice (linear and deep part).
These ops do the same work in a few calls:

* ``StringToHashBucketSparse``: N dense string features at once to N
  ``SparseTensor``\\ s of FarmHash bucket ids, without the ``""`` entries
  (``DenseToSparseDrop`` + ``StringToHashBucketFast`` per feature, same ids);
* ``SparseLookupPrepare``: sparse ids to the distinct ids to look up, and for
  every kept entry its distinct-id position and its row (ids < 0 dropped, an
  empty row given ``default_id``, as ``safe_embedding_lookup_sparse`` does);
* ``SparseLookupCombine``: the looked-up rows combined per example (sum, mean or
  sqrtn), rows that had no id zeroed; its gradient ``SparseLookupCombineGrad``
  is dense over the distinct ids, so the gather before it still hands the
  optimizer an ``IndexedSlices`` of only the rows used.

The gather itself stays a separate op, colocated with the embedding variable, so
a parameter server receives only the distinct ids and returns only their rows.
Every attribute is plain data: the graph runs partitioned across tasks.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import embedding_ops
from tensorfleet.ops.op_util import make_op

COMBINERS = ("sum", "mean", "sqrtn")


def _hash_sparse_shapes(op: Operation) -> List[TensorShape]:
    out: List[TensorShape] = []
    for x in op.inputs:
        # A vector is one value per row: its ids are a [batch, 1] matrix.
        rank = None if x.shape.ndims is None else max(x.shape.ndims, 2)
        out += [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]
    return out


def _prepare_shapes(op: Operation) -> List[TensorShape]:
    shape = op.inputs[2]
    batch = None
    if shape.op.type == "Const":
        batch = int(shape.op.attrs["value"].reshape(-1)[0])
    return [TensorShape([None]), TensorShape([None]), TensorShape([None]),
            TensorShape([batch])]


def _combine_shapes(op: Operation) -> List[TensorShape]:
    rows, empty = op.inputs[0], op.inputs[3]
    inner = rows.shape.as_list()[1:] if rows.shape.ndims is not None else None
    if inner is None:
        return [TensorShape(None)]
    return [TensorShape([empty.shape[0] if empty.shape.ndims == 1 else None] + inner)]


def _combine_grad_shapes(op: Operation) -> List[TensorShape]:
    return [op.inputs[1].shape]


register_op("StringToHashBucketSparse", _hash_sparse_shapes)
register_op("SparseLookupPrepare", _prepare_shapes)
register_op("SparseLookupCombine", _combine_shapes)
register_op("SparseLookupCombineGrad", _combine_grad_shapes)


def string_to_hash_bucket_sparse(inputs: Sequence[Any], num_buckets: Sequence[int],
                                 name: Optional[str] = None) -> List[SparseTensor]:
    """Dense string features to sparse bucket ids, all features in one op.

    Feature ``i`` (rank >= 1; a vector is one value per row, ``[batch, 1]``) gives a
    ``SparseTensor`` of its non-empty strings, each hashed to
    ``Fingerprint64(s) % num_buckets[i]`` (TensorFlow's ``string_to_hash_bucket_fast``).

    Raises:
      ValueError: no inputs, a ``num_buckets`` list of another length, or a bucket
        count < 1.
      TypeError: an input that does not hold strings.
    """
    xs = [convert_to_tensor(x) for x in inputs]
    if not xs:
        raise ValueError("string_to_hash_bucket_sparse: inputs must not be empty")
    buckets = list(num_buckets)
    if len(buckets) != len(xs):
        raise ValueError(f"string_to_hash_bucket_sparse: {len(xs)} inputs but "
                         f"{len(buckets)} num_buckets")
    for i, (x, nb) in enumerate(zip(xs, buckets)):
        if x.dtype is not _dtypes.string:
            raise TypeError(f"string_to_hash_bucket_sparse: input {i} ({x.name}) must hold "
                            f"strings, got {x.dtype.name}")
        if x.shape.ndims == 0:
            raise ValueError(f"string_to_hash_bucket_sparse: input {i} ({x.name}) is a "
                             f"scalar; it needs a batch dimension")
        if isinstance(nb, bool) or not isinstance(nb, int) or nb < 1:
            raise ValueError(f"string_to_hash_bucket_sparse: num_buckets[{i}] must be an "
                             f"int >= 1, got {nb!r}")
    n = len(xs)
    op = make_op("StringToHashBucketSparse", xs, [_dtypes.int64] * (3 * n),
                 {"N": n, "num_buckets": [int(b) for b in buckets]},
                 name=name or "StringToHashBucketSparse")
    return [SparseTensor(op.outputs[3 * i], op.outputs[3 * i + 1], op.outputs[3 * i + 2])
            for i in range(n)]


def sparse_lookup_prepare(sp_ids: SparseTensor, default_id: Optional[int] = None,
                          name: Optional[str] = None) -> List[Tensor]:
    """``[unique_ids, idx, segment_ids, empty]`` of the ``[batch, k]`` sparse ids.

    Ids < 0 are dropped; a row left without ids gets ``default_id`` (0 when None)
    and is flagged in the bool ``empty`` (``[batch]``). ``unique_ids`` are the
    distinct ids, ``idx[j]`` the position in them of entry ``j``, ``segment_ids[j]``
    its row (entries ordered by row); ``idx`` and ``segment_ids`` are int32.

    Raises:
      TypeError: ``sp_ids`` is not a ``SparseTensor`` of integers.
      ValueError: ``sp_ids`` is not of rank 2.
    """
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sparse_lookup_prepare: sp_ids must be a SparseTensor, got "
                        f"{type(sp_ids).__name__}")
    if not sp_ids.dtype.is_integer:
        raise TypeError(f"sparse_lookup_prepare: ids must be integers, got "
                        f"{sp_ids.dtype.name}")
    rank = sp_ids.dense_shape.shape[0] if sp_ids.dense_shape.shape.ndims == 1 else None
    if rank != 2:
        raise ValueError(f"sparse_lookup_prepare: sp_ids must have rank 2, got {rank}")
    op = make_op("SparseLookupPrepare", [sp_ids.indices, sp_ids.values, sp_ids.dense_shape],
                 [sp_ids.dtype, _dtypes.int32, _dtypes.int32, _dtypes.bool],
                 {"default_id": -1 if default_id is None else int(default_id)},
                 name=name or "SparseLookupPrepare")
    return list(op.outputs)


def sparse_lookup_combine(rows: Any, idx: Tensor, segment_ids: Tensor, empty: Tensor,
                          combiner: str = "mean", zero_empty: bool = True,
                          name: Optional[str] = None) -> Tensor:
    """Per row ``r``: the ``combiner`` of ``rows[idx[j]]`` over the entries ``j`` with
    ``segment_ids[j] == r``; rows flagged in ``empty`` are zeros when ``zero_empty``.

    Raises:
      ValueError: an unknown combiner.
    """
    if combiner not in COMBINERS:
        raise ValueError(f"sparse_lookup_combine: combiner must be one of {list(COMBINERS)}, "
                         f"got {combiner!r}")
    rows_t = convert_to_tensor(rows)
    if not rows_t.dtype.is_floating:
        raise TypeError(f"sparse_lookup_combine: rows must be floating point, got "
                        f"{rows_t.dtype.name}")
    op = make_op("SparseLookupCombine", [rows_t, idx, segment_ids, empty], [rows_t.dtype],
                 {"combiner": combiner, "zero_empty": bool(zero_empty)},
                 name=name or "SparseLookupCombine")
    return op.outputs[0]


def sparse_lookup_combine_grad(grad: Any, rows: Tensor, idx: Tensor, segment_ids: Tensor,
                               empty: Tensor, combiner: str, zero_empty: bool,
                               name: Optional[str] = None) -> Tensor:
    """The gradient of ``sparse_lookup_combine`` with respect to ``rows`` (dense)."""
    if combiner not in COMBINERS:
        raise ValueError(f"sparse_lookup_combine_grad: combiner must be one of "
                         f"{list(COMBINERS)}, got {combiner!r}")
    op = make_op("SparseLookupCombineGrad", [grad, rows, idx, segment_ids, empty],
                 [rows.dtype], {"combiner": combiner, "zero_empty": bool(zero_empty)},
                 name=name or "SparseLookupCombineGrad")
    return op.outputs[0]


def _prepared(sp_ids: SparseTensor, default_id: Optional[int]) -> List[Tensor]:
    """The prepare op of ``sp_ids``, built once per graph: a column's ids feed the linear
    part and the embedding alike."""
    g = get_default_graph()
    cache = g.__dict__.setdefault("_sparse_lookup_prepared", {})
    key = (sp_ids.indices, sp_ids.values, sp_ids.dense_shape, default_id)
    if key not in cache:
        cache[key] = sparse_lookup_prepare(sp_ids, default_id)
    return cache[key]


def fused_safe_embedding_lookup(embedding_weights: Any, sparse_ids: Any, combiner: str = "mean",
                                default_id: Optional[int] = None, name: Optional[str] = None,
                                partition_strategy: str = "div", max_norm: Any = None
                                ) -> Optional[Tensor]:
    """``safe_embedding_lookup_sparse`` without weights, in three ops (plus the routing
    of ``embedding_lookup`` when there are several shards), or None when the fused form
    does not apply (ids not a rank-2 ``SparseTensor`` of integers, no shards, an
    unknown combiner): the caller then builds the general form.

    Same values and gradients as ``safe_embedding_lookup_sparse``: ids < 0 dropped,
    an empty row gives the embedding of ``default_id`` or zeros when it is None.
    """
    if not isinstance(sparse_ids, SparseTensor) or not sparse_ids.dtype.is_integer:
        return None
    if combiner not in COMBINERS:
        return None
    shape = sparse_ids.dense_shape.shape
    if shape.ndims != 1 or shape[0] != 2:
        return None
    shards = embedding_ops._shard_list(embedding_weights)
    if not shards:
        return None
    g = get_default_graph()
    with g.name_scope(name or "embedding_lookup"):
        unique_ids, idx, seg, empty = _prepared(sparse_ids, default_id)
        rows = embedding_ops.embedding_lookup(shards, unique_ids,
                                              partition_strategy=partition_strategy,
                                              max_norm=max_norm)
        out = sparse_lookup_combine(rows, idx, seg, empty, combiner,
                                    zero_empty=default_id is None, name=combiner)
    static = sparse_ids.shape
    elem = embedding_ops._element_shape(shards)
    if static.ndims == 2 and elem.ndims is not None:
        out.set_shape(TensorShape(static.as_list()[:1] + elem.as_list()))
    return out


__all__ = ["string_to_hash_bucket_sparse", "sparse_lookup_prepare", "sparse_lookup_combine",
           "sparse_lookup_combine_grad", "fused_safe_embedding_lookup", "COMBINERS"]
