"""``tf.SparseTensor``: a sparse tensor as three dense tensors.

A ``SparseTensor`` of rank ``r`` with ``N`` stored entries is

* ``indices``: int64 ``[N, r]``, the coordinates of the entries;
* ``values``: ``[N]``, their values (any dtype);
* ``dense_shape``: int64 ``[r]``, the shape of the dense tensor it stands for.

It is a client-side structure: the graph only holds the three tensors, so a
sparse tensor computed on one task is used on another like any three tensors.
A session fetching a ``SparseTensor`` returns a ``SparseTensorValue``; feeding
one takes a ``SparseTensorValue`` (or an ``(indices, values, dense_shape)``
tuple) for its three component tensors.
"""

from __future__ import annotations

from typing import Any, Callable, List, NamedTuple, Optional, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import (Tensor, convert_to_tensor, default_session_or_raise,
                                         register_tensor_conversion_function)
from tensorfleet.framework.tensor_shape import TensorShape, unknown_shape
from tensorfleet.ops.op_util import const_value


class SparseTensorValue(NamedTuple):
    """The value of a ``SparseTensor``: numpy ``indices``, ``values``, ``dense_shape``."""

    indices: Any
    values: Any
    dense_shape: Any


def _component(value: Any, dtype: Any, what: str) -> Tensor:
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype is not dtype:
            raise TypeError(f"SparseTensor {what} must be {dtype.name}, got {value.dtype.name} "
                            f"({value.name}); cast it with tf.cast")
        return value
    return convert_to_tensor(value, dtype=dtype, name=what)


class SparseTensor:
    """A sparse tensor: ``values[i]`` sits at coordinate ``indices[i]`` of a dense tensor
    of shape ``dense_shape``; every other entry is zero (or a default chosen by the op
    that reads it).

    Args:
      indices: int64 ``[N, rank]`` (a Tensor or anything convertible).
      values: ``[N]`` values.
      dense_shape: int64 ``[rank]``.

    Raises:
      TypeError: if ``indices`` or ``dense_shape`` are Tensors of another dtype than
        int64, or the components come from different graphs.
      ValueError: if the static shapes of the components disagree.
    """

    def __init__(self, indices: Any, values: Any, dense_shape: Any):
        self._indices = _component(indices, _dtypes.int64, "indices")
        self._values = _component(values, None, "values")
        self._dense_shape = _component(dense_shape, _dtypes.int64, "dense_shape")
        graphs = {t.graph for t in (self._indices, self._values, self._dense_shape)}
        if len(graphs) != 1:
            raise TypeError("SparseTensor indices, values and dense_shape must be in the same "
                            "graph")
        ishape = self._indices.shape
        _check_rank(self._indices, 2)
        _check_rank(self._values, 1)
        _check_rank(self._dense_shape, 1)
        n_i = _dim(ishape, 0)
        n_v = _dim(self._values.shape, 0)
        if n_i is not None and n_v is not None and n_i != n_v:
            raise ValueError(f"SparseTensor: indices has {n_i} rows but values has {n_v} "
                             f"entries ({self._indices.name} vs {self._values.name})")
        r_i = _dim(ishape, 1)
        r_s = _dim(self._dense_shape.shape, 0)
        if r_i is not None and r_s is not None and r_i != r_s:
            raise ValueError(f"SparseTensor: indices has {r_i} columns but dense_shape has "
                             f"rank {r_s} ({self._indices.name} vs {self._dense_shape.name})")

    @classmethod
    def from_value(cls, sparse_tensor_value: Any) -> "SparseTensor":
        """A ``SparseTensor`` of constants from a ``SparseTensorValue`` (or a
        ``SparseTensor``, returned as is)."""
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        if not isinstance(sparse_tensor_value, SparseTensorValue):
            raise TypeError(f"SparseTensor.from_value needs a SparseTensorValue or a "
                            f"SparseTensor, got {type(sparse_tensor_value).__name__}")
        v = sparse_tensor_value
        return cls(np.asarray(v.indices, np.int64).reshape(-1, np.size(v.dense_shape)),
                   v.values, np.asarray(v.dense_shape, np.int64))

    @property
    def indices(self) -> Tensor:
        """int64 ``[N, rank]``: the coordinates of the stored entries."""
        return self._indices

    @property
    def values(self) -> Tensor:
        """``[N]``: the stored entries."""
        return self._values

    @property
    def dense_shape(self) -> Tensor:
        """int64 ``[rank]``: the shape of the dense tensor."""
        return self._dense_shape

    @property
    def dtype(self) -> _dtypes.DType:
        """The dtype of the values."""
        return self._values.dtype

    @property
    def graph(self) -> Any:
        """The graph holding the three component tensors."""
        return self._values.graph

    @property
    def op(self) -> Any:
        """The op producing ``values``."""
        return self._values.op

    @property
    def shape(self) -> TensorShape:
        """The static dense shape: exact when ``dense_shape`` is known while building
        the graph, else the known rank with unknown dimensions."""
        known = _static_dense_shape(self._dense_shape)
        if known is not None:
            return TensorShape([int(d) for d in known])
        rank = _dim(self._dense_shape.shape, 0)
        return unknown_shape() if rank is None else TensorShape([None] * rank)

    def get_shape(self) -> TensorShape:
        """Same as ``shape``."""
        return self.shape

    def eval(self, feed_dict: Optional[dict] = None, session: Any = None) -> SparseTensorValue:
        """Runs this sparse tensor in ``session`` or the default session."""
        return (session or default_session_or_raise()).run(self, feed_dict)

    # Used by Session.run: a SparseTensor is fetched and fed as its three tensors.
    def _fetch_components(self) -> Tuple[List[Tensor], Callable[..., SparseTensorValue]]:
        return [self._indices, self._values, self._dense_shape], SparseTensorValue

    def _feed_components(self) -> List[Tensor]:
        return [self._indices, self._values, self._dense_shape]

    def __repr__(self) -> str:
        return (f"SparseTensor(indices={self._indices!r}, values={self._values!r}, "
                f"dense_shape={self._dense_shape!r})")


