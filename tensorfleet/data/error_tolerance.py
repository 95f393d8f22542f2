"""``tf.data.experimental.ignore_errors``: a data set that drops the elements whose
map or filter function fails (``kernels/numpy/dataset_error_kernels.py`` says how other
failures end it)."""

from __future__ import annotations

from typing import Any, Callable

from tensorfleet.data.dataset_ops import Dataset, _KernelStage, transformation_input

Transformation = Callable[[Dataset], Dataset]


def ignore_errors(log_warning: bool = False) -> Transformation:
    """Drops every element whose map or filter function raises an error (not the end of
    the sequence), logging each at WARNING with ``log_warning`` (DEBUG otherwise). A
    failure of any other stage ends the sequence where it happens.

    Raises:
      TypeError: ``log_warning`` is not a bool.
    """
    if not isinstance(log_warning, bool):
        raise TypeError(f"ignore_errors: log_warning must be a bool, got {log_warning!r}")

    def apply(ds: Any) -> Dataset:
        spec = transformation_input(ds, "ignore_errors")._spec
        return ds._with(_KernelStage({"op": "ignore_errors", "log_warning": log_warning},
                                     spec), spec)
    return apply


__all__ = ["ignore_errors"]
