"""``assert_cardinality`` and ``pad_to_cardinality``: a data set's element count checked
as it streams, or made up to a target with padding elements marked invalid."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.data.cardinality import INFINITE_CARDINALITY, count_of, plain_stages
from tensorfleet.data.dataset_ops import Dataset, _count, _KernelStage, transformation_input
from tensorfleet.data.iterator_ops import ComponentSpec, flatten, map_structure

Transformation = Callable[[Dataset], Dataset]


def assert_cardinality(expected_cardinality: Any) -> Transformation:
    """The data set unchanged, with cardinality ``expected_cardinality`` (or
    ``INFINITE_CARDINALITY``); iterating it raises FailedPreconditionError as soon as it
    yields more elements, or when it ends with fewer."""
    if isinstance(expected_cardinality, (int, np.integer)) and \
            int(expected_cardinality) == INFINITE_CARDINALITY:
        n = INFINITE_CARDINALITY
    else:
        n = _count(expected_cardinality, "assert_cardinality: expected_cardinality", 0)

    def apply(ds: Dataset) -> Dataset:
        spec = transformation_input(ds, "assert_cardinality")._spec
        return ds._with(_KernelStage({"op": "assert_cardinality", "cardinality": n}, spec),
                        spec)
    return apply


def pad_to_cardinality(cardinality: Any, mask_key: str = "valid") -> Transformation:
    """A data set of dict elements made up to ``cardinality`` elements: each element gets
    ``mask_key`` (a bool scalar) true, and elements of zeros with it false follow the last.

    Raises:
      ValueError: elements that are not dicts or already hold ``mask_key``, a component
        shape not fully known, or an input whose cardinality is unknown, infinite or above
        ``cardinality``.
    """
    n = _count(cardinality, "pad_to_cardinality: cardinality", 0)
    if not isinstance(mask_key, str):
        raise TypeError(f"pad_to_cardinality: mask_key must be a string, got {mask_key!r}")

    def apply(ds: Dataset) -> Dataset:
        spec = transformation_input(ds, "pad_to_cardinality")._spec
        if not isinstance(spec, dict):
            raise ValueError("pad_to_cardinality requires its input dataset to be a "
                             "dictionary.")
        if mask_key in spec:
            raise ValueError(f"pad_to_cardinality: the elements already hold the mask key "
                             f"{mask_key!r}")
        have = count_of(ds._source, plain_stages(ds), ds._leaves)
        if have < 0:
            raise ValueError(f"The dataset passed into pad_to_cardinality must have a known "
                             f"cardinality, but has cardinality {have}")
        if have > n:
            raise ValueError(f"The dataset passed into pad_to_cardinality must have a "
                             f"cardinality less than the target cardinality ({n}), but has "
                             f"cardinality {have}")
        comps = flatten(spec)
        if any(not c.shape.is_fully_defined() for c in comps):
            raise ValueError(f"pad_to_cardinality: every component shape must be fully known "
                             f"to make padding, got {spec}")
        padding = [np.full(c.shape.as_list(), b"", dtype=object) if c.dtype is _dtypes.string
                   else np.zeros(c.shape.as_list(), dtype=c.dtype.np) for c in comps]
        out = dict(spec)
        out[mask_key] = ComponentSpec(_dtypes.bool, [])
        marked = {k: map_structure(lambda c: 0, v) for k, v in out.items()}
        marked[mask_key] = 1
        stage = {"op": "pad_to_cardinality", "cardinality": n, "padding": padding,
                 "mask_index": flatten(marked).index(1)}
        return ds._with(_KernelStage(stage, out), out)
    return apply


__all__ = ["assert_cardinality", "pad_to_cardinality"]
