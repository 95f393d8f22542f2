"""``Counter`` and ``enumerate_dataset``: data sets of consecutive numbers, and elements
numbered by one. A counter runs to 2**62 (in steps of ``step``), for a training run
endless in practice."""

from __future__ import annotations

from typing import Any, Callable

from tensorfleet import dtypes as _dtypes
from tensorfleet.data.dataset_ops import Dataset, _count
from tensorfleet.ops.array_ops_core import cast

_LIMIT = 2 ** 62


def Counter(start: Any = 0, step: Any = 1, dtype: Any = _dtypes.int64) -> Dataset:  # noqa: N802
    """``start, start + step, start + 2 * step ...`` as ``dtype`` scalars.

    Raises:
      InvalidArgumentError: ``step`` 0.
      TypeError: a dtype that is not an integer or float type.
    """
    dt = _dtypes.as_dtype(dtype)
    if not (dt.is_integer or dt.is_floating):
        raise TypeError(f"Counter: dtype must be numeric, got {dt.name}")
    first = _count(start, "Counter start", -_LIMIT)
    by = _count(step, "Counter step", -_LIMIT)
    ds = Dataset.range(first, _LIMIT if by > 0 else -_LIMIT, by)
    return ds if dt is _dtypes.int64 else ds.map(lambda x: cast(x, dt))


def enumerate_dataset(start: Any = 0) -> Callable[[Dataset], Dataset]:
    """Elements as ``(index, element)``, the index counting from ``start`` (int64)."""
    first = _count(start, "enumerate_dataset start", -_LIMIT)

    def apply(ds: Dataset) -> Dataset:
        if not isinstance(ds, Dataset):
            raise TypeError(f"enumerate_dataset is a transformation for Dataset.apply; it "
                            f"was applied to {type(ds).__name__}")
        return Dataset.zip((Dataset.range(first, _LIMIT), ds))
    return apply


__all__ = ["Counter", "enumerate_dataset"]
