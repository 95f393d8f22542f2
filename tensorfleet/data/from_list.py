"""``tf.data.experimental.from_list``: a data set whose elements are the items of a Python
list, each a (nested) structure of values."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from tensorfleet.data.dataset_ops import Dataset
from tensorfleet.framework.graph import Tensor
from tensorfleet.data.iterator_ops import flatten, pack_sequence_as
from tensorfleet.ops.array_ops import stack


def _shape_of(structure: Any) -> Any:
    if isinstance(structure, tuple):
        return ("tuple", tuple(_shape_of(x) for x in structure))
    if isinstance(structure, dict):
        return ("dict", tuple((k, _shape_of(structure[k])) for k in sorted(structure)))
    return "leaf"


def from_list(elements: Sequence[Any], name: Any = None) -> Dataset:
    """The items of ``elements`` in order. Every item has the same structure, and each
    component the same shape and dtype across items.

    Raises:
      ValueError: an empty list, or items of different structures.
    """
    items = list(elements)
    if not items:
        raise ValueError("from_list: `elements` must not be empty")
    # tf.data structures: tuples and dicts nest, lists are values (as in TensorFlow).
    template = _shape_of(items[0])
    for i, item in enumerate(items[1:], 1):
        if _shape_of(item) != template:
            raise ValueError(f"from_list: element {i} has another structure than element 0")
    columns = list(zip(*[flatten(item) for item in items]))
    stacked = [stack(list(col)) if any(isinstance(v, Tensor) for v in col)
               else np.stack([np.asarray(v) for v in col]) for col in columns]
    return Dataset.from_tensor_slices(pack_sequence_as(items[0], stacked))


__all__ = ["from_list"]
