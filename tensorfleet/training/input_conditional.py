"""``tf.train.maybe_batch`` / ``maybe_shuffle_batch`` and their ``_join`` forms: the
queue batchers of ``training/input.py`` that enqueue an element only where
``keep_input`` is true.

``keep_input`` is a scalar bool tensor (one element, or with ``enqueue_many`` all of
them) or, with ``enqueue_many``, a bool vector with one entry per element. The kept
elements go through the same queues and enqueue threads as ``tf.train.batch``: every
input becomes an ``enqueue_many`` of its kept rows, so a dropped element costs nothing
downstream.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops
from tensorfleet.training.input import (Structure, _flatten, _rebuild, batch, batch_join,
                                        shuffle_batch, shuffle_batch_join)


def _keep(keep_input: Any, enqueue_many: bool) -> Tensor:
    k = convert_to_tensor(keep_input, dtype=_dtypes.bool, name="keep_input")
    if k.dtype is not _dtypes.bool:
        raise TypeError(f"keep_input must be a bool tensor, got {k.dtype.name}")
    nd = k.shape.ndims
    if nd is None:
        raise ValueError("keep_input must have a known rank (0, or 1 with enqueue_many)")
    if nd > 1 or (nd == 1 and not enqueue_many):
        raise ValueError(f"keep_input must be a scalar{' or a vector' if enqueue_many else ''}"
                         f", got shape {k.shape}")
    return k


def _kept_rows(tensors: Structure, keep: Tensor, enqueue_many: bool) -> Structure:
    """``tensors`` as rows (one per element) with only the kept rows left."""
    leaves, key = _flatten(tensors)
    rows: List[Tensor] = []
    for i, x in enumerate(leaves):
        t = convert_to_tensor(x, name=f"component_{i}")
        if not enqueue_many:
            t = array_ops.expand_dims(t, 0)
        if keep.shape.ndims == 0:
            mask = array_ops.fill(array_ops.shape(t)[:1], keep)
        else:
            mask = keep
        rows.append(array_ops.boolean_mask(t, mask))
    return _rebuild(rows, key)


def _element_shapes(tensors: Structure, shapes: Any, enqueue_many: bool) -> Any:
    """The per-element shapes the queue needs (the masked rows lose their static size)."""
    if shapes is not None:
        return shapes
    leaves, _ = _flatten(tensors)
    out = []
    for x in leaves:
        s = convert_to_tensor(x).shape
        if enqueue_many:
            if s.ndims is None or s.ndims < 1:
                raise ValueError("maybe_batch: with enqueue_many every tensor needs a known "
                                 "rank >= 1, or pass shapes")
            s = s[1:]
        out.append(s)
    return out


def maybe_batch(tensors: Structure, keep_input: Any, batch_size: Any, num_threads: int = 1,
                capacity: int = 32, enqueue_many: bool = False, shapes: Any = None,
                dynamic_pad: bool = False, allow_smaller_final_batch: bool = False,
                shared_name: Optional[str] = None, name: Optional[str] = None) -> Structure:
    """``tf.train.batch`` of the elements for which ``keep_input`` is true."""
    with name_scope(name, "maybe_batch"):
        keep = _keep(keep_input, enqueue_many)
        elem = _element_shapes(tensors, shapes, enqueue_many)
        rows = _kept_rows(tensors, keep, enqueue_many)
        return batch(rows, batch_size, num_threads=num_threads, capacity=capacity,
                     enqueue_many=True, shapes=elem, dynamic_pad=dynamic_pad,
                     allow_smaller_final_batch=allow_smaller_final_batch,
                     shared_name=shared_name, name="batch")


def maybe_shuffle_batch(tensors: Structure, batch_size: Any, capacity: int,
                        min_after_dequeue: int, keep_input: Any, num_threads: int = 1,
                        seed: Optional[int] = None, enqueue_many: bool = False,
                        shapes: Any = None, allow_smaller_final_batch: bool = False,
                        shared_name: Optional[str] = None,
                        name: Optional[str] = None) -> Structure:
    """``tf.train.shuffle_batch`` of the elements for which ``keep_input`` is true."""
    with name_scope(name, "maybe_shuffle_batch"):
        keep = _keep(keep_input, enqueue_many)
        elem = _element_shapes(tensors, shapes, enqueue_many)
        rows = _kept_rows(tensors, keep, enqueue_many)
        return shuffle_batch(rows, batch_size, capacity, min_after_dequeue,
                             num_threads=num_threads, seed=seed, enqueue_many=True,
                             shapes=elem, allow_smaller_final_batch=allow_smaller_final_batch,
                             shared_name=shared_name, name="shuffle_batch")


def maybe_batch_join(tensors_list: Sequence[Structure], keep_input: Any, batch_size: Any,
                     capacity: int = 32, enqueue_many: bool = False, shapes: Any = None,
                     dynamic_pad: bool = False, allow_smaller_final_batch: bool = False,
                     shared_name: Optional[str] = None,
                     name: Optional[str] = None) -> Structure:
    """``tf.train.batch_join`` of the elements for which ``keep_input`` is true (one
    ``keep_input`` for every input list)."""
    if not tensors_list:
        raise ValueError("maybe_batch_join: tensors_list must not be empty")
    with name_scope(name, "maybe_batch_join"):
        keep = _keep(keep_input, enqueue_many)
        elem = _element_shapes(tensors_list[0], shapes, enqueue_many)
        rows = [_kept_rows(t, keep, enqueue_many) for t in tensors_list]
        return batch_join(rows, batch_size, capacity=capacity, enqueue_many=True, shapes=elem,
                          dynamic_pad=dynamic_pad,
                          allow_smaller_final_batch=allow_smaller_final_batch,
                          shared_name=shared_name, name="batch_join")


def maybe_shuffle_batch_join(tensors_list: Sequence[Structure], batch_size: Any,
                             capacity: int, min_after_dequeue: int, keep_input: Any,
                             seed: Optional[int] = None, enqueue_many: bool = False,
                             shapes: Any = None, allow_smaller_final_batch: bool = False,
                             shared_name: Optional[str] = None,
                             name: Optional[str] = None) -> Structure:
    """``tf.train.shuffle_batch_join`` of the elements for which ``keep_input`` is true."""
    if not tensors_list:
        raise ValueError("maybe_shuffle_batch_join: tensors_list must not be empty")
    with name_scope(name, "maybe_shuffle_batch_join"):
        keep = _keep(keep_input, enqueue_many)
        elem = _element_shapes(tensors_list[0], shapes, enqueue_many)
        rows = [_kept_rows(t, keep, enqueue_many) for t in tensors_list]
        return shuffle_batch_join(rows, batch_size, capacity, min_after_dequeue, seed=seed,
                                  enqueue_many=True, shapes=elem,
                                  allow_smaller_final_batch=allow_smaller_final_batch,
                                  shared_name=shared_name, name="shuffle_batch_join")


__all__ = ["maybe_batch", "maybe_shuffle_batch", "maybe_batch_join", "maybe_shuffle_batch_join"]