def _check_rank(t: Tensor, rank: int) -> None:
    nd = t.shape.ndims
    if nd is not None and nd != rank:
        raise ValueError(f"SparseTensor component {t.name} must have rank {rank}, got shape "
                         f"{t.shape}")


def _dim(shape: TensorShape, i: int) -> Optional[int]:
    if shape.ndims is None or shape.ndims <= i:
        return None
    return shape[i]


def _static_dense_shape(t: Tensor) -> Optional[np.ndarray]:
    # A sparse_placeholder with a known shape defaults its dense_shape to a constant.
    if t.op.type == "PlaceholderWithDefault":
        t = t.op.inputs[0]
    v = const_value(t)
    return None if v is None else np.reshape(v, [-1])


def is_sparse(x: Any) -> bool:
    """Whether ``x`` is a ``SparseTensor`` or a ``SparseTensorValue``."""
    return isinstance(x, (SparseTensor, SparseTensorValue))


def convert_to_tensor_or_sparse_tensor(value: Any, dtype: Any = None,
                                       name: Optional[str] = None) -> Any:
    """``value`` itself when sparse (a ``SparseTensorValue`` becomes constants), else a Tensor."""
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype is not None and _dtypes.as_dtype(dtype) is not value.dtype:
            raise TypeError(f"Sparse dtype: requested = {_dtypes.as_dtype(dtype).name}, "
                            f"actual = {value.dtype.name}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


def _refuse_dense_conversion(value: Any, dtype: Any = None, name: Optional[str] = None) -> Tensor:
    raise TypeError(f"Failed to convert a {type(value).__name__} to a dense Tensor: use "
                    f"tf.sparse_tensor_to_dense, or an op that takes sparse inputs")


register_tensor_conversion_function(SparseTensor, _refuse_dense_conversion)
register_tensor_conversion_function(SparseTensorValue, _refuse_dense_conversion)

__all__ = ["SparseTensor", "SparseTensorValue", "is_sparse", "convert_to_tensor_or_sparse_tensor"]
