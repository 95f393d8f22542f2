"""``tf.estimator.inputs``: input functions over numpy arrays held in memory.

``numpy_input_fn`` slices a dict of arrays (and labels) into batches through a
``tf.data`` pipeline: shuffled when asked, repeated ``num_epochs`` times (forever
when None), the last batch of a finite input possibly smaller. (``pandas_input_fn``
is not provided: tensorfleet does not depend on pandas.)
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Optional, Tuple

import numpy as np

from tensorfleet.data.dataset_ops import Dataset

logger = logging.getLogger(__name__)


def _check_arrays(x: Any, y: Any) -> Tuple[Any, Any, int]:
    if isinstance(x, dict):
        if not x:
            raise ValueError("x cannot be an empty dict")
        feats: Any = {str(k): np.asarray(v) for k, v in x.items()}
        lengths = {k: (v.shape[0] if v.ndim else None) for k, v in feats.items()}
    else:
        feats = np.asarray(x)
        lengths = {"x": feats.shape[0] if feats.ndim else None}
    if y is not None:
        if isinstance(y, dict):
            raise ValueError("y as a dict is not supported; give an array of labels")
        y = np.asarray(y)
        lengths["y"] = y.shape[0] if y.ndim else None
    if any(n is None for n in lengths.values()):
        raise ValueError(f"Every array needs a batch dimension; got lengths {lengths}")
    if len(set(lengths.values())) != 1:
        raise ValueError(f"Length of tensors in x and y is mismatched. All elements in x and "
                         f"y must have the same length. Lengths: {lengths}")
    return feats, y, next(iter(lengths.values()))


def numpy_input_fn(x: Any, y: Any = None, batch_size: int = 128, num_epochs: Optional[int] = 1,
                   shuffle: Optional[bool] = None, queue_capacity: int = 1000,
                   num_threads: int = 1) -> Callable[[], Any]:
    """An input fn giving ``(features, labels)`` batches from numpy arrays.

    Args:
      x: a dict of feature name -> array (or one array), first dimension the examples.
      y: labels (an array), or None.
      batch_size: examples per batch.
      num_epochs: passes over the data; None repeats forever.
      shuffle: whether to shuffle (must be given, as in TensorFlow).
      queue_capacity: the shuffle buffer (in examples).
      num_threads: accepted for compatibility; batches are built in order of the pipeline.

    Raises:
      ValueError: ``shuffle`` not given, bad sizes, or arrays of different lengths.
    """
    if not isinstance(shuffle, bool):
        raise ValueError(f"shuffle must be provided explicitly as a bool, got {shuffle!r}")
    if int(batch_size) < 1:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    if num_epochs is not None and int(num_epochs) < 1:
        raise ValueError(f"num_epochs must be None or positive, got {num_epochs}")
    feats, labels, n = _check_arrays(x, y)

    def input_fn() -> Any:
        data: Any = (feats, labels) if labels is not None else feats
        ds = Dataset.from_tensor_slices(data)
        if shuffle:
            ds = ds.shuffle(max(1, min(int(queue_capacity), n)))
        ds = ds.repeat(num_epochs)
        return ds.batch(int(batch_size))

    return input_fn


__all__ = ["numpy_input_fn"]
