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
* ``SparseLookupPrepareMany``: the prepare of many columns in one op (each column's
  outputs those of its own ``SparseLookupPrepare``);
* ``SparseLookupCombine``: the looked-up rows combined per example (sum, mean or
  sqrtn), rows that had no id zeroed; its gradient ``SparseLookupCombineGrad``
  is dense over the distinct ids, so the gather before it still hands the
  optimizer an ``IndexedSlices`` of only the rows used.

The gather itself stays a separate op, colocated with the embedding variable, so
a parameter server receives only the distinct ids and returns only their rows.
Every attribute is plain data: the graph runs partitioned across tasks.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import embedding_ops
from tensorfleet.ops.op_util import make_op

COMBINERS = ("sum", "mean", "sqrtn")
REDUCTIONS = ("concat", "sum")


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


def _prepare_many_shapes(op: Operation) -> List[TensorShape]:
    n = int(op.attrs["N"])
    out: List[TensorShape] = []
    for shape in op.inputs[2 * n:3 * n]:
        batch = None
        if shape.op.type == "Const":
            batch = int(shape.op.attrs["value"].reshape(-1)[0])
        out += [TensorShape([None]), TensorShape([None]), TensorShape([None]),
                TensorShape([batch])]
    return out


def _combine_shapes(op: Operation) -> List[TensorShape]:
    rows, empty = op.inputs[0], op.inputs[3]
    inner = rows.shape.as_list()[1:] if rows.shape.ndims is not None else None
    if inner is None:
        return [TensorShape(None)]
    return [TensorShape([empty.shape[0] if empty.shape.ndims == 1 else None] + inner)]


def _combine_grad_shapes(op: Operation) -> List[TensorShape]:
    return [op.inputs[1].shape]


def _many_shapes(op: Operation) -> List[TensorShape]:
    n = int(op.attrs["N"])
    rows, empty = op.inputs[:n], op.inputs[3 * n]
    batch = empty.shape[0] if empty.shape.ndims == 1 else None
    widths = [r.shape[1] if r.shape.ndims == 2 else None for r in rows]
    if op.attrs["reduce"] == "concat":
        width = None if any(w is None for w in widths) else sum(widths)
    else:
        width = next((w for w in widths if w is not None), None)
    return [TensorShape([batch, width])]


def _many_grad_shapes(op: Operation) -> List[TensorShape]:
    n = int(op.attrs["N"])
    return [r.shape for r in op.inputs[1:1 + n]]


register_op("StringToHashBucketSparse", _hash_sparse_shapes)
register_op("SparseLookupCombineMany", _many_shapes)
register_op("SparseLookupCombineManyGrad", _many_grad_shapes)
register_op("SparseLookupPrepare", _prepare_shapes)
register_op("SparseLookupPrepareMany", _prepare_many_shapes)
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
    _check_ids("sparse_lookup_prepare", sp_ids)
    op = make_op("SparseLookupPrepare", [sp_ids.indices, sp_ids.values, sp_ids.dense_shape],
                 [sp_ids.dtype, _dtypes.int32, _dtypes.int32, _dtypes.bool],
                 {"default_id": -1 if default_id is None else int(default_id)},
                 name=name or "SparseLookupPrepare")
    return list(op.outputs)


def _check_ids(what: str, sp_ids: Any) -> None:
    """Build-time checks of one column's ids for a prepare op."""
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"{what}: sp_ids must be a SparseTensor, got "
                        f"{type(sp_ids).__name__}")
    if not sp_ids.dtype.is_integer:
        raise TypeError(f"{what}: ids must be integers, got {sp_ids.dtype.name}")
    rank = sp_ids.dense_shape.shape[0] if sp_ids.dense_shape.shape.ndims == 1 else None
    if rank != 2:
        raise ValueError(f"{what}: sp_ids must have rank 2, got {rank}")


def sparse_lookup_prepare_many(sp_ids: Sequence[SparseTensor],
                               default_ids: Sequence[Optional[int]],
                               name: Optional[str] = None) -> List[List[Tensor]]:
    """``sparse_lookup_prepare`` of many columns in one op: per column ``i``, the
    ``[unique_ids, idx, segment_ids, empty]`` of ``sp_ids[i]`` with ``default_ids[i]``,
    the same values as its own prepare op gives.

    Raises:
      ValueError: no columns, lists of different lengths, ids not of rank 2.
      TypeError: ids that are not a ``SparseTensor`` of integers.
    """
    cols, defaults = list(sp_ids), list(default_ids)
    if not cols:
        raise ValueError("sparse_lookup_prepare_many: needs at least one column")
    if len(defaults) != len(cols):
        raise ValueError(f"sparse_lookup_prepare_many: {len(cols)} sp_ids but "
                         f"{len(defaults)} default_ids")
    for i, sp in enumerate(cols):
        _check_ids(f"sparse_lookup_prepare_many: column {i}", sp)
    n = len(cols)
    dtypes: List[Any] = []
    for sp in cols:
        dtypes += [sp.dtype, _dtypes.int32, _dtypes.int32, _dtypes.bool]
    op = make_op("SparseLookupPrepareMany",
                 [sp.indices for sp in cols] + [sp.values for sp in cols] +
                 [sp.dense_shape for sp in cols], dtypes,
                 {"N": n, "default_ids": [-1 if d is None else int(d) for d in defaults]},
                 name=name or "SparseLookupPrepareMany")
    return [list(op.outputs[4 * i:4 * i + 4]) for i in range(n)]


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


