"""Collective ops: all-reduce, all-gather, broadcast, reduce-scatter, barrier in a graph.

Each op runs its collective on the process's group named by the ``group_key``
attr (``"default"`` unless given; see ``tensorfleet.collectives.init``) and
blocks until it is complete, so it fits in a step like any other kernel. Every
rank must run the same collective ops in the same order; a graph built by the
same program on every rank does.

``CollectiveAllReduce`` takes several tensors and reduces them as one fused
buffer per dtype. For overlap with the backward pass there is also a split
form: ``CollectiveAllReduceStart`` starts the reduction on the group's
background thread and returns a handle at once; ``CollectiveAllReduceWait``
takes the handle and returns the results. Ops that run between the two compute
while the bytes travel.

The attrs are plain data: ``group_key`` (str), ``reduction`` ("sum", "mean",
"max", "min"), ``compression`` ("none", "fp16"), ``timeout`` (seconds; 0 for the
group's own), ``root`` (broadcast).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Union

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, as_shape, scalar, unknown_shape
from tensorfleet.ops.op_util import make_op, no_outputs

DEFAULT_GROUP_KEY = "default"


def _same_shapes(op: Operation) -> List[TensorShape]:
    return [t.shape for t in op.inputs]


def _rows_unknown(op: Operation) -> List[TensorShape]:
    shape = op.inputs[0].shape
    if shape.ndims is None:
        return [unknown_shape()]
    return [TensorShape([None] + shape.as_list()[1:])]


def _handle_shape(op: Operation) -> List[TensorShape]:
    return [scalar()]


def _wait_shapes(op: Operation) -> List[TensorShape]:
    shapes = op.attrs.get("shapes") or [None] * len(op.outputs)
    return [unknown_shape() if s is None else as_shape(s) for s in shapes]


register_op("CollectiveAllReduce", _same_shapes, stateful=True)
register_op("CollectiveAllReduceStart", _handle_shape, stateful=True)
register_op("CollectiveAllReduceWait", _wait_shapes, stateful=True)
register_op("CollectiveAllGather", _rows_unknown, stateful=True)
register_op("CollectiveBroadcast", _same_shapes, stateful=True)
register_op("CollectiveReduceScatter", _rows_unknown, stateful=True)
register_op("CollectiveBarrier", no_outputs, stateful=True)

TensorOrList = Union[Any, Sequence[Any]]


def _attrs(group_key: str, timeout: Optional[float], **extra: Any) -> dict:
    if not isinstance(group_key, str) or not group_key:
        raise ValueError(f"group_key must be a non-empty string, got {group_key!r}")
    if timeout is not None and not float(timeout) > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    out = {"group_key": group_key, "timeout": float(timeout or 0.0)}
    out.update(extra)
    return out


def _tensors(values: TensorOrList) -> tuple:
    single = not isinstance(values, (list, tuple))
    tensors = [convert_to_tensor(v) for v in ([values] if single else values)]
    if not tensors:
        raise ValueError("a collective op needs at least one tensor")
    return tensors, single


_REDUCTIONS = ("sum", "mean", "max", "min")
_COMPRESSIONS = ("none", "fp16")


def _check_reduction(reduction: str) -> str:
    name = str(reduction).lower()
    if name not in _REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}; use one of {list(_REDUCTIONS)}")
    return name


def _check_compression(compression: Optional[str]) -> str:
    name = "none" if compression in (None, "", False) else str(compression).lower()
    if name not in _COMPRESSIONS:
        raise ValueError(f"unknown compression {compression!r}; use one of "
                         f"{list(_COMPRESSIONS)}")
    return name


def all_reduce(values: TensorOrList, reduction: str = "sum",
               group_key: str = DEFAULT_GROUP_KEY, compression: Optional[str] = None,
               timeout: Optional[float] = None, name: Optional[str] = None) -> TensorOrList:
    """The element-wise reduction of ``values`` over every rank of the group.

    Args:
      values: a tensor, or a list of tensors reduced together (fused per dtype).
      reduction: "sum", "mean", "max" or "min".
      compression: "fp16" sends float tensors as float16 on the wire.
      timeout: seconds a peer may stay silent (default: the group's).

    Returns:
      A tensor (or a list, matching ``values``) of the same shapes and dtypes.
    """
    tensors, single = _tensors(values)
    attrs = _attrs(group_key, timeout, reduction=_check_reduction(reduction),
                   compression=_check_compression(compression))
    op = make_op("CollectiveAllReduce", tensors, [t.dtype for t in tensors], attrs,
                 name=name or "CollectiveAllReduce")
    return op.outputs[0] if single else list(op.outputs)


def all_reduce_start(values: Sequence[Any], reduction: str = "sum",
                     group_key: str = DEFAULT_GROUP_KEY, compression: Optional[str] = None,
                     timeout: Optional[float] = None, name: Optional[str] = None) -> Tensor:
    """Starts a fused all-reduce of ``values``; returns an int64 handle for ``all_reduce_wait``."""
    tensors, _ = _tensors(list(values))
    attrs = _attrs(group_key, timeout, reduction=_check_reduction(reduction),
                   compression=_check_compression(compression))
    return make_op("CollectiveAllReduceStart", tensors, [_dtypes.int64], attrs,
                   name=name or "CollectiveAllReduceStart").outputs[0]


def all_reduce_wait(handle: Tensor, dtypes: Sequence[Any], shapes: Sequence[Any],
                    name: Optional[str] = None) -> List[Tensor]:
    """The results of the all-reduce that produced ``handle``, one per started tensor."""
    dts = [_dtypes.as_dtype(d) for d in dtypes]
    plain = [None if s is None or as_shape(s).ndims is None else as_shape(s).as_list()
             for s in shapes]
    op = make_op("CollectiveAllReduceWait", [handle], dts,
                 {"T": [d.name for d in dts], "shapes": plain},
                 name=name or "CollectiveAllReduceWait")
    return list(op.outputs)


def all_gather(value: Any, group_key: str = DEFAULT_GROUP_KEY,
               timeout: Optional[float] = None, name: Optional[str] = None) -> Tensor:
    """Every rank's ``value`` concatenated along axis 0 in rank order (row counts may differ)."""
    t = convert_to_tensor(value)
    return make_op("CollectiveAllGather", [t], [t.dtype], _attrs(group_key, timeout),
                   name=name or "CollectiveAllGather").outputs[0]


def broadcast(values: TensorOrList, root: int = 0, group_key: str = DEFAULT_GROUP_KEY,
              timeout: Optional[float] = None, name: Optional[str] = None) -> TensorOrList:
    """``root``'s values on every rank; the others pass tensors of the same shapes."""
    tensors, single = _tensors(values)
    if isinstance(root, bool) or not isinstance(root, int) or root < 0:
        raise ValueError(f"root must be a rank (a non-negative int), got {root!r}")
    op = make_op("CollectiveBroadcast", tensors, [t.dtype for t in tensors],
                 _attrs(group_key, timeout, root=root), name=name or "CollectiveBroadcast")
    return op.outputs[0] if single else list(op.outputs)


def reduce_scatter(value: Any, reduction: str = "sum", group_key: str = DEFAULT_GROUP_KEY,
                   timeout: Optional[float] = None, name: Optional[str] = None) -> Tensor:
    """This rank's rows (split along axis 0 like ``np.array_split``) of the reduction."""
    t = convert_to_tensor(value)
    return make_op("CollectiveReduceScatter", [t], [t.dtype],
                   _attrs(group_key, timeout, reduction=_check_reduction(reduction)),
                   name=name or "CollectiveReduceScatter").outputs[0]


def barrier(group_key: str = DEFAULT_GROUP_KEY, timeout: Optional[float] = None,
            name: Optional[str] = None) -> Operation:
    """An op that completes once every rank of the group has run it."""
    return make_op("CollectiveBarrier", [], [], _attrs(group_key, timeout),
                   name=name or "CollectiveBarrier")


__all__ = ["DEFAULT_GROUP_KEY", "all_reduce", "all_reduce_start", "all_reduce_wait",
           "all_gather", "broadcast", "reduce_scatter", "barrier"]
