"""``get_single_element``: the one element of a data set, as tensors computed afresh by
every step that uses them."""

from __future__ import annotations

from typing import Any

from tensorfleet.data.dataset_ops import Dataset
from tensorfleet.data.iterator_ops import flatten, pack_sequence_as
from tensorfleet.framework.graph import control_dependencies
from tensorfleet.ops.array_ops_core import shape, squeeze
from tensorfleet.ops.check_ops import assert_equal


def get_single_element(dataset: Dataset) -> Any:
    """The element of ``dataset``, which must have exactly one (the pipeline runs again
    in every step that evaluates the result).

    Raises:
      TypeError: ``dataset`` is not a Dataset.
      InvalidArgumentError: (when run) the data set has more than one element.
      OutOfRangeError: (when run) the data set is empty (TensorFlow raises
        InvalidArgumentError there).
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(f"get_single_element: expected a Dataset, got {type(dataset).__name__}")
    it = dataset.take(2).batch(2).make_initializable_iterator()
    with control_dependencies([it.initializer]):
        batch = it.get_next()
    leaves = flatten(batch)
    check = assert_equal(shape(leaves[0])[0], 1,
                         message="get_single_element: the data set must have exactly one "
                                 "element")
    with control_dependencies([check]):
        out = [squeeze(t, [0]) for t in leaves]
    return pack_sequence_as(batch, out)


__all__ = ["get_single_element"]
