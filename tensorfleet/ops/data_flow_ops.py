"""Queues: ``tf.FIFOQueue``, ``tf.PaddingFIFOQueue``, ``tf.RandomShuffleQueue`` and their ops.

A queue op outputs a *reference* to a queue resource kept in its task's resource
manager, exactly as ``VariableV2`` does for a variable. Every op that touches the
queue takes that reference as input 0 (a ref input), so placement runs it on the
queue's task: a queue on ``/job:ps/task:0`` is shared by every worker whose graph
declares it with the same ``shared_name`` (or op name).
"""

from __future__ import annotations

import contextlib
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, get_seed
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, as_shape, scalar, unknown_shape
from tensorfleet.ops.op_util import const_value, make_op, make_tensor, no_outputs

# -- op registrations ---------------------------------------------------------------------


def _handle_shape(op: Operation) -> List[TensorShape]:
    return [scalar()]


def _component_shapes(op: Operation) -> List[TensorShape]:
    """The element shapes declared by the queue op feeding input 0 of ``op``."""
    n = len(op.attrs.get("component_types") or [])
    declared = op.inputs[0].op.attrs.get("shapes") or []
    if len(declared) == n:
        return [as_shape(s) for s in declared]
    return [unknown_shape() for _ in range(n)]


def _dequeue_shape(op: Operation) -> List[TensorShape]:
    return _component_shapes(op)


def _dequeue_many_shape(op: Operation) -> List[TensorShape]:
    n = const_value(op.inputs[1])
    lead = TensorShape([None if n is None else int(n)])
    return [lead.concatenate(s) for s in _component_shapes(op)]


def _dequeue_up_to_shape(op: Operation) -> List[TensorShape]:
    return [TensorShape([None]).concatenate(s) for s in _component_shapes(op)]


for _t in ("FIFOQueueV2", "PaddingFIFOQueueV2", "RandomShuffleQueueV2"):
    register_op(_t, _handle_shape, stateful=True, ref_output=True)
register_op("QueueEnqueueV2", no_outputs, stateful=True, ref_inputs=(0,))
register_op("QueueEnqueueManyV2", no_outputs, stateful=True, ref_inputs=(0,))
register_op("QueueDequeueV2", _dequeue_shape, stateful=True, ref_inputs=(0,))
register_op("QueueDequeueManyV2", _dequeue_many_shape, stateful=True, ref_inputs=(0,))
register_op("QueueDequeueUpToV2", _dequeue_up_to_shape, stateful=True, ref_inputs=(0,))
register_op("QueueSizeV2", _handle_shape, stateful=True, ref_inputs=(0,))
register_op("QueueIsClosedV2", _handle_shape, stateful=True, ref_inputs=(0,))
register_op("QueueCloseV2", no_outputs, stateful=True, ref_inputs=(0,))


# -- argument normalization ---------------------------------------------------------------

def _as_type_list(dtypes: Any) -> List[_dtypes.DType]:
    if not isinstance(dtypes, (list, tuple)):
        dtypes = [dtypes]
    if not dtypes:
        raise ValueError("A queue needs at least one component dtype")
    return [_dtypes.as_dtype(d) for d in dtypes]


def _as_shape_list(shapes: Any, dtypes: List[_dtypes.DType],
                   unknown_dim_allowed: bool) -> Optional[List[TensorShape]]:
    """One TensorShape per component, or None when the queue does not constrain them."""
    if shapes is None:
        return None
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (list, tuple)):
        raise TypeError(f"shapes must be a list of shapes, got {shapes!r}")
    # A flat list of dims is one shape, the form used for single-component queues.
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]
    out = [as_shape(s) for s in shapes]
    if len(out) != len(dtypes):
        raise ValueError(f"shapes must have the same length as dtypes: got {len(out)} shapes "
                         f"for {len(dtypes)} dtypes")
    for s in out:
        if s.ndims is None:
            raise ValueError(f"Queue shapes must have a known rank, got {s}")
        if not unknown_dim_allowed and not s.is_fully_defined():
            raise ValueError(f"All shapes must be fully defined: {[str(x) for x in out]} "
                             f"(a PaddingFIFOQueue accepts None dims)")
    return out


def _as_name_list(names: Any, dtypes: List[_dtypes.DType]) -> Optional[List[str]]:
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError(f"names must have the same length as dtypes: got {len(names)} names "
                         f"for {len(dtypes)} dtypes")
    return [str(n) for n in names]


# -- the Python API -------------------------------------------------------------------------

