"""``tf.nn.embedding_lookup``: rows of a (possibly sharded) embedding matrix.

With one tensor of parameters a lookup is a gather next to the parameters. With
several shards (a list of variables or a ``PartitionedVariable``) each id is
routed to the shard holding it:

* on the caller's device, the flat ids are split by shard with
  ``dynamic_partition`` (one id list per shard, plus the positions they came
  from);
* for each shard, a gather colocated with the shard reads only those rows, so
  a parameter server receives the ids it holds and returns just their rows;
* ``dynamic_stitch`` puts the rows back in the order of the ids.

The gradient of the gather on a shard is an ``IndexedSlices`` of that shard's
rows, so an optimizer's sparse update on each parameter server touches only
the rows that were looked up.

Two routing rules, as in TensorFlow: ``"mod"`` puts id ``i`` on shard
``i % n`` at row ``i // n``; ``"div"`` gives each shard a contiguous range of
ids, the first ``total % n`` shards holding one id more than the others (the
shape ``get_variable`` gives partitioned shards).
"""

from __future__ import annotations

import logging
from typing import Any, List, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops import array_ops, control_flow_ops, math_ops, sparse_ops
from tensorfleet.ops.partitioned_variables import PartitionedVariable

logger = logging.getLogger(__name__)

_STRATEGIES = ("mod", "div")


def _shard_list(params: Any) -> List[Any]:
    if params is None:
        raise ValueError("embedding_lookup: params must be a tensor, a variable or a list of "
                         "shards, got None")
    if isinstance(params, PartitionedVariable):
        return list(params)
    if isinstance(params, (list, tuple)):
        return list(params)
    return [params]


def _colocation_op(shard: Any) -> Any:
    """The op a shard lives with: a variable's storage op, or the tensor's producer."""
    op = getattr(shard, "op", None)
    if op is None:
        op = convert_to_tensor(shard).op
    return op


def _rows_static(shard: Any) -> Optional[int]:
    shape = shard.get_shape() if hasattr(shard, "get_shape") else convert_to_tensor(
        shard).shape
    if shape.ndims is None or shape.ndims == 0:
        return None
    return shape[0]


def _clip_rows(rows: Tensor, ids: Tensor, max_norm: Any) -> Tensor:
    """Rescales each embedding (the trailing axes after the id axes) to an L2 norm of
    at most ``max_norm``."""
    if max_norm is None:
        return rows
    r_rank, i_rank = rows.shape.ndims, ids.shape.ndims
    if r_rank is not None and i_rank is not None:
        axes: Any = list(range(i_rank, r_rank))
    else:
        axes = array_ops.range(array_ops.rank(ids), array_ops.rank(rows))
    return math_ops.clip_by_norm(rows, max_norm, axes=axes)


def _mod_route(flat_ids: Tensor, n: int) -> Tuple[Tensor, Tensor]:
    return math_ops.floormod(flat_ids, n), math_ops.floordiv(flat_ids, n)


def _total_rows(shards: List[Any], dtype: Any, g: Any) -> Any:
    """The rows of all shards: an int when every shard's size is static, else a tensor
    summing the sizes read where each shard lives."""
    static = [_rows_static(s) for s in shards]
    if None not in static:
        return sum(static)
    sizes = []
    for s in shards:
        with g.colocate_with(_colocation_op(s)):
            sizes.append(array_ops.shape(s, out_type=dtype)[0])
    return math_ops.add_n(sizes) if len(sizes) > 1 else sizes[0]


def _checked_ids(flat_ids: Tensor, total: Any, g: Any) -> Tensor:
    """``flat_ids`` once they are known to lie in ``[0, total)``: an id outside would be
    routed to no shard, or to a row past the end of one."""
    lo = math_ops.reduce_min(flat_ids, name="min_id")
    hi = math_ops.reduce_max(flat_ids, name="max_id")
    empty = math_ops.equal(array_ops.size(flat_ids), 0)
    ok = math_ops.logical_or(empty, math_ops.logical_and(
        math_ops.greater_equal(lo, 0), math_ops.less(hi, total)))
    check = control_flow_ops.Assert(
        ok, ["embedding_lookup: every id must be in [0, R) where R =", total,
             "is the number of rows of all shards; got ids from", lo, "to", hi],
        name="check_ids")
    with g.control_dependencies([check]):
        return array_ops.identity(flat_ids, name="checked_ids")


