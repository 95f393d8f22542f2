"""Queue-based input pipelines: ``tf.train.batch``, ``shuffle_batch`` and the producers.

A producer (``input_producer`` and its string, range and slice variants) is a
FIFO queue that a ``QueueRunner`` keeps filled with the rows of a tensor, one
epoch per enqueue. A batcher (``batch``, ``shuffle_batch``) is a second queue,
filled by its own runner from the tensors it is given, and drained in batches.

End of input travels down the chain as queue closure: ``limit_epochs`` makes the
producer's enqueue fail with OutOfRangeError after ``num_epochs`` epochs, its
runner then closes the producer queue; the batcher's enqueue then fails on the
drained producer, its runner closes the batch queue, and the consumer's dequeue
finally raises OutOfRangeError once the last (possibly smaller) batch is out.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import (GraphKeys, Tensor, control_dependencies,
                                         convert_to_tensor, name_scope)
from tensorfleet.framework.tensor_shape import TensorShape, as_shape
from tensorfleet.ops import array_ops, control_flow_ops, data_flow_ops, math_ops, random_ops
from tensorfleet.ops import state_ops
from tensorfleet.ops.variables import Variable
from tensorfleet.training.queue_runner import QueueRunner, add_queue_runner

Structure = Union[Tensor, Sequence[Any], Dict[str, Any]]


# -- argument checks --------------------------------------------------------------------------

def _check_positive_int(value: Any, what: str, allow_tensor: bool = False) -> None:
    if allow_tensor and isinstance(value, Tensor):
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} must be an int, got {value!r}")
    if value < 1:
        raise ValueError(f"{what} must be at least 1, got {value}")


def _check_num_epochs(num_epochs: Optional[int]) -> None:
    if num_epochs is not None:
        _check_positive_int(num_epochs, "num_epochs")


# -- producers ----------------------------------------------------------------------------------

def limit_epochs(tensor: Any, num_epochs: Optional[int] = None,
                 name: Optional[str] = None) -> Tensor:
    """``tensor``, which may be computed ``num_epochs`` times before it raises
    OutOfRangeError; unlimited when ``num_epochs`` is None.

    The count lives in a local variable, so every session (and every
    ``local_variables_initializer`` run) starts from zero.
    """
    t = convert_to_tensor(tensor)
    if num_epochs is None:
        return t
    _check_num_epochs(num_epochs)
    with name_scope(name, "limit_epochs"):
        counter = Variable(0, dtype=_dtypes.int64, trainable=False,
                           collections=[GraphKeys.LOCAL_VARIABLES], name="epochs")
        counted = state_ops.count_up_to(counter, num_epochs)
        with control_dependencies([counted]):
            return array_ops.identity(t, name="fraction_of_epochs")


def input_producer(input_tensor: Any, element_shape: Any = None,
                   num_epochs: Optional[int] = None, shuffle: bool = True,
                   seed: Optional[int] = None, capacity: int = 32,
                   shared_name: Optional[str] = None, summary_name: Optional[str] = None,
                   name: Optional[str] = None,
                   cancel_op: Any = None) -> data_flow_ops.QueueBase:
    """A FIFO queue, kept filled by a registered ``QueueRunner``, of the rows of
    ``input_tensor`` (its slices along dimension 0).

    Each enqueue adds one whole epoch, permuted afresh when ``shuffle``. After
    ``num_epochs`` epochs the queue is closed, so dequeues drain it and then raise
    OutOfRangeError. ``summary_name`` is accepted for compatibility; no fill-level
    summary is recorded.
    """
    _check_num_epochs(num_epochs)
    _check_positive_int(capacity, "capacity")
    with name_scope(name, "input_producer"):
        t = convert_to_tensor(input_tensor, name="input_tensor")
        if t.shape.ndims == 0:
            raise ValueError(f"input_producer needs a tensor of rank >= 1 whose rows are "
                             f"produced, got a scalar {t.name}")
        elem = TensorShape(t.shape.as_list()[1:]) if t.shape.ndims is not None \
            else TensorShape(None)
        if element_shape is not None:
            elem = elem.merge_with(as_shape(element_shape))
        if shuffle:
            t = random_ops.random_shuffle(t, seed=seed)
        t = limit_epochs(t, num_epochs)
        shapes = [elem] if elem.is_fully_defined() else None
        q = data_flow_ops.FIFOQueue(capacity, [t.dtype], shapes=shapes,
                                    shared_name=shared_name, name="fifo_queue")
        enq = q.enqueue_many([t])
        add_queue_runner(QueueRunner(q, [enq], cancel_op=cancel_op))
    return q


def string_input_producer(string_tensor: Any, num_epochs: Optional[int] = None,
                          shuffle: bool = True, seed: Optional[int] = None,
                          capacity: int = 32, shared_name: Optional[str] = None,
                          name: Optional[str] = None,
                          cancel_op: Any = None) -> data_flow_ops.QueueBase:
    """``input_producer`` over a non-empty 1-D string tensor (typically file names)."""
    t = convert_to_tensor(string_tensor, dtype=_dtypes.string, name="string_tensor")
    if t.shape.ndims is not None and t.shape.ndims != 1:
        raise ValueError(f"string_input_producer needs a 1-D string tensor, got shape "
                         f"{t.shape}")
    n = t.shape.as_list()[0] if t.shape.ndims == 1 else None
    if n == 0:
        raise ValueError("string_input_producer needs a non-empty string tensor")
    if n is None:
        # The size is only known when the graph runs; an empty input would
        # otherwise produce nothing and leave consumers waiting forever.
        check = control_flow_ops.Assert(
            math_ops.greater(array_ops.size(t), 0),
            ["string_input_producer needs a non-empty string tensor"])
        with control_dependencies([check]):
            t = array_ops.identity(t)
    return input_producer(t, [], num_epochs, shuffle, seed, capacity, shared_name,
                          None, name, cancel_op)


def range_input_producer(limit: Any, num_epochs: Optional[int] = None, shuffle: bool = True,
                         seed: Optional[int] = None, capacity: int = 32,
                         shared_name: Optional[str] = None,
                         name: Optional[str] = None,
                         cancel_op: Any = None) -> data_flow_ops.QueueBase:
    """``input_producer`` of the int32 values ``0 .. limit - 1``."""
    if isinstance(limit, int) and not isinstance(limit, bool) and limit < 1:
        raise ValueError(f"range_input_producer needs limit >= 1, got {limit}")
    rng = array_ops.range(convert_to_tensor(limit, dtype=_dtypes.int32, name="limit"))
    return input_producer(rng, [], num_epochs, shuffle, seed, capacity, shared_name,
                          None, name, cancel_op)


def slice_input_producer(tensor_list: Sequence[Any], num_epochs: Optional[int] = None,
                         shuffle: bool = True, seed: Optional[int] = None,
                         capacity: int = 32, shared_name: Optional[str] = None,
                         name: Optional[str] = None) -> List[Tensor]:
    """One row of each tensor in ``tensor_list`` per evaluation, the same row index
    for all of them; the indices come from a ``range_input_producer``.

    Every tensor must have the same size along dimension 0.
    """
    if isinstance(tensor_list, (Tensor, dict)) or not isinstance(tensor_list, (list, tuple)):
        raise TypeError(f"slice_input_producer needs a list of tensors, got "
                        f"{type(tensor_list).__name__}")
    if not tensor_list:
        raise ValueError("slice_input_producer needs a non-empty list of tensors")
    with name_scope(name, "input_producer"):
        ts = [convert_to_tensor(x, name=f"component_{i}") for i, x in enumerate(tensor_list)]
        rows = None
        for t in ts:
            if t.shape.ndims == 0:
                raise ValueError(f"slice_input_producer needs tensors of rank >= 1, got the "
                                 f"scalar {t.name}")
            n = t.shape.as_list()[0] if t.shape.ndims is not None else None
            if n is not None and rows is not None and n != rows:
                raise ValueError(f"All tensors given to slice_input_producer must have the "
                                 f"same size along dimension 0: {rows} and {n} ({t.name})")
            rows = rows if n is None else n
        if rows == 0:
            raise ValueError("slice_input_producer needs tensors with at least one row")
        limit = rows if rows is not None else array_ops.shape(ts[0])[0]
        index_queue = range_input_producer(limit, num_epochs, shuffle, seed, capacity,
                                           shared_name)
        index = index_queue.dequeue()
        return [array_ops.gather(t, index) for t in ts]


# -- batchers ------------------------------------------------------------------------------------

def _flatten(tensors: Structure) -> Tuple[List[Any], Any]:
    """The leaves of ``tensors`` and a key to rebuild its structure."""
    if isinstance(tensors, dict):
        if not tensors:
            raise ValueError("Cannot batch an empty dictionary of tensors")
        keys = list(tensors)
        return [tensors[k] for k in keys], ("dict", keys)
    if isinstance(tensors, (list, tuple)):
        if not tensors:
            raise ValueError("Cannot batch an empty list of tensors")
        return list(tensors), ("list", type(tensors))
    return [tensors], ("single", None)


def _rebuild(values: List[Tensor], key: Any) -> Structure:
    kind, info = key
    if kind == "dict":
        return dict(zip(info, values))
    if kind == "list":
        return info(values) if info is tuple else list(values)
    return values[0]


def _element_shapes(ts: List[Tensor], shapes: Any, enqueue_many: bool,
                    dynamic_pad: bool) -> List[TensorShape]:
    if shapes is None:
        out = []
        for t in ts:
            s = t.shape
            if enqueue_many:
                if s.ndims == 0:
                    raise ValueError(f"enqueue_many=True needs tensors with a leading batch "
                                     f"dimension; {t.name} is a scalar")
                s = TensorShape(s.as_list()[1:]) if s.ndims is not None else TensorShape(None)
            out.append(s)
    else:
        if isinstance(shapes, dict):
            raise TypeError("shapes must be a list with one shape per tensor")
        out = [as_shape(s) for s in shapes]
        if len(out) != len(ts):
            raise ValueError(f"shapes has {len(out)} entries for {len(ts)} tensors")
    for t, s in zip(ts, out):
        if s.ndims is None or (not dynamic_pad and not s.is_fully_defined()):
            need = "a known rank" if dynamic_pad else "a fully defined shape"
            raise ValueError(f"Every tensor to batch needs {need} (pass shapes=); {t.name} "
                             f"has element shape {s}")
    return out


def _batch_via(queue: data_flow_ops.QueueBase, ts: List[Tensor], batch_size: Any,
               num_threads: int, enqueue_many: bool,
               allow_smaller_final_batch: bool) -> List[Tensor]:
    enq = queue.enqueue_many(ts) if enqueue_many else queue.enqueue(ts)
    # One op run by several threads: each run is its own step, so they overlap.
    add_queue_runner(QueueRunner(queue, [enq] * num_threads))
    if allow_smaller_final_batch:
        out = queue.dequeue_up_to(batch_size, name="batch")
    else:
        out = queue.dequeue_many(batch_size, name="batch")
    return [out] if isinstance(out, Tensor) else list(out)


def _check_batch_args(batch_size: Any, num_threads: int, capacity: int) -> None:
    _check_positive_int(batch_size, "batch_size", allow_tensor=True)
    _check_positive_int(num_threads, "num_threads")
    _check_positive_int(capacity, "capacity")


def batch(tensors: Structure, batch_size: Any, num_threads: int = 1, capacity: int = 32,
          enqueue_many: bool = False, shapes: Any = None, dynamic_pad: bool = False,
          allow_smaller_final_batch: bool = False, shared_name: Optional[str] = None,
          name: Optional[str] = None) -> Structure:
    """Batches ``tensors`` (a tensor, list or dict; returned in the same structure)
    through a FIFO queue filled by ``num_threads`` registered enqueue threads.

    With ``enqueue_many`` each tensor holds several elements along dimension 0.
    ``dynamic_pad`` pads elements to the longest of each batch along unknown dims.
    With ``allow_smaller_final_batch`` the last batch may hold fewer than
    ``batch_size`` elements once the input is exhausted; otherwise leftovers are
    dropped and OutOfRangeError is raised.
    """
    _check_batch_args(batch_size, num_threads, capacity)
    leaves, key = _flatten(tensors)
    with name_scope(name, "batch"):
        ts = [convert_to_tensor(x, name=f"component_{i}") for i, x in enumerate(leaves)]
        elem = _element_shapes(ts, shapes, enqueue_many, dynamic_pad)
        dts = [t.dtype for t in ts]
        if dynamic_pad:
            q: data_flow_ops.QueueBase = data_flow_ops.PaddingFIFOQueue(
                capacity, dts, elem, shared_name=shared_name, name="padding_fifo_queue")
        else:
            q = data_flow_ops.FIFOQueue(capacity, dts, elem, shared_name=shared_name,
                                        name="fifo_queue")
        out = _batch_via(q, ts, batch_size, num_threads, enqueue_many,
                         allow_smaller_final_batch)
    return _rebuild(out, key)


def shuffle_batch(tensors: Structure, batch_size: Any, capacity: int, min_after_dequeue: int,
                  num_threads: int = 1, seed: Optional[int] = None,
                  enqueue_many: bool = False, shapes: Any = None,
                  allow_smaller_final_batch: bool = False, shared_name: Optional[str] = None,
                  name: Optional[str] = None) -> Structure:
    """Like ``batch``, but through a ``RandomShuffleQueue``: each batch is drawn at
    random from the elements held, of which at least ``min_after_dequeue`` stay
    behind while the input lasts (a larger value mixes better and costs memory).
    """
    _check_batch_args(batch_size, num_threads, capacity)
    if not isinstance(min_after_dequeue, int) or isinstance(min_after_dequeue, bool) \
            or min_after_dequeue < 0:
        raise ValueError(f"min_after_dequeue must be a non-negative int, got "
                         f"{min_after_dequeue!r}")
    if min_after_dequeue >= capacity:
        raise ValueError(f"min_after_dequeue ({min_after_dequeue}) must be less than "
                         f"capacity ({capacity})")
    leaves, key = _flatten(tensors)
    with name_scope(name, "shuffle_batch"):
        ts = [convert_to_tensor(x, name=f"component_{i}") for i, x in enumerate(leaves)]
        elem = _element_shapes(ts, shapes, enqueue_many, dynamic_pad=False)
        q = data_flow_ops.RandomShuffleQueue(
            capacity, min_after_dequeue, [t.dtype for t in ts], elem, seed=seed,
            shared_name=shared_name, name="random_shuffle_queue")
        out = _batch_via(q, ts, batch_size, num_threads, enqueue_many,
                         allow_smaller_final_batch)
    return _rebuild(out, key)


# -- the join variants: several input lists, one enqueue thread each -------------------------

def _join_inputs(tensors_list: Sequence[Structure], shapes: Any, enqueue_many: bool,
                 dynamic_pad: bool, what: str) -> Tuple[List[List[Tensor]], List[TensorShape],
                                                        Any]:
    """The leaves of each entry of ``tensors_list`` (all alike), their element shapes,
    and the key to rebuild the structure."""
    if isinstance(tensors_list, (dict, Tensor)) or not tensors_list:
        raise ValueError(f"{what}: tensors_list must be a non-empty list of tensor lists or "
                         f"dicts, one per enqueue thread")
    flat = [_flatten(t) for t in tensors_list]
    key = flat[0][1]
    lists = []
    for i, (leaves, k) in enumerate(flat):
        if k != key or len(leaves) != len(flat[0][0]):
            raise ValueError(f"{what}: entry {i} of tensors_list is not structured like "
                             f"entry 0")
        lists.append([convert_to_tensor(x, name=f"component_{i}_{j}")
                      for j, x in enumerate(leaves)])
    dts = [t.dtype for t in lists[0]]
    for i, ts in enumerate(lists[1:], 1):
        if [t.dtype for t in ts] != dts:
            raise ValueError(f"{what}: entry {i} of tensors_list has dtypes "
                             f"{[t.dtype.name for t in ts]}, entry 0 "
                             f"{[d.name for d in dts]}")
    elem = _element_shapes(lists[0], shapes, enqueue_many, dynamic_pad)
    return lists, elem, key


def _join_via(queue: data_flow_ops.QueueBase, lists: List[List[Tensor]], batch_size: Any,
              enqueue_many: bool, allow_smaller_final_batch: bool) -> List[Tensor]:
    enqs = [queue.enqueue_many(ts) if enqueue_many else queue.enqueue(ts) for ts in lists]
    add_queue_runner(QueueRunner(queue, enqs))
    if allow_smaller_final_batch:
        out = queue.dequeue_up_to(batch_size, name="batch")
    else:
        out = queue.dequeue_many(batch_size, name="batch")
    return [out] if isinstance(out, Tensor) else list(out)


def batch_join(tensors_list: Sequence[Structure], batch_size: Any, capacity: int = 32,
               enqueue_many: bool = False, shapes: Any = None, dynamic_pad: bool = False,
               allow_smaller_final_batch: bool = False, shared_name: Optional[str] = None,
               name: Optional[str] = None) -> Structure:
    """Like ``batch``, from several alike inputs (typically one reader each): entry
    ``i`` of ``tensors_list`` is enqueued by its own thread into one FIFO queue, and
    batches are dequeued in the structure of the entries."""
    _check_batch_args(batch_size, 1, capacity)
    with name_scope(name, "batch_join"):
        lists, elem, key = _join_inputs(tensors_list, shapes, enqueue_many, dynamic_pad,
                                        "batch_join")
        dts = [t.dtype for t in lists[0]]
        if dynamic_pad:
            q: data_flow_ops.QueueBase = data_flow_ops.PaddingFIFOQueue(
                capacity, dts, elem, shared_name=shared_name, name="padding_fifo_queue")
        else:
            q = data_flow_ops.FIFOQueue(capacity, dts, elem, shared_name=shared_name,
                                        name="fifo_queue")
        out = _join_via(q, lists, batch_size, enqueue_many, allow_smaller_final_batch)
    return _rebuild(out, key)


def shuffle_batch_join(tensors_list: Sequence[Structure], batch_size: Any, capacity: int,
                       min_after_dequeue: int, seed: Optional[int] = None,
                       enqueue_many: bool = False, shapes: Any = None,
                       allow_smaller_final_batch: bool = False,
                       shared_name: Optional[str] = None,
                       name: Optional[str] = None) -> Structure:
    """Like ``shuffle_batch``, from several alike inputs, one enqueue thread each."""
    _check_batch_args(batch_size, 1, capacity)
    if not isinstance(min_after_dequeue, int) or isinstance(min_after_dequeue, bool) \
            or min_after_dequeue < 0:
        raise ValueError(f"min_after_dequeue must be a non-negative int, got "
                         f"{min_after_dequeue!r}")
    if min_after_dequeue >= capacity:
        raise ValueError(f"min_after_dequeue ({min_after_dequeue}) must be less than "
                         f"capacity ({capacity})")
    with name_scope(name, "shuffle_batch_join"):
        lists, elem, key = _join_inputs(tensors_list, shapes, enqueue_many, False,
                                        "shuffle_batch_join")
        q = data_flow_ops.RandomShuffleQueue(
            capacity, min_after_dequeue, [t.dtype for t in lists[0]], elem, seed=seed,
            shared_name=shared_name, name="random_shuffle_queue")
        out = _join_via(q, lists, batch_size, enqueue_many, allow_smaller_final_batch)
    return _rebuild(out, key)


__all__ = ["limit_epochs", "input_producer", "string_input_producer", "range_input_producer",
           "slice_input_producer", "batch", "shuffle_batch", "batch_join", "shuffle_batch_join"]
