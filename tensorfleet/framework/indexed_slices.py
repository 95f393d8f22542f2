"""``IndexedSlices``: a sparse gradient (rows ``indices`` of a dense tensor)."""

from __future__ import annotations

from typing import Any, Callable, List, NamedTuple, Optional, Tuple

import numpy as np

from tensorfleet.framework.graph import Tensor


class IndexedSlices:
    """Rows ``indices`` of a dense tensor of shape ``dense_shape``, with ``values``.

    Gathers and embedding lookups produce it as their gradient so that optimizers
    update only the rows that were read.
    """

    def __init__(self, values: Tensor, indices: Tensor, dense_shape: Optional[Tensor] = None):
        self.values = values
        self.indices = indices
        self.dense_shape = dense_shape

    @property
    def dtype(self) -> Any:
        return self.values.dtype

    @property
    def graph(self) -> Any:
        return self.values.graph

    @property
    def name(self) -> str:
        return self.values.name

    @property
    def op(self) -> Any:
        return self.values.op

    @property
    def device(self) -> str:
        return self.values.device

    def _fetch_components(self) -> Tuple[List[Tensor], Callable[..., Any]]:
        parts = [self.values, self.indices]
        if self.dense_shape is not None:
            parts.append(self.dense_shape)
        return parts, lambda *v: IndexedSlicesValue(*v) if len(v) == 3 else IndexedSlicesValue(
            v[0], v[1], None)

    def __repr__(self) -> str:
        return f"IndexedSlices(indices={self.indices}, values={self.values})"


class IndexedSlicesValue(NamedTuple):
    """The fetched value of an ``IndexedSlices``."""

    values: np.ndarray
    indices: np.ndarray
    dense_shape: Optional[np.ndarray]


__all__ = ["IndexedSlices", "IndexedSlicesValue"]