class QueueBase:
    """Methods shared by every queue: enqueue, dequeue, size and close ops.

    Each method adds an op to the queue's graph and returns it; running that op
    in a session performs the queue operation on the queue's task.
    """

    def __init__(self, dtypes: Sequence[_dtypes.DType], shapes: Optional[List[TensorShape]],
                 names: Optional[List[str]], queue_ref: Tensor):
        self._dtypes = list(dtypes)
        self._shapes = shapes if shapes is not None else [unknown_shape() for _ in dtypes]
        self._names = names
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name

    @property
    def queue_ref(self) -> Tensor:
        """The reference tensor that every op of this queue reads."""
        return self._queue_ref

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtypes(self) -> List[_dtypes.DType]:
        return list(self._dtypes)

    @property
    def shapes(self) -> List[TensorShape]:
        return list(self._shapes)

    @property
    def names(self) -> Optional[List[str]]:
        return None if self._names is None else list(self._names)

    @contextlib.contextmanager
    def _on_queue(self) -> Iterator[None]:
        # Queue ops must run where the queue lives: its reference cannot cross tasks.
        with self._queue_ref.graph.colocate_with(self._queue_ref.op):
            yield

    def _components(self, vals: Any, batched: bool) -> List[Tensor]:
        """``vals`` as one tensor per component, checked against dtypes and shapes."""
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError(f"Queue {self._name!r} has no names, so it cannot enqueue a "
                                 f"dictionary")
            if sorted(vals) != sorted(self._names):
                raise ValueError(f"Keys of the dictionary to enqueue {sorted(vals)} do not "
                                 f"match the names of queue {self._name!r}: {self._names}")
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError(f"Queue {self._name!r} has names {self._names}: enqueue a "
                                 f"dictionary keyed by them")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        if len(vals) != len(self._dtypes):
            raise ValueError(f"Queue {self._name!r} holds {len(self._dtypes)} components but "
                             f"{len(vals)} values were given")
        out = []
        batch = TensorShape([None])
        for i, (v, dt, shape) in enumerate(zip(vals, self._dtypes, self._shapes)):
            t = convert_to_tensor(v, dtype=dt, name=f"component_{i}")
            elem = t.shape
            if batched:
                if t.shape.ndims == 0:
                    raise ValueError(f"enqueue_many on {self._name!r}: component {i} is a "
                                     f"scalar; it needs a leading batch dimension")
                if t.shape.ndims is not None:
                    batch = batch.merge_with(TensorShape(t.shape.as_list()[:1]))
                    elem = TensorShape(t.shape.as_list()[1:])
            if not elem.is_compatible_with(shape):
                raise ValueError(f"Shapes {elem} and {shape} are incompatible: component {i} "
                                 f"of queue {self._name!r}")
            out.append(t)
        return out

    def _result(self, tensors: List[Tensor]) -> Union[Tensor, List[Tensor], Dict[str, Tensor]]:
        if self._names:
            return dict(zip(self._names, tensors))
        return tensors[0] if len(tensors) == 1 else list(tensors)

    def _attrs(self) -> Dict[str, Any]:
        return {"component_types": list(self._dtypes), "timeout_ms": -1}

    def enqueue(self, vals: Any, name: Optional[str] = None) -> Operation:
        """An op that appends one element (a tensor, a list, or a dict by names);
        it blocks while the queue is full."""
        comps = self._components(vals, batched=False)
        with self._on_queue():
            return make_op("QueueEnqueueV2", [self._queue_ref] + comps, [], self._attrs(),
                           name=name or f"{self._name}_enqueue")

    def enqueue_many(self, vals: Any, name: Optional[str] = None) -> Operation:
        """An op that appends the elements formed by slicing ``vals`` along dim 0."""
        comps = self._components(vals, batched=True)
        with self._on_queue():
            return make_op("QueueEnqueueManyV2", [self._queue_ref] + comps, [], self._attrs(),
                           name=name or f"{self._name}_EnqueueMany")

    def dequeue(self, name: Optional[str] = None) -> Any:
        """Removes one element; a tensor for one component, else a list (a dict with
        names). Blocks while the queue is empty; OutOfRangeError once it is closed
        and drained."""
        with self._on_queue():
            op = make_op("QueueDequeueV2", [self._queue_ref], self._dtypes, self._attrs(),
                         name=name or f"{self._name}_Dequeue")
        return self._result(op.outputs)

    def _dequeue_n(self, op_type: str, n: Any, name: str) -> Any:
        with self._on_queue():
            n_t = convert_to_tensor(n, dtype=_dtypes.int32, name="n")
            if n_t.shape.ndims not in (None, 0):
                raise ValueError(f"{op_type}: n must be a scalar, got shape {n_t.shape}")
            op = make_op(op_type, [self._queue_ref, n_t], self._dtypes, self._attrs(),
                         name=name)
        return self._result(op.outputs)

    def dequeue_many(self, n: Any, name: Optional[str] = None) -> Any:
        """Removes ``n`` elements, each component stacked along a new dim 0."""
        return self._dequeue_n("QueueDequeueManyV2", n, name or f"{self._name}_DequeueMany")

    def dequeue_up_to(self, n: Any, name: Optional[str] = None) -> Any:
        """Like ``dequeue_many``, but a closed queue yields its last, smaller batch."""
        return self._dequeue_n("QueueDequeueUpToV2", n, name or f"{self._name}_DequeueUpTo")

    def close(self, cancel_pending_enqueues: bool = False,
              name: Optional[str] = None) -> Operation:
        """An op that closes the queue: later enqueues fail with CancelledError, and
        dequeues fail with OutOfRangeError once the remaining elements are taken.
        ``cancel_pending_enqueues`` also fails the enqueues blocked right now."""
        with self._on_queue():
            return make_op("QueueCloseV2", [self._queue_ref], [],
                           {"cancel_pending_enqueues": bool(cancel_pending_enqueues)},
                           name=name or f"{self._name}_Close")

    def size(self, name: Optional[str] = None) -> Tensor:
        """An int32 scalar: the number of elements in the queue."""
        with self._on_queue():
            return make_tensor("QueueSizeV2", [self._queue_ref], _dtypes.int32, {},
                               name=name or f"{self._name}_Size")

    def is_closed(self, name: Optional[str] = None) -> Tensor:
        """A bool scalar: whether the queue has been closed."""
        with self._on_queue():
            return make_tensor("QueueIsClosedV2", [self._queue_ref], _dtypes.bool, {},
                               name=name or f"{self._name}_IsClosed")


