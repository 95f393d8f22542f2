"""``slim.prefetch_queue.prefetch_queue``: a queue that background threads keep filled
with ready batches, so a training step dequeues instead of waiting on the input
pipeline (``batch_queue = prefetch_queue([images, labels]); images, labels =
batch_queue.dequeue()``)."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet.framework.graph import convert_to_tensor, name_scope
from tensorfleet.ops import array_ops, data_flow_ops, math_ops
from tensorfleet.ops.summary_ops import scalar
from tensorfleet.training.queue_runner import QueueRunner, add_queue_runner


def prefetch_queue(tensors: Any, capacity: int = 8, num_threads: int = 1,
                   dynamic_pad: bool = False, shared_name: Optional[str] = None,
                   name: Optional[str] = None) -> data_flow_ops.QueueBase:
    """A queue of up to ``capacity`` copies of ``tensors`` (a list, or a dict whose
    dequeue gives a dict), kept full by ``num_threads`` queue-runner threads; records
    a ``fraction_of_<capacity>_full`` scalar summary.

    Raises:
      ValueError: empty ``tensors``, or a capacity or thread count below one.
    """
    if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
        raise ValueError(f"prefetch_queue: capacity must be a positive int, got {capacity!r}")
    if isinstance(num_threads, bool) or not isinstance(num_threads, int) or num_threads < 1:
        raise ValueError(f"prefetch_queue: num_threads must be a positive int, got "
                         f"{num_threads!r}")
    names = list(tensors) if isinstance(tensors, dict) else None
    leaves = [tensors[n] for n in names] if names is not None else list(tensors)
    if not leaves:
        raise ValueError("prefetch_queue: tensors must not be empty")
    with name_scope(name, "prefetch_queue"):
        ts = [convert_to_tensor(t) for t in leaves]
        dtypes = [t.dtype for t in ts]
        shapes = [t.shape for t in ts]
        if dynamic_pad:
            queue: data_flow_ops.QueueBase = data_flow_ops.PaddingFIFOQueue(
                capacity, dtypes, shapes, names=names, shared_name=shared_name)
        else:
            queue = data_flow_ops.FIFOQueue(capacity, dtypes, shapes, names=names,
                                            shared_name=shared_name)
        enqueue = queue.enqueue(dict(zip(names, ts)) if names is not None else ts)
        add_queue_runner(QueueRunner(queue, [enqueue] * num_threads))
        scalar(f"fraction_of_{capacity}_full",
               math_ops.multiply(array_ops.cast(queue.size(), "float32"), 1.0 / capacity))
    return queue


__all__ = ["prefetch_queue"]
