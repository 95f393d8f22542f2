"""``group_by_window`` and ``bucket_by_sequence_length``: elements grouped by a key (or a
length bucket) and batched group by group, inside the iterator kernel.

Each group collects elements until it holds its window size; the group's elements then
go through the reduction (``reduce_func(key, window)``, which must return the window
data set transformed by batch, padded_batch, map, filter, take or skip), and what it
yields is emitted at once. When the input ends, the groups that are not full are reduced
in ascending key order, as TensorFlow does.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.data import dataset_compose as _compose
from tensorfleet.data.dataset_ops import Dataset, _count, _KernelStage
from tensorfleet.data.iterator_ops import ComponentSpec, flatten, map_structure
from tensorfleet.framework.graph import Graph
from tensorfleet.ops.array_ops import placeholder

Transformation = Callable[[Dataset], Dataset]
# The stages a window's reduction may use (all of them run on the window's values).
_REDUCE_STAGES = ("batch", "padded_batch", "map", "filter", "take", "skip", "unbatch")


def _scalar_function(what: str, fn: Callable[..., Any], in_spec: Any) -> Dict[str, Any]:
    stage, out = _compose.function_stage("map", fn, in_spec)
    comps = flatten(out)
    if len(comps) != 1 or comps[0].dtype not in (_dtypes.int32, _dtypes.int64) or \
            comps[0].shape.ndims not in (None, 0):
        raise ValueError(f"{what} must return a scalar int32 or int64 tensor, got {out}")
    return stage


def _reduce_stages(reduce_func: Callable[..., Any], spec: Any) -> tuple:
    window = Dataset({"kind": "window"}, [], spec)
    g = Graph()
    with g.as_default():
        key = placeholder(_dtypes.int64, [], name="key")
        try:
            out = reduce_func(key, window)
        except errors.UnimplementedError as e:
            raise ValueError(f"group_by_window: reduce_func may use its key only to name "
                             f"values known when the data set is built ({e.message})") \
                from None
    if not isinstance(out, Dataset) or out._source.get("kind") != "window":
        raise ValueError("group_by_window: reduce_func must return the window data set it "
                         "is given, transformed (e.g. window.batch(n))")
    stages = out._kernel_stages(all_maps=True)
    bad = [s["op"] for s in stages if s["op"] not in _REDUCE_STAGES]
    if bad:
        raise ValueError(f"group_by_window: reduce_func may only use "
                         f"{', '.join(_REDUCE_STAGES)} on the window, not {bad[0]}")
    return stages, out._spec


def group_by_window(key_func: Callable[..., Any], reduce_func: Callable[..., Any],
                    window_size: Any = None,
                    window_size_func: Optional[Callable[..., Any]] = None) -> Transformation:
    """Groups elements by ``key_func(element)`` (a scalar integer) and emits
    ``reduce_func(key, window)`` for every window of ``window_size`` elements of one key
    (``window_size_func(key)`` gives the size per key instead).

    Raises:
      ValueError: both or neither of ``window_size`` and ``window_size_func``; functions
        that do not return scalar integers; a reduction other than the window data set
        transformed by batch, padded_batch, map, filter, take, skip or unbatch.
    """
    if (window_size is None) == (window_size_func is None):
        raise ValueError("group_by_window: give exactly one of window_size and "
                         "window_size_func")
    size = None if window_size is None else _count(window_size, "window_size", 1)

    def apply(ds: Dataset) -> Dataset:
        if not isinstance(ds, Dataset):
            raise TypeError(f"group_by_window is a transformation for Dataset.apply; it was "
                            f"applied to {type(ds).__name__}")
        key = _scalar_function("group_by_window key_func", key_func, ds._spec)
        stage: Dict[str, Any] = {"op": "group_by_window", "key": key, "window_size": size}
        if window_size_func is not None:
            stage["window_size_fn"] = _scalar_function(
                "group_by_window window_size_func", window_size_func,
                ComponentSpec(_dtypes.int64, []))
        stage["reduce"], spec = _reduce_stages(reduce_func, ds._spec)
        return ds._with(_KernelStage(stage, spec), spec)
    return apply


def _boundaries(bucket_boundaries: Sequence[Any], bucket_batch_sizes: Sequence[Any]) -> tuple:
    bounds = [_count(b, "bucket_boundaries entry", 1) for b in bucket_boundaries]
    if any(a >= b for a, b in zip(bounds, bounds[1:])):
        raise ValueError(f"bucket_by_sequence_length: bucket_boundaries must be strictly "
                         f"increasing, got {bounds}")
    sizes = [_count(b, "bucket_batch_sizes entry", 1) for b in bucket_batch_sizes]
    if len(sizes) != len(bounds) + 1:
        raise ValueError(f"bucket_by_sequence_length: len(bucket_batch_sizes) must equal "
                         f"len(bucket_boundaries) + 1, got {len(sizes)} and {len(bounds)}")
    return bounds, sizes


def bucket_by_sequence_length(element_length_func: Callable[..., Any],
                              bucket_boundaries: Sequence[int],
                              bucket_batch_sizes: Sequence[int], padded_shapes: Any = None,
                              padding_values: Any = None, pad_to_bucket_boundary: bool = False,
                              no_padding: bool = False,
                              drop_remainder: bool = False) -> Transformation:
    """Puts each element in the bucket of its length (``[0, b0)``, ``[b0, b1)``, ...,
    ``[b_last, inf)``) and emits a batch from a bucket whenever it holds that bucket's
    batch size, padded like ``padded_batch`` (to the bucket's boundary minus one with
    ``pad_to_bucket_boundary``; not padded with ``no_padding``).

    Raises:
      ValueError: boundaries not increasing, a batch-size list of the wrong length, a
        length function that does not return a scalar integer.
      InvalidArgumentError: (when run) with ``pad_to_bucket_boundary``, an element whose
        length is not below the last boundary.
    """
    bounds, sizes = _boundaries(bucket_boundaries, bucket_batch_sizes)

    def apply(ds: Dataset) -> Dataset:
        if not isinstance(ds, Dataset):
            raise TypeError(f"bucket_by_sequence_length is a transformation for "
                            f"Dataset.apply; it was applied to {type(ds).__name__}")
        length = _scalar_function("bucket_by_sequence_length element_length_func",
                                  element_length_func, ds._spec)
        stage: Dict[str, Any] = {"op": "bucket_by_sequence_length", "length": length,
                                 "boundaries": bounds, "batch_sizes": sizes,
                                 "pad_to_bucket_boundary": bool(pad_to_bucket_boundary),
                                 "drop_remainder": bool(drop_remainder),
                                 "no_padding": bool(no_padding)}
        if no_padding:
            if padded_shapes is not None or padding_values is not None:
                raise ValueError("bucket_by_sequence_length: no_padding=True takes no "
                                 "padded_shapes or padding_values")
            spec = map_structure(lambda c: c.batched(None), ds._spec)
        else:
            shapes = padded_shapes if padded_shapes is not None else map_structure(
                lambda c: c.shape, ds._spec)
            padded, spec = _compose.padded_stage(ds._spec, 1, shapes, padding_values, False)
            stage["padded_shapes"] = padded["padded_shapes"]
            stage["padding_values"] = padded["padding_values"]
        return ds._with(_KernelStage(stage, spec), spec)
    return apply


__all__ = ["group_by_window", "bucket_by_sequence_length"]
