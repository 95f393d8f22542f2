"""``tf.types.experimental.TensorLike``: the type of the values that ops accept as tensor
arguments (for annotations and ``isinstance`` checks)."""

from __future__ import annotations

from typing import Union

import numpy as np

from tensorfleet.framework.graph import Tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops.variables import Variable

TensorLike = Union[Tensor, SparseTensor, IndexedSlices, Variable, np.ndarray, np.generic,
                   bool, int, float, complex, str, bytes, list, tuple]

__all__ = ["TensorLike"]
