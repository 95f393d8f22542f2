"""``tf.contrib.training.bucket`` and ``bucket_by_sequence_length``: queue-based batching
that groups examples of similar size (sequence length) so a padded batch wastes little.

Each bucket has its own queue. The input threads put every example into the queue of
its bucket (an ``enqueue_many`` of the kept rows into each bucket's queue: exactly one
gets the example, or none when ``keep_input`` is false). One thread per bucket takes
``batch_size`` examples at a time from its queue and puts the batch, with the bucket
id, into one output queue that the returned tensors dequeue from. When the input runs
dry every bucket queue is closed, and with ``allow_smaller_final_batch`` the last
partial batch of each bucket still comes out.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.tensor_shape import TensorShape, as_shape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import data_flow_ops
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.control_flow_ops import group
from tensorfleet.training.input import Structure, _flatten, _rebuild
from tensorfleet.training.queue_runner import QueueRunner, add_queue_runner


def _per_bucket(value: Any, n: int, what: str) -> List[int]:
    vals = list(value) if isinstance(value, (list, tuple)) else [value] * n
    if len(vals) != n or any(isinstance(v, bool) or not isinstance(v, (int, np.integer))
                             or v < 1 for v in vals):
        raise ValueError(f"bucket: {what} must be a positive int or a list of {n} of them, "
                         f"got {value!r}")
    return [int(v) for v in vals]


def _shapes(ts: List[Tensor], shapes: Any, dynamic_pad: bool) -> List[TensorShape]:
    out = [t.shape for t in ts] if shapes is None else [as_shape(s) for s in shapes]
    if len(out) != len(ts):
        raise ValueError(f"bucket: shapes has {len(out)} entries for {len(ts)} tensors")
    for t, s in zip(ts, out):
        if s.ndims is None or (not dynamic_pad and not s.is_fully_defined()):
            need = "a known rank" if dynamic_pad else "a fully defined shape"
            raise ValueError(f"bucket: every tensor needs {need} (pass shapes= or "
                             f"dynamic_pad=True); {t.name} has shape {s}")
    return out


def bucket(tensors: Structure, which_bucket: Any, batch_size: Union[int, Sequence[int]],
           num_buckets: int, num_threads: int = 1, capacity: int = 32,
           bucket_capacities: Optional[Sequence[int]] = None, shapes: Any = None,
           dynamic_pad: bool = False, allow_smaller_final_batch: bool = False,
           keep_input: Any = True, shared_name: Optional[str] = None,
           name: Optional[str] = None) -> Tuple[Tensor, Structure]:
    """Batches single examples ``tensors`` per bucket ``which_bucket`` (an int32 scalar
    in ``[0, num_buckets)``).

    Returns:
      ``(bucket_id, batched)``: the bucket of the batch and the batch, in the structure
      of ``tensors``.

    Raises:
      ValueError: bad sizes or counts, or shapes that are not known enough.
    """
    if isinstance(num_buckets, bool) or not isinstance(num_buckets, int) or num_buckets < 1:
        raise ValueError(f"bucket: num_buckets must be a positive int, got {num_buckets!r}")
    sizes = _per_bucket(batch_size, num_buckets, "batch_size")
    caps = _per_bucket(bucket_capacities if bucket_capacities is not None else capacity,
                       num_buckets, "bucket_capacities")
    _per_bucket(num_threads, 1, "num_threads")
    leaves, key = _flatten(tensors)
    with name_scope(name, "bucket"):
        ts = [convert_to_tensor(x, name=f"component_{i}") for i, x in enumerate(leaves)]
        elem = _shapes(ts, shapes, dynamic_pad)
        dts = [t.dtype for t in ts]
        which = A.cast(convert_to_tensor(which_bucket, name="which_bucket"), _dtypes.int32)
        keep = convert_to_tensor(keep_input, dtype=_dtypes.bool, name="keep_input")
        queues = []
        for i in range(num_buckets):
            if dynamic_pad:
                queues.append(data_flow_ops.PaddingFIFOQueue(
                    caps[i], dts, elem, shared_name=None if shared_name is None
                    else f"{shared_name}_bucket_{i}", name=f"bucket_queue_{i}"))
            else:
                queues.append(data_flow_ops.FIFOQueue(
                    caps[i], dts, elem, shared_name=None if shared_name is None
                    else f"{shared_name}_bucket_{i}", name=f"bucket_queue_{i}"))
        enqueues = []
        for i, q in enumerate(queues):
            mask = A.reshape(M.logical_and(M.equal(which, i), keep), [1])
            enqueues.append(q.enqueue_many([A.boolean_mask(A.expand_dims(t, 0), mask)
                                            for t in ts]))
        put = group(*enqueues, name="enqueue_to_buckets")
        add_queue_runner(QueueRunner(
            queues[0], [put] * int(num_threads),
            close_op=group(*[q.close() for q in queues]),
            cancel_op=group(*[q.close(cancel_pending_enqueues=True) for q in queues])))
        batch_dim = sizes[0] if len(set(sizes)) == 1 and not allow_smaller_final_batch \
            else None
        top = data_flow_ops.PaddingFIFOQueue(
            capacity, [_dtypes.int32] + dts,
            [TensorShape([])] + [TensorShape([None]).concatenate(s) for s in elem],
            shared_name=shared_name, name="top_queue")
        moves = []
        for i, q in enumerate(queues):
            batch = q.dequeue_up_to(sizes[i]) if allow_smaller_final_batch \
                else q.dequeue_many(sizes[i])
            batch = [batch] if isinstance(batch, Tensor) else list(batch)
            moves.append(top.enqueue([A.constant(i, dtype=_dtypes.int32)] + batch))
        add_queue_runner(QueueRunner(top, moves))
        out = top.dequeue(name="dequeue")
        out = [out] if isinstance(out, Tensor) else list(out)
        for t, s in zip(out[1:], elem):
            t.set_shape(TensorShape([batch_dim]).concatenate(s))
        out[0].set_shape([])
    return out[0], _rebuild(out[1:], key)


def bucket_by_sequence_length(input_length: Any, tensors: Structure,
                              batch_size: Union[int, Sequence[int]],
                              bucket_boundaries: Sequence[int], num_threads: int = 1,
                              capacity: int = 32,
                              bucket_capacities: Optional[Sequence[int]] = None,
                              shapes: Any = None, dynamic_pad: bool = False,
                              allow_smaller_final_batch: bool = False, keep_input: Any = True,
                              shared_name: Optional[str] = None,
                              name: Optional[str] = None) -> Tuple[Tensor, Structure]:
    """``bucket`` with the bucket chosen by ``input_length`` (an int32 scalar): bucket
    ``i`` holds lengths in ``[bucket_boundaries[i-1], bucket_boundaries[i])``, the first
    and last open-ended (``len(bucket_boundaries) + 1`` buckets).

    Returns:
      ``(lengths, batched)``: the batch's lengths and the batch of ``tensors``.

    Raises:
      ValueError: boundaries not strictly increasing, or what ``bucket`` refuses.
    """
    bounds = [int(b) for b in bucket_boundaries]
    if not bounds or any(b >= c for b, c in zip(bounds, bounds[1:])):
        raise ValueError(f"bucket_by_sequence_length: bucket_boundaries must be a non-empty, "
                         f"strictly increasing list, got {list(bucket_boundaries)}")
    with name_scope(name, "bucket_by_sequence_length"):
        length = A.cast(convert_to_tensor(input_length, name="input_length"), _dtypes.int32)
        if length.shape.ndims not in (None, 0):
            raise ValueError(f"bucket_by_sequence_length: input_length must be a scalar, got "
                             f"{length.shape}")
        length = A.reshape(length, [])
        which = M.reduce_sum(A.cast(M.greater_equal(length, A.constant(bounds)),
                                    _dtypes.int32))
        leaves, key = _flatten(tensors)
        leaf_shapes = None if shapes is None else [TensorShape([])] + \
            [as_shape(s) for s in shapes]
        _, out = bucket([length] + list(leaves), which, batch_size, len(bounds) + 1,
                        num_threads=num_threads, capacity=capacity,
                        bucket_capacities=bucket_capacities, shapes=leaf_shapes,
                        dynamic_pad=dynamic_pad,
                        allow_smaller_final_batch=allow_smaller_final_batch,
                        keep_input=keep_input, shared_name=shared_name, name="bucket")
    return out[0], _rebuild(list(out[1:]), key)


__all__ = ["bucket", "bucket_by_sequence_length"]
