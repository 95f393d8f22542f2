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
from tensorfleet.ops import array_ops, math_ops
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


def _div_route(flat_ids: Tensor, shards: List[Any], g: Any) -> Tuple[Tensor, Tensor]:
    n = len(shards)
    static = [_rows_static(s) for s in shards]
    if None not in static:
        total: Any = sum(static)
        if total < n:
            raise ValueError(f"embedding_lookup with partition_strategy='div' needs at least one "
                             f"row per shard: {n} shards hold {total} rows in all")
        per, extras = divmod(total, n)
        per_t: Any = per
        extras_t: Any = extras
    else:
        # Shard sizes known only at run time: read each one where the shard lives.
        sizes = []
        for s in shards:
            with g.colocate_with(_colocation_op(s)):
                sizes.append(array_ops.shape(s, out_type=flat_ids.dtype)[0])
        total = math_ops.add_n(sizes) if len(sizes) > 1 else sizes[0]
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
    flat_ids = array_ops.reshape(ids, [-1])
    positions = array_ops.range(array_ops.size(flat_ids))
    if strategy == "mod":
        shard_of, row_of = _mod_route(flat_ids, n)
    else:
        shard_of, row_of = _div_route(flat_ids, shards, g)
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


def embedding_lookup_sparse(*args: Any, **kwargs: Any) -> Tensor:
    """Not provided: combine ``embedding_lookup`` with ``tf.segment_sum``-style ops.

    Raises:
      NotImplementedError: always.
    """
    raise NotImplementedError("tf.nn.embedding_lookup_sparse is not implemented in tensorfleet; "
                              "use embedding_lookup on the sparse ids' values and sum the rows "
                              "with tf.unsorted_segment_sum")


__all__ = ["embedding_lookup", "embedding_lookup_sparse"]