def _div_route(flat_ids: Tensor, shards: List[Any], total: Any) -> Tuple[Tensor, Tensor]:
    n = len(shards)
    if isinstance(total, int):
        if total < n:
            raise ValueError(f"embedding_lookup with partition_strategy='div' needs at least one "
                             f"row per shard: {n} shards hold {total} rows in all")
        per, extras = divmod(total, n)
        per_t: Any = per
        extras_t: Any = extras
    else:
        per_t = math_ops.floordiv(total, n)
        extras_t = math_ops.floormod(total, n)
    # The first ``extras`` shards hold ``per + 1`` ids each, the rest ``per``.
    big = per_t + 1
    shard_ids = math_ops.maximum(math_ops.floordiv(flat_ids, big),
                                 math_ops.floordiv(flat_ids - extras_t, per_t))
    in_big = math_ops.less(shard_ids, extras_t)
    rows = array_ops.where(in_big, math_ops.floormod(flat_ids, big),
                           math_ops.floormod(flat_ids - extras_t, per_t))
    return shard_ids, rows


def _element_shape(shards: List[Any]) -> TensorShape:
    shape = TensorShape(None)
    for s in shards:
        sh = s.get_shape() if hasattr(s, "get_shape") else convert_to_tensor(s).shape
        if sh.ndims is not None:
            shape = shape.merge_with(TensorShape(sh.as_list()[1:]))
    return shape


def embedding_lookup(params: Any, ids: Any, partition_strategy: str = "mod",
                     name: Optional[str] = None, validate_indices: bool = True,
                     max_norm: Any = None) -> Tensor:
    """The rows of ``params`` at ``ids``: a tensor of shape ``ids.shape + row shape``.

    Args:
      params: a tensor or variable, or a list of shards / a ``PartitionedVariable``
        whose shards are concatenated along axis 0.
      ids: int32 or int64 ids into the full (concatenated) matrix.
      partition_strategy: ``"mod"`` or ``"div"``: how ids map to shards (see the
        module docstring); ignored with a single shard.
      name: name of the operation.
      validate_indices: ignored (out-of-range ids always fail the gather).
      max_norm: if given, each looked-up row is rescaled to an L2 norm of at
        most ``max_norm``.

    Raises:
      ValueError: on an empty shard list or an unknown ``partition_strategy``.
      TypeError: if ``ids`` are not integers.
    """
    del validate_indices  # the gather kernel always checks its indices
    shards = _shard_list(params)
    if not shards:
        raise ValueError("embedding_lookup: need at least one param (shard), got an empty list")
    if partition_strategy not in _STRATEGIES:
        raise ValueError(f"embedding_lookup: unrecognized partition_strategy "
                         f"{partition_strategy!r}; use 'mod' or 'div'")
    g = get_default_graph()
    with g.name_scope(name or "embedding_lookup"):
        ids_t = convert_to_tensor(ids, name="ids")
        if not ids_t.dtype.is_integer:
            raise TypeError(f"embedding_lookup: ids must be int32 or int64, got "
                            f"{ids_t.dtype.name} ({ids_t.name})")
        n = len(shards)
        if n == 1:
            with g.colocate_with(_colocation_op(shards[0])):
                rows = array_ops.gather(shards[0], ids_t, name="lookup")
                return _clip_rows(rows, ids_t, max_norm)
        return _sharded_lookup(g, shards, ids_t, partition_strategy, max_norm)


def _sharded_lookup(g: Any, shards: List[Any], ids: Tensor, strategy: str,
                    max_norm: Any) -> Tensor:
    n = len(shards)
    total = _total_rows(shards, ids.dtype, g)
    flat_ids = _checked_ids(array_ops.reshape(ids, [-1]), total, g)
    positions = array_ops.range(array_ops.size(flat_ids))
    if strategy == "mod":
        shard_of, row_of = _mod_route(flat_ids, n)
    else:
        shard_of, row_of = _div_route(flat_ids, shards, total)
    shard_of = array_ops.cast(shard_of, _dtypes.int32)
    shard_rows = array_ops.dynamic_partition(row_of, shard_of, n, name="shard_ids")
    shard_pos = array_ops.dynamic_partition(positions, shard_of, n, name="shard_positions")
    results = []
    for p, shard in enumerate(shards):
        # Colocated with the shard: its parameter server receives only the ids it
        # holds and sends back only their rows.
        with g.colocate_with(_colocation_op(shard)):
            rows = array_ops.gather(shard, shard_rows[p], name=f"gather_{p}")
            results.append(_clip_rows(rows, shard_rows[p], max_norm))
    stitched = array_ops.dynamic_stitch(shard_pos, results, name="stitch")
    return _restore_shape(stitched, ids, shards)