def _queue_op(op_type: str, capacity: int, dtypes: List[_dtypes.DType],
              shapes: Optional[List[TensorShape]], shared_name: Optional[str],
              name: str, extra: Optional[Dict[str, Any]] = None) -> Tensor:
    if not isinstance(capacity, int) or isinstance(capacity, bool):
        raise TypeError(f"capacity must be an int, got {capacity!r}")
    attrs = {"component_types": dtypes, "shapes": list(shapes or []), "capacity": capacity,
             "container": "", "shared_name": shared_name or ""}
    attrs.update(extra or {})
    return make_tensor(op_type, [], _dtypes.string, attrs, name=name)


class FIFOQueue(QueueBase):
    """``tf.FIFOQueue``: elements leave in the order they entered.

    Args:
      capacity: the most elements held at once (enqueues block beyond it).
      dtypes: one dtype per component of an element.
      shapes: optional fully defined shape per component.
      names: optional component names; then elements are enqueued and dequeued as dicts.
      shared_name: share the queue under this name with every session (and graph) on
        its task; by default it is shared under the queue op's name.
    """

    def __init__(self, capacity: int, dtypes: Any, shapes: Any = None, names: Any = None,
                 shared_name: Optional[str] = None, name: str = "fifo_queue"):
        dts = _as_type_list(dtypes)
        shp = _as_shape_list(shapes, dts, unknown_dim_allowed=False)
        nms = _as_name_list(names, dts)
        ref = _queue_op("FIFOQueueV2", capacity, dts, shp, shared_name, name)
        super().__init__(dts, shp, nms, ref)


class PaddingFIFOQueue(QueueBase):
    """``tf.PaddingFIFOQueue``: a FIFO queue whose ``dequeue_many`` zero-pads every
    component to the largest element of the batch along its ``None`` dims."""

    def __init__(self, capacity: int, dtypes: Any, shapes: Any, names: Any = None,
                 shared_name: Optional[str] = None, name: str = "padding_fifo_queue"):
        dts = _as_type_list(dtypes)
        if shapes is None:
            raise ValueError("PaddingFIFOQueue needs a shape (of known rank) per component")
        shp = _as_shape_list(shapes, dts, unknown_dim_allowed=True)
        nms = _as_name_list(names, dts)
        ref = _queue_op("PaddingFIFOQueueV2", capacity, dts, shp, shared_name, name)
        super().__init__(dts, shp, nms, ref)


class RandomShuffleQueue(QueueBase):
    """``tf.RandomShuffleQueue``: dequeues pick elements uniformly at random.

    Args:
      capacity: the most elements held at once (enqueues block beyond it).
      min_after_dequeue: while the queue is open, a dequeue waits until it can
        leave at least this many elements behind, so picks come from a mixed pool.
        Once closed, the remaining elements drain regardless.
      dtypes, shapes, names, shared_name: as for ``FIFOQueue``.
      seed: op-level seed, combined with the graph seed as for random ops.
    """

    def __init__(self, capacity: int, min_after_dequeue: int, dtypes: Any, shapes: Any = None,
                 names: Any = None, seed: Optional[int] = None,
                 shared_name: Optional[str] = None, name: str = "random_shuffle_queue"):
        if not isinstance(min_after_dequeue, int) or isinstance(min_after_dequeue, bool) \
                or min_after_dequeue < 0:
            raise ValueError(f"min_after_dequeue must be a non-negative int, got "
                             f"{min_after_dequeue!r}")
        if isinstance(capacity, int) and capacity >= 0 and min_after_dequeue >= capacity:
            raise ValueError(f"min_after_dequeue ({min_after_dequeue}) must be less than "
                             f"capacity ({capacity}), or no dequeue could ever proceed")
        dts = _as_type_list(dtypes)
        shp = _as_shape_list(shapes, dts, unknown_dim_allowed=False)
        nms = _as_name_list(names, dts)
        graph_seed, op_seed = get_seed(seed)
        extra = {"min_after_dequeue": int(min_after_dequeue),
                 "seed": None if graph_seed is None else int(graph_seed),
                 "seed2": None if op_seed is None else int(op_seed)}
        ref = _queue_op("RandomShuffleQueueV2", capacity, dts, shp, shared_name, name, extra)
        super().__init__(dts, shp, nms, ref)


__all__ = ["QueueBase", "FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue"]
