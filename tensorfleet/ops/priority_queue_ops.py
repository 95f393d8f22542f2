"""``tf.PriorityQueue`` (also ``tf.queue.PriorityQueue``, ``tf.io.PriorityQueue``): a queue
whose dequeues take the element of smallest priority first."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.op_registry import register_op
from tensorfleet.ops.data_flow_ops import (QueueBase, _as_shape_list, _as_type_list,
    _handle_shape, _queue_op)

register_op("PriorityQueueV2", _handle_shape, stateful=True, ref_output=True)


class PriorityQueue(QueueBase):
    """Elements are ``(priority, *components)``: an int64 scalar priority (component 0)
    before the components of ``types``; dequeues return the smallest priority first, in
    enqueue order among equal priorities.

    Args:
      capacity: the most elements held at once (enqueues block beyond it).
      types: the dtypes of the components after the priority.
      shapes: one fully defined shape per component of ``types``.
      shared_name: share the queue under this name on its task.

    Raises:
      ValueError: ``names`` (elements are positional: the priority comes first).
    """

    def __init__(self, capacity: int, types: Any, shapes: Any = None, names: Any = None,
                 shared_name: Optional[str] = None, name: str = "priority_queue"):
        if names is not None:
            raise ValueError("PriorityQueue: names are not supported; elements are "
                             "(priority, *components)")
        dts = [_dtypes.int64] + _as_type_list(types)
        shp = None if shapes is None else _as_shape_list([[]] + list(shapes), dts,
                                                          unknown_dim_allowed=False)
        ref = _queue_op("PriorityQueueV2", capacity, dts, shp, shared_name, name)
        super().__init__(dts, shp, None, ref)


__all__ = ["PriorityQueue"]