def _restore_shape(flat: Tensor, ids: Tensor, shards: List[Any]) -> Tensor:
    """Reshapes the ``[num ids, row...]`` result to ``ids.shape + row shape``."""
    elem = _element_shape(shards)
    id_shape = ids.shape
    if elem.is_fully_defined() and id_shape.ndims == 1:
        out = array_ops.identity(flat, name="lookup")
        out.set_shape(TensorShape([id_shape[0]] + elem.as_list()))
        return out
    if elem.is_fully_defined():
        elem_t: Any = array_ops.constant(elem.as_list(), dtype=_dtypes.int32)
    else:
        elem_t = array_ops.shape(flat)[1:]
    out = array_ops.reshape(flat, array_ops.concat([array_ops.shape(ids), elem_t], 0),
                            name="lookup")
    if id_shape.ndims is not None and elem.ndims is not None:
        out.set_shape(TensorShape(id_shape.as_list() + elem.as_list()))
    return out


_COMBINERS = ("mean", "sum", "sqrtn")


def _check_sparse_args(fname: str, sp_ids: Any, sp_weights: Any, combiner: Optional[str]
                       ) -> Tuple[SparseTensor, Optional[SparseTensor]]:
    if combiner is None:
        combiner = "mean"
    if combiner not in _COMBINERS:
        raise ValueError(f"{fname}: combiner must be one of 'mean', 'sqrtn' or 'sum', got "
                         f"{combiner!r}")
    ids = sparse_ops.as_sparse(sp_ids, fname, "sp_ids")
    if not ids.dtype.is_integer:
        raise TypeError(f"{fname}: sp_ids must hold int32 or int64 ids, got {ids.dtype.name}")
    weights = None
    if sp_weights is not None:
        weights = sparse_ops.as_sparse(sp_weights, fname, "sp_weights")
        if not weights.values.shape.is_compatible_with(ids.values.shape):
            raise ValueError(f"{fname}: sp_weights has {weights.values.shape} values but "
                             f"sp_ids has {ids.values.shape}; they must have the same indices")
        if not weights.indices.shape.is_compatible_with(ids.indices.shape):
            raise ValueError(f"{fname}: sp_weights indices {weights.indices.shape} differ "
                             f"from sp_ids indices {ids.indices.shape}")
    return ids, weights


def embedding_lookup_sparse(params: Any, sp_ids: Any, sp_weights: Any,
                            partition_strategy: str = "mod", name: Optional[str] = None,
                            combiner: Optional[str] = "mean", max_norm: Any = None) -> Tensor:
    """One combined embedding per row of the sparse ids ``sp_ids``.

    Row ``r`` of the result combines the embeddings of the ids stored in row ``r``
    of ``sp_ids`` (a ``[batch, k]`` ``SparseTensor``), weighted by the matching
    entries of ``sp_weights`` (same indices) or by 1 when it is None:

    * ``"sum"``: the weighted sum;
    * ``"mean"``: the weighted sum divided by the sum of the weights;
    * ``"sqrtn"``: the weighted sum divided by the L2 norm of the weights.

    Each distinct id is looked up once (``embedding_lookup`` with the same
    ``params`` / ``partition_strategy`` / ``max_norm``), so with sharded params
    each shard receives only the distinct ids it holds and its gradient is an
    ``IndexedSlices`` of those rows. The result has ``max row with an id + 1``
    rows; rows of ``sp_ids`` with no id come out as zeros.

    Raises:
      ValueError: on an unknown ``combiner`` or mismatched ``sp_weights``.
      TypeError: if ``sp_ids`` is not a ``SparseTensor`` of integers.
    """
    ids_sp, w_sp = _check_sparse_args("embedding_lookup_sparse", sp_ids, sp_weights, combiner)
    combiner = combiner or "mean"
    g = get_default_graph()
    with g.name_scope(name or "embedding_lookup_sparse"):
        segment_ids = array_ops.cast(ids_sp.indices[:, 0], _dtypes.int32)
        unique_ids, idx = sparse_ops.unique(ids_sp.values)
        rows = embedding_lookup(params, unique_ids, partition_strategy=partition_strategy,
                                max_norm=max_norm)
        if w_sp is None:
            reduce = {"sum": sparse_ops.sparse_segment_sum,
                      "mean": sparse_ops.sparse_segment_mean,
                      "sqrtn": sparse_ops.sparse_segment_sqrt_n}[combiner]
            return reduce(rows, idx, segment_ids, name=combiner)
        weights = w_sp.values
        if weights.dtype is not rows.dtype:
            weights = array_ops.cast(weights, rows.dtype)
        gathered = array_ops.gather(rows, idx)
        rank = rows.shape.ndims
        w_col = array_ops.reshape(weights, [-1] + [1] * (rank - 1)) if rank is not None else \
            array_ops.reshape(weights, array_ops.concat(
                [[-1], array_ops.ones_like(array_ops.shape(rows)[1:])], 0))
        positions = array_ops.range(array_ops.size(segment_ids))
        total = sparse_ops.sparse_segment_sum(gathered * w_col, positions, segment_ids)
        if combiner == "sum":
            return array_ops.identity(total, name=combiner)
        if combiner == "mean":
            denom = sparse_ops.sparse_segment_sum(weights, positions, segment_ids)
        else:
            denom = math_ops.sqrt(sparse_ops.sparse_segment_sum(weights * weights, positions,
                                                                segment_ids))
        # A row with no ids sums to zero; dividing it by 1 keeps it zero instead of 0/0.
        denom = array_ops.where(math_ops.greater(denom, array_ops.zeros_like(denom)), denom,
                                array_ops.ones_like(denom))
        denom_col = array_ops.reshape(denom, [-1] + [1] * (rank - 1)) if rank is not None \
            else array_ops.reshape(denom, array_ops.shape(w_col))
        return math_ops.divide(total, denom_col, name=combiner)


