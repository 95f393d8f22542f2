"""``tf.data.experimental.rejection_resample``: a data set resampled so that the classes of
its elements follow a target distribution (``kernels/numpy/dataset_resample_kernels.py``).

As TensorFlow does, each output element is, with probability ``m``, the next input element
as it is, and otherwise the next input element that passes rejection sampling with
acceptance probabilities ``a``; ``m`` and ``a`` are chosen so that the mixture has the
target distribution while rejecting as little as possible. Without ``initial_dist``, the
input's distribution is estimated from the class counts seen so far, updated every 32
elements. Each input element is used at most once.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from tensorfleet.data import dataset_compose as _compose
from tensorfleet.data.dataset_ops import Dataset, _KernelStage, transformation_input
from tensorfleet.data.grouping import _scalar_function
from tensorfleet.data.iterator_ops import ComponentSpec, flatten
from tensorfleet.framework.graph import Tensor, get_seed
from tensorfleet.ops.op_util import const_value

Transformation = Callable[[Dataset], Dataset]


def _distribution(value: Any, what: str) -> np.ndarray:
    if isinstance(value, Tensor):
        v = const_value(value)
        if v is None:
            raise ValueError(f"rejection_resample: {what} must be known when the data set is "
                             f"built; {value.name} is computed")
        value = v
    d = np.asarray(value, dtype=np.float64)
    if d.ndim != 1 or d.size == 0 or not np.all(np.isfinite(d)) or np.any(d < 0):
        raise ValueError(f"rejection_resample: {what} must be a non-empty vector of "
                         f"non-negative probabilities, got {d.tolist()}")
    return d


def rejection_resample(class_func: Callable[..., Any], target_dist: Any,
                       initial_dist: Any = None, seed: Optional[int] = None) -> Transformation:
    """Resamples the data set so that ``class_func(element)`` (a scalar int32/int64 in
    ``[0, len(target_dist))``) follows ``target_dist``; elements come out as
    ``(class, element)`` pairs.

    Raises:
      ValueError: distributions that are not vectors of non-negative numbers, of different
        lengths, or computed when the graph runs; a ``class_func`` that does not return a
        scalar integer.
      InvalidArgumentError: (when run) a class outside ``[0, len(target_dist))``.
    """
    target = _distribution(target_dist, "target_dist")
    initial = None if initial_dist is None else _distribution(initial_dist, "initial_dist")
    if initial is not None and initial.shape != target.shape:
        raise ValueError(f"rejection_resample: initial_dist has {initial.size} classes, "
                         f"target_dist {target.size}")
    graph_seed, op_seed = get_seed(seed)
    seeds = None if graph_seed is None and op_seed is None else [
        int(graph_seed or 0) & (2 ** 63 - 1), int(op_seed or 0) & (2 ** 63 - 1)]

    def apply(ds: Dataset) -> Dataset:
        transformation_input(ds, "rejection_resample")
        stage = {"op": "rejection_resample",
                 "class": _scalar_function("rejection_resample class_func", class_func,
                                           ds._spec),
                 "target": target, "initial": initial, "seed": seeds}
        _, out = _compose.function_stage("map", class_func, ds._spec)
        spec = (ComponentSpec(flatten(out)[0].dtype, []), ds._spec)
        return ds._with(_KernelStage(stage, spec), spec)
    return apply


__all__ = ["rejection_resample"]
