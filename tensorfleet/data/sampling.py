"""``sample_from_datasets`` and ``choose_from_datasets``: one data set whose elements are
drawn from several others, at random by weight or as a data set of indices says.

Both are composite sources (like ``zip``): the children run inside the iterator kernel
and the draw happens there, so the pipeline still travels as plain data.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.data import dataset_compose as _compose
from tensorfleet.data.dataset_ops import Dataset
from tensorfleet.data.iterator_ops import ComponentSpec
from tensorfleet.framework.graph import Tensor, get_seed
from tensorfleet.ops.op_util import const_value


def _datasets(datasets: Sequence[Any], what: str) -> List[Dataset]:
    ds = list(datasets) if isinstance(datasets, (list, tuple)) else None
    if not ds or not all(isinstance(d, Dataset) for d in ds):
        raise TypeError(f"{what}: datasets must be a non-empty list of Datasets, got "
                        f"{datasets!r}")
    return ds


def _spec(ds: List[Dataset]) -> Any:
    spec = ds[0]._spec
    for d in ds[1:]:
        spec = _compose.most_specific_compatible(spec, d._spec)
    return spec


def _weights(weights: Any, n: int) -> List[float]:
    if weights is None:
        return [1.0 / n] * n
    if isinstance(weights, Dataset):
        raise errors.UnimplementedError(None, None, "sample_from_datasets: weights given as "
                                        "a Dataset are not supported; give a list")
    if isinstance(weights, Tensor):
        v = const_value(weights)
        if v is None:
            raise errors.UnimplementedError(None, None, "sample_from_datasets: weights must "
                                            "be known when the data set is built")
        weights = v
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.size != n:
        raise ValueError(f"sample_from_datasets: {w.size} weights for {n} data sets")
    if not np.all(np.isfinite(w)) or (w < 0).any() or w.sum() <= 0:
        raise ValueError(f"sample_from_datasets: weights must be non-negative and not all "
                         f"zero, got {w.tolist()}")
    return (w / w.sum()).tolist()


def sample_from_datasets(datasets: Sequence[Dataset], weights: Any = None,
                         seed: Optional[int] = None,
                         stop_on_empty_dataset: bool = False) -> Dataset:
    """Elements drawn at random from ``datasets``, data set ``i`` with probability
    ``weights[i]`` (uniform by default). An exhausted data set leaves the draw (the others'
    weights renormalised) or, with ``stop_on_empty_dataset``, ends the result.

    Raises:
      TypeError: ``datasets`` is not a list of Datasets, or their elements differ in
        structure or dtype.
      ValueError: weights of the wrong length, negative, or all zero.
    """
    ds = _datasets(datasets, "sample_from_datasets")
    w = _weights(weights, len(ds))
    graph_seed, op_seed = get_seed(seed)
    seeds = None if graph_seed is None and op_seed is None else [
        int(graph_seed or 0) & (2 ** 63 - 1), int(op_seed or 0) & (2 ** 63 - 1)]
    source = {"kind": "sample", "children": [_compose.child(d) for d in ds], "weights": w,
              "seed": seeds, "stop_on_empty": bool(stop_on_empty_dataset)}
    return Dataset(source, [leaf for d in ds for leaf in d._leaves], _spec(ds))


def choose_from_datasets(datasets: Sequence[Dataset], choice_dataset: Dataset,
                         stop_on_empty_dataset: bool = False) -> Dataset:
    """For every element ``i`` of ``choice_dataset`` (int64 scalars), the next element of
    ``datasets[i]``. A choice of an exhausted data set is skipped or, with
    ``stop_on_empty_dataset``, ends the result.

    Raises:
      TypeError: ``choice_dataset`` does not yield int64 scalars, or the data sets' elements
        differ in structure or dtype.
      InvalidArgumentError: (when run) a choice outside ``[0, len(datasets))``.
    """
    ds = _datasets(datasets, "choose_from_datasets")
    spec = choice_dataset._spec if isinstance(choice_dataset, Dataset) else None
    if not isinstance(spec, ComponentSpec) or spec.dtype is not _dtypes.int64 or \
            spec.shape.ndims != 0:
        raise TypeError(f"choose_from_datasets: choice_dataset must yield int64 scalars, got "
                        f"{spec}")
    children = [_compose.child(choice_dataset)] + [_compose.child(d) for d in ds]
    source = {"kind": "choose", "children": children,
              "stop_on_empty": bool(stop_on_empty_dataset)}
    leaves = list(choice_dataset._leaves) + [leaf for d in ds for leaf in d._leaves]
    return Dataset(source, leaves, _spec(ds))


__all__ = ["sample_from_datasets", "choose_from_datasets"]