def _check_many(what: str, rows: Sequence[Any], idx: Sequence[Any], segment_ids: Sequence[Any],
                empty: Sequence[Any], combiners: Sequence[str], zero_empty: Sequence[bool],
                reduce: str) -> List[Tensor]:
    """The rows of a batched combine as tensors, after the build-time checks."""
    n = len(rows)
    if n == 0:
        raise ValueError(f"{what}: needs at least one column")
    lengths = [len(idx), len(segment_ids), len(empty), len(combiners), len(zero_empty)]
    if any(k != n for k in lengths):
        raise ValueError(f"{what}: {n} rows but {lengths} idx, segment_ids, empty, "
                         f"combiners and zero_empty")
    if reduce not in REDUCTIONS:
        raise ValueError(f"{what}: reduce must be one of {list(REDUCTIONS)}, got {reduce!r}")
    for i, c in enumerate(combiners):
        if c not in COMBINERS:
            raise ValueError(f"{what}: combiners[{i}] must be one of {list(COMBINERS)}, "
                             f"got {c!r}")
    rows_t = [convert_to_tensor(r) for r in rows]
    for i, r in enumerate(rows_t):
        if not r.dtype.is_floating or r.dtype is not rows_t[0].dtype:
            raise TypeError(f"{what}: rows must all be of one floating point dtype, got "
                            f"{r.dtype.name} for column {i} and {rows_t[0].dtype.name} "
                            f"for column 0")
        if r.shape.ndims not in (None, 2):
            raise ValueError(f"{what}: rows {i} must be a matrix, got shape {r.shape}")
    return rows_t


def sparse_lookup_combine_many(rows: Sequence[Any], idx: Sequence[Tensor],
                               segment_ids: Sequence[Tensor], empty: Sequence[Tensor],
                               combiners: Sequence[str], zero_empty: Sequence[bool],
                               reduce: str = "concat", name: Optional[str] = None) -> Tensor:
    """``sparse_lookup_combine`` of many columns in one op, their results side by side
    (``reduce="concat"``: ``[batch, sum of widths]``, in column order) or added up
    (``reduce="sum"``: ``[batch, width]``, columns of one width).

    Column ``i`` is ``rows[i]`` (a ``[distinct ids, width]`` matrix) with the
    ``idx[i]``, ``segment_ids[i]`` and ``empty[i]`` of its prepare op, combined by
    ``combiners[i]``, its empty rows zeroed when ``zero_empty[i]``.

    Raises:
      ValueError: no columns, lists of different lengths, an unknown combiner or
        reduction, rows that are not matrices.
      TypeError: rows that are not all of one floating point dtype.
    """
    rows_t = _check_many("sparse_lookup_combine_many", rows, idx, segment_ids, empty,
                         combiners, zero_empty, reduce)
    n = len(rows_t)
    op = make_op("SparseLookupCombineMany",
                 rows_t + list(idx) + list(segment_ids) + list(empty), [rows_t[0].dtype],
                 {"N": n, "combiners": [str(c) for c in combiners],
                  "zero_empty": [bool(z) for z in zero_empty], "reduce": reduce},
                 name=name or "SparseLookupCombineMany")
    return op.outputs[0]


def sparse_lookup_combine_many_grad(grad: Any, rows: Sequence[Tensor], idx: Sequence[Tensor],
                                    segment_ids: Sequence[Tensor], empty: Sequence[Tensor],
                                    combiners: Sequence[str], zero_empty: Sequence[bool],
                                    reduce: str, name: Optional[str] = None) -> List[Tensor]:
    """The gradients of ``sparse_lookup_combine_many`` with respect to each ``rows[i]``."""
    rows_t = _check_many("sparse_lookup_combine_many_grad", rows, idx, segment_ids, empty,
                         combiners, zero_empty, reduce)
    n = len(rows_t)
    op = make_op("SparseLookupCombineManyGrad",
                 [convert_to_tensor(grad)] + rows_t + list(idx) + list(segment_ids) +
                 list(empty), [r.dtype for r in rows_t],
                 {"N": n, "combiners": [str(c) for c in combiners],
                  "zero_empty": [bool(z) for z in zero_empty], "reduce": reduce},
                 name=name or "SparseLookupCombineManyGrad")
    return list(op.outputs)