def safe_embedding_lookup_sparse(embedding_weights: Any, sparse_ids: Any,
                                 sparse_weights: Any = None, combiner: str = "mean",
                                 default_id: Optional[int] = None, name: Optional[str] = None,
                                 partition_strategy: str = "div", max_norm: Any = None
                                 ) -> Tensor:
    """``embedding_lookup_sparse`` that tolerates invalid and missing ids.

    Ids < 0 are dropped (and, except with ``combiner="sum"``, so are entries with
    a weight <= 0). A row left with no id gives the embedding of ``default_id``,
    or zeros when ``default_id`` is None. ``sparse_ids`` may have any rank >= 2:
    the result has shape ``sparse_ids.dense_shape[:-1] + embedding shape``.
    Note the default ``partition_strategy`` is ``"div"``.
    """
    fname = "safe_embedding_lookup_sparse"
    ids_sp, w_sp = _check_sparse_args(fname, sparse_ids, sparse_weights, combiner)
    shards = _shard_list(embedding_weights)
    if not shards:
        raise ValueError(f"{fname}: embedding_weights must not be empty")
    g = get_default_graph()
    with g.name_scope(name or "embedding_lookup"):
        dense_shape = ids_sp.dense_shape
        rank = dense_shape.shape[0] if dense_shape.shape.ndims == 1 else None
        if rank is not None and rank < 2:
            raise ValueError(f"{fname}: sparse_ids must have rank at least 2, got {rank}")
        ids_sp = _as_matrix(ids_sp)
        w_sp = _as_matrix(w_sp) if w_sp is not None else None
        keep = math_ops.greater_equal(ids_sp.values, 0)
        if w_sp is not None and combiner != "sum":
            keep = math_ops.logical_and(keep, math_ops.greater(
                w_sp.values, array_ops.zeros_like(w_sp.values)))
        ids_sp = sparse_ops.sparse_retain(ids_sp, keep)
        if w_sp is not None:
            w_sp = sparse_ops.sparse_retain(w_sp, keep)
        ids_sp, empty = sparse_ops.sparse_fill_empty_rows(ids_sp, default_id or 0)
        if w_sp is not None:
            w_sp, _ = sparse_ops.sparse_fill_empty_rows(w_sp, 1.0)
        result = embedding_lookup_sparse(shards, ids_sp, w_sp, partition_strategy=
                                         partition_strategy, combiner=combiner,
                                         max_norm=max_norm)
        if default_id is None:
            mask = array_ops.reshape(empty, [-1, 1])
            mask = math_ops.logical_and(mask, array_ops.ones_like(result, dtype=_dtypes.bool))
            result = array_ops.where(mask, array_ops.zeros_like(result), result)
        outer = array_ops.cast(dense_shape[:-1], _dtypes.int32)
        out = array_ops.reshape(result, array_ops.concat([outer, array_ops.shape(result)[1:]],
                                                         0))
        elem = _element_shape(shards)
        if isinstance(sparse_ids, SparseTensor):
            static = sparse_ids.shape
            if static.ndims is not None and elem.ndims is not None:
                out.set_shape(TensorShape(static.as_list()[:-1] + elem.as_list()))
        return out


def _as_matrix(sp: SparseTensor) -> SparseTensor:
    """A rank >= 2 sparse tensor as ``[prod(shape[:-1]), shape[-1]]`` (row-major rows)."""
    rank = sp.dense_shape.shape[0] if sp.dense_shape.shape.ndims == 1 else None
    if rank == 2:
        return sp
    shape = sp.dense_shape
    outer = array_ops.reshape(shape[:-1], [1, -1])
    strides = math_ops.cumprod(outer, axis=1, exclusive=True, reverse=True)
    rows = math_ops.reduce_sum(sp.indices[:, :-1] * strides, axis=1)
    indices = array_ops.stack([rows, sp.indices[:, -1]], axis=1)
    new_shape = array_ops.stack([math_ops.reduce_prod(shape[:-1]), shape[-1]])
    return SparseTensor(indices, sp.values, new_shape)


__all__ = ["embedding_lookup", "embedding_lookup_sparse", "safe_embedding_lookup_sparse"]
