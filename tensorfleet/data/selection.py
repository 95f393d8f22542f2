"""``unique`` and ``take_while``: transformations that keep or stop at elements by their
values, run inside the iterator kernel."""

from __future__ import annotations

from typing import Any, Callable

from tensorfleet import dtypes as _dtypes
from tensorfleet.data import dataset_compose as _compose
from tensorfleet.data.dataset_ops import Dataset, _KernelStage
from tensorfleet.data.iterator_ops import ComponentSpec

Transformation = Callable[[Dataset], Dataset]


def _dataset(ds: Any, what: str) -> Dataset:
    if not isinstance(ds, Dataset):
        raise TypeError(f"{what} is a transformation for Dataset.apply; it was applied to "
                        f"{type(ds).__name__}")
    return ds


def unique() -> Transformation:
    """Each distinct element once, in the order of first occurrence.

    Raises:
      TypeError: elements that are not one int32, int64 or string scalar (as TensorFlow).
    """
    def apply(ds: Dataset) -> Dataset:
        spec = _dataset(ds, "unique")._spec
        if not isinstance(spec, ComponentSpec) or spec.shape.ndims != 0 or spec.dtype not in (
                _dtypes.int32, _dtypes.int64, _dtypes.string):
            raise TypeError(f"unique: elements must be one int32, int64 or string scalar, got "
                            f"{spec}")
        return ds._with(_KernelStage({"op": "unique"}, spec), spec)
    return apply


def take_while(predicate: Callable[..., Any]) -> Transformation:
    """The elements up to (not including) the first for which ``predicate`` is false.

    Raises:
      ValueError: a predicate that does not return a scalar bool tensor.
    """
    def apply(ds: Dataset) -> Dataset:
        spec = _dataset(ds, "take_while")._spec
        stage, _ = _compose.function_stage("filter", predicate, spec)
        stage["op"] = "take_while"
        return ds._with(_KernelStage(stage, spec), spec)
    return apply


__all__ = ["unique", "take_while"]