class LookupParts:
    """A lookup built up to its combine: the gathered distinct rows and the prepare
    outputs, so a layer can combine many columns in one op."""

    def __init__(self, rows: Tensor, idx: Tensor, segment_ids: Tensor, empty: Tensor,
                 combiner: str, zero_empty: bool, static_shape: TensorShape,
                 scope: str) -> None:
        self.rows, self.idx, self.segment_ids, self.empty = rows, idx, segment_ids, empty
        self.scope = scope
        self.combiner, self.zero_empty = combiner, zero_empty
        self.static_shape = static_shape

    def combine(self, name: Optional[str] = None) -> Tensor:
        """This lookup's own combine op (the unbatched form), in the lookup's scope."""
        with get_default_graph().name_scope(self.scope):
            out = sparse_lookup_combine(self.rows, self.idx, self.segment_ids, self.empty,
                                        self.combiner, zero_empty=self.zero_empty,
                                        name=name or self.combiner)
        if self.static_shape.ndims is not None:
            out.set_shape(self.static_shape)
        return out

    @property
    def width(self) -> Optional[int]:
        """The row width when the rows are a matrix of known width, else None."""
        shape = self.rows.shape
        return int(shape[1]) if shape.ndims == 2 and shape[1] is not None else None


def combine_many(parts: Sequence[LookupParts], reduce: str,
                 name: Optional[str] = None) -> Tensor:
    """``sparse_lookup_combine_many`` of ``parts`` (a ``LookupParts`` each)."""
    return sparse_lookup_combine_many([p.rows for p in parts], [p.idx for p in parts],
                                      [p.segment_ids for p in parts],
                                      [p.empty for p in parts], [p.combiner for p in parts],
                                      [p.zero_empty for p in parts], reduce=reduce, name=name)


_PREPARED = "_sparse_lookup_prepared"


def _prepared_key(sp_ids: SparseTensor, default_id: Optional[int]) -> Tuple[Any, ...]:
    return (sp_ids.indices, sp_ids.values, sp_ids.dense_shape, default_id)


def _prepared(sp_ids: SparseTensor, default_id: Optional[int]) -> List[Tensor]:
    """The prepare outputs of ``sp_ids``, built once per graph: a column's ids feed the
    linear part and the embedding alike. Ids already prepared by ``prefetch_prepared``
    read that op's outputs; others get their own prepare op."""
    cache = get_default_graph().__dict__.setdefault(_PREPARED, {})
    key = _prepared_key(sp_ids, default_id)
    if key not in cache:
        cache[key] = sparse_lookup_prepare(sp_ids, default_id)
    return cache[key]


def prefetch_prepared(sp_ids: Sequence[SparseTensor], default_id: Optional[int] = None,
                      name: Optional[str] = None) -> int:
    """Prepares, in one ``SparseLookupPrepareMany`` op, every rank-2 integer
    ``SparseTensor`` of ``sp_ids`` whose prepare outputs the graph does not hold yet, so
    the fused lookups built later read them instead of building a prepare op each.
    Returns the number of columns so prepared (0 when fewer than two need it: a single
    column keeps its own prepare op)."""
    cache = get_default_graph().__dict__.setdefault(_PREPARED, {})
    pending: List[SparseTensor] = []
    keys: List[Tuple[Any, ...]] = []
    for sp in sp_ids:
        if not isinstance(sp, SparseTensor) or not sp.dtype.is_integer:
            continue
        shape = sp.dense_shape.shape
        if shape.ndims != 1 or shape[0] != 2:
            continue
        key = _prepared_key(sp, default_id)
        if key not in cache and key not in keys:
            pending.append(sp)
            keys.append(key)
    if len(pending) < 2:
        return 0
    outs = sparse_lookup_prepare_many(pending, [default_id] * len(pending), name=name)
    for key, out in zip(keys, outs):
        cache[key] = out
    return len(pending)


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
    parts = fused_lookup_parts(embedding_weights, sparse_ids, combiner, default_id, name,
                               partition_strategy, max_norm)
    return None if parts is None else parts.combine()


def fused_lookup_parts(embedding_weights: Any, sparse_ids: Any, combiner: str = "mean",
                       default_id: Optional[int] = None, name: Optional[str] = None,
                       partition_strategy: str = "div", max_norm: Any = None
                       ) -> Optional[LookupParts]:
    """``fused_safe_embedding_lookup`` up to (not including) its combine op, or None
    when the fused form does not apply."""
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
    with g.name_scope(name or "embedding_lookup") as scope:
        unique_ids, idx, seg, empty = _prepared(sparse_ids, default_id)
        rows = embedding_ops.embedding_lookup(shards, unique_ids,
                                              partition_strategy=partition_strategy,
                                              max_norm=max_norm)
    static = sparse_ids.shape
    elem = embedding_ops._element_shape(shards)
    out_shape = TensorShape(None)
    if static.ndims == 2 and elem.ndims is not None:
        out_shape = TensorShape(static.as_list()[:1] + elem.as_list())
    return LookupParts(rows, idx, seg, empty, combiner, default_id is None, out_shape,
                       scope)


__all__ = ["string_to_hash_bucket_sparse", "sparse_lookup_prepare", "sparse_lookup_combine",
           "sparse_lookup_combine_grad", "fused_safe_embedding_lookup", "COMBINERS",
           "REDUCTIONS", "sparse_lookup_combine_many", "sparse_lookup_combine_many_grad",
           "LookupParts", "combine_many", "fused_lookup_parts", "sparse_lookup_prepare_many",
           "prefetch_prepared"]
