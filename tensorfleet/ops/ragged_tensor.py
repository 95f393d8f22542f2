"""``tf.RaggedTensor``: a tensor whose rows have different lengths, held as ``values``
(a tensor, or another ragged tensor for more ragged dimensions) and ``row_splits`` (row
``i`` is ``values[row_splits[i]:row_splits[i + 1]]``), with the TensorFlow 1.x
constructors and conversions, and ``RaggedTensorValue``, what a session returns for one.

Every method builds ordinary graph ops on the two tensors (gathers, scatters, cumulative
sums), so values differentiate through them.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, control_dependencies, convert_to_tensor, \
    name_scope
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.array_indexing_ops import unsorted_segment_sum
from tensorfleet.ops.array_transform_ops import searchsorted
from tensorfleet.ops.check_ops import assert_equal, assert_non_negative
from tensorfleet.ops.scatter_ops import scatter_nd


def _splits(t: Any, dtype: Any = None) -> Tensor:
    s = convert_to_tensor(t, dtype=dtype) if not isinstance(t, Tensor) else t
    if s.dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"row partitions must be int32 or int64, got {s.dtype.name}")
    if s.shape.ndims is not None and s.shape.ndims != 1:
        raise ValueError(f"row partitions must be vectors, got shape {s.shape}")
    return s


class _NestedRows:
    """The levels of a ragged value or tensor, whose ``values`` are either the next level
    (of the same kind) or the flat values."""

    _values: Any
    _row_splits: Any

    @property
    def flat_values(self) -> Any:
        v = self._values
        while isinstance(v, _NestedRows):
            v = v._values
        return v

    @property
    def nested_row_splits(self) -> tuple:
        out, v = [self._row_splits], self._values
        while isinstance(v, _NestedRows):
            out.append(v._row_splits)
            v = v._values
        return tuple(out)

    @property
    def ragged_rank(self) -> int:
        return len(self.nested_row_splits)

    @property
    def dtype(self) -> Any:
        return self.flat_values.dtype


class RaggedTensorValue(_NestedRows):
    """The value of a ``RaggedTensor``: numpy ``values`` and ``row_splits``."""

    def __init__(self, values: Any, row_splits: Any):
        self._values = values
        self._row_splits = np.asarray(row_splits)

    values = property(lambda self: self._values)
    row_splits = property(lambda self: self._row_splits)

    @property
    def shape(self) -> tuple:
        inner = self.flat_values.shape[1:]
        return (len(self._row_splits) - 1,) + (None,) * self.ragged_rank + tuple(inner)

    def to_list(self) -> list:
        """The value as nested Python lists."""
        vals = self._values.to_list() if isinstance(self._values, RaggedTensorValue) \
            else np.asarray(self._values).tolist()
        s = self._row_splits.tolist()
        return [vals[s[i]:s[i + 1]] for i in range(len(s) - 1)]

    def _feed_values(self) -> list:
        """The components fed to a ragged placeholder, as its ``_feed_components``."""
        if isinstance(self._values, RaggedTensorValue):
            return self._values._feed_values() + [self._row_splits]
        return [self._values, self._row_splits]

    def __repr__(self) -> str:
        return f"tf.RaggedTensorValue(values={self._values!r}, row_splits={self._row_splits!r})"


def _rebuild(values: Any, row_splits: Any) -> RaggedTensorValue:
    return RaggedTensorValue(values, row_splits)


class RaggedTensor(_NestedRows):
    """A ragged tensor (``tf.RaggedTensor``); build one with a ``from_*`` factory."""

    def __init__(self, values: Any, row_splits: Tensor, internal: bool = False):
        if not internal:
            raise ValueError("RaggedTensor is built with RaggedTensor.from_row_splits (or "
                             "another from_* factory), not its constructor")
        self._values = values
        self._row_splits = row_splits

    # -- factories -----------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values: Any, row_splits: Any, name: Optional[str] = None,
                        validate: bool = True) -> "RaggedTensor":
        """Rows ``values[row_splits[i]:row_splits[i + 1]]``."""
        with name_scope(name, "RaggedFromRowSplits"):
            vals = values if isinstance(values, RaggedTensor) else convert_to_tensor(values)
            splits = _splits(row_splits, _dtypes.int64)
            if validate:
                checks = [assert_equal(splits[0], A.zeros([], splits.dtype),
                                       message="row_splits must start with 0"),
                          assert_non_negative(splits[1:] - splits[:-1],
                                              message="row_splits must be sorted"),
                          assert_equal(A.cast(splits[-1], _dtypes.int64),
                                       A.cast(_nvals(vals), _dtypes.int64),
                                       message="row_splits must end with the number of "
                                               "values")]
                with control_dependencies(checks):
                    splits = A.identity(splits)
            return cls(vals, splits, internal=True)

    @classmethod
    def from_row_lengths(cls, values: Any, row_lengths: Any, name: Optional[str] = None,
                         validate: bool = True) -> "RaggedTensor":
        """Rows of ``row_lengths[i]`` consecutive values."""
        with name_scope(name, "RaggedFromRowLengths"):
            lengths = _splits(row_lengths, _dtypes.int64)
            splits = A.concat([A.zeros([1], lengths.dtype), M.cumsum(lengths)], 0)
            return cls.from_row_splits(values, splits, validate=validate)

    @classmethod
    def from_value_rowids(cls, values: Any, value_rowids: Any, nrows: Any = None,
                          name: Optional[str] = None, validate: bool = True) -> "RaggedTensor":
        """Value ``j`` in row ``value_rowids[j]`` (sorted), ``nrows`` rows."""
        with name_scope(name, "RaggedFromValueRowIds"):
            ids = _splits(value_rowids, _dtypes.int64)
            return cls.from_row_splits(values, segment_ids_to_row_splits(ids, nrows),
                                       validate=validate)

    @classmethod
    def from_row_starts(cls, values: Any, row_starts: Any, name: Optional[str] = None,
                        validate: bool = True) -> "RaggedTensor":
        with name_scope(name, "RaggedFromRowStarts"):
            starts = _splits(row_starts, _dtypes.int64)
            vals = values if isinstance(values, RaggedTensor) else convert_to_tensor(values)
            total = A.reshape(A.cast(_nvals(vals), starts.dtype), [1])
            return cls.from_row_splits(vals, A.concat([starts, total], 0), validate=validate)

    @classmethod
    def from_row_limits(cls, values: Any, row_limits: Any, name: Optional[str] = None,
                        validate: bool = True) -> "RaggedTensor":
        with name_scope(name, "RaggedFromRowLimits"):
            limits = _splits(row_limits, _dtypes.int64)
            return cls.from_row_splits(values, A.concat([A.zeros([1], limits.dtype), limits],
                                                        0), validate=validate)

    @classmethod
    def from_nested_row_splits(cls, flat_values: Any, nested_row_splits: Sequence[Any],
                               name: Optional[str] = None,
                               validate: bool = True) -> "RaggedTensor":
        """Several ragged dimensions, the outermost first."""
        if not nested_row_splits:
            raise ValueError("nested_row_splits must not be empty")
        with name_scope(name, "RaggedFromNestedRowSplits"):
            out: Any = flat_values
            for splits in reversed(list(nested_row_splits)):
                out = cls.from_row_splits(out, splits, validate=validate)
            return out

    @classmethod
    def from_nested_row_lengths(cls, flat_values: Any, nested_row_lengths: Sequence[Any],
                                name: Optional[str] = None,
                                validate: bool = True) -> "RaggedTensor":
        out: Any = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            out = cls.from_row_lengths(out, lengths, validate=validate)
        return out

    @classmethod
    def from_tensor(cls, tensor: Any, lengths: Any = None, padding: Any = None,
                    ragged_rank: int = 1, name: Optional[str] = None,
                    row_splits_dtype: Any = _dtypes.int64) -> "RaggedTensor":
        """The rows of a dense ``[N, M, ...]`` tensor, each cut to ``lengths[i]`` or to
        before its trailing ``padding`` values (all ``M`` by default)."""
        if ragged_rank != 1:
            raise ValueError(f"from_tensor makes one ragged dimension (ragged_rank=1), got "
                             f"ragged_rank={ragged_rank}")
        if lengths is not None and padding is not None:
            raise ValueError("Specify lengths or padding, but not both")
        with name_scope(name, "RaggedFromTensor"):
            t = convert_to_tensor(tensor)
            if t.shape.ndims is None or t.shape.ndims < 2:
                raise ValueError(f"from_tensor needs a tensor of rank >= 2, got {t.shape}")
            dims = A.shape(t, out_type=_dtypes.int64)
            n, m = dims[0], dims[1]
            if lengths is None and padding is None:
                lens = A.fill(A.reshape(n, [1]), m)
            elif lengths is not None:
                lens = M.minimum(A.cast(convert_to_tensor(lengths), _dtypes.int64), m)
            else:
                pad = convert_to_tensor(padding, dtype=t.dtype)
                is_pad = M.equal(t, pad)
                if t.shape.ndims > 2:
                    is_pad = M.reduce_all(is_pad, list(range(2, t.shape.ndims)))
                # Length: one past the last element that is not padding.
                keep = A.cast(M.logical_not(is_pad), _dtypes.int64)
                pos = A.range(1, m + 1, dtype=_dtypes.int64)
                lens = M.reduce_max(keep * pos, 1)
            mask = M.less(A.expand_dims(A.range(0, m, dtype=_dtypes.int64), 0),
                          A.expand_dims(lens, 1))
            values = A.boolean_mask(t, mask)
            return cls.from_row_lengths(values, A.cast(lens, row_splits_dtype), validate=False)

    @classmethod
    def from_sparse(cls, st_input: SparseTensor, name: Optional[str] = None,
                    row_splits_dtype: Any = _dtypes.int64) -> "RaggedTensor":
        """The rows of a 2-D ``SparseTensor`` whose entries are left-aligned in
        row-major order."""
        with name_scope(name, "RaggedFromSparse"):
            rows = st_input.indices[:, 0]
            nrows = st_input.dense_shape[0]
            return cls.from_value_rowids(st_input.values, rows, nrows, validate=False)

    # -- facts ---------------------------------------------------------------------------
    @property
    def values(self) -> Any:
        return self._values

    @property
    def row_splits(self) -> Tensor:
        return self._row_splits

    @property
    def row_splits_dtype(self) -> Any:
        return self._row_splits.dtype

    @property
    def shape(self) -> TensorShape:
        n = self._row_splits.shape.as_list()[0]
        inner = self._values.shape[1:] if not isinstance(self._values, RaggedTensor) \
            else self._values.shape[1:]
        return TensorShape([None if n is None else n - 1, None]).concatenate(inner)

    def get_shape(self) -> TensorShape:
        return self.shape

    def nrows(self, out_type: Any = None, name: Optional[str] = None) -> Tensor:
        """The number of rows."""
        n = A.shape(self._row_splits, out_type=self._row_splits.dtype)[0] - 1
        return n if out_type is None else A.cast(n, out_type, name=name)

    def row_lengths(self, axis: int = 1, name: Optional[str] = None) -> Tensor:
        """The length of each row."""
        if axis != 1:
            raise ValueError(f"row_lengths here takes axis=1, got {axis}")
        return M.subtract(self._row_splits[1:], self._row_splits[:-1], name=name)

    def row_starts(self, name: Optional[str] = None) -> Tensor:
        return A.identity(self._row_splits[:-1], name=name)

    def row_limits(self, name: Optional[str] = None) -> Tensor:
        return A.identity(self._row_splits[1:], name=name)

    def value_rowids(self, name: Optional[str] = None) -> Tensor:
        """The row of each value."""
        return row_splits_to_segment_ids(self._row_splits, name=name)

    def nested_row_lengths(self, name: Optional[str] = None) -> tuple:
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.row_lengths())
            rt = rt.values
        return tuple(out)

    def with_values(self, new_values: Any) -> "RaggedTensor":
        """The same row partition around ``new_values``."""
        return RaggedTensor(new_values if isinstance(new_values, RaggedTensor)
                            else convert_to_tensor(new_values), self._row_splits, internal=True)

    def with_flat_values(self, new_values: Any) -> "RaggedTensor":
        """The same nested row partitions around new flat values."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype: Any) -> "RaggedTensor":
        vals = self._values.with_row_splits_dtype(dtype) if isinstance(
            self._values, RaggedTensor) else self._values
        return RaggedTensor(vals, A.cast(self._row_splits, dtype), internal=True)

    def bounding_shape(self, axis: Any = None, name: Optional[str] = None,
                       out_type: Any = None) -> Tensor:
        """The smallest dense shape holding every row."""
        with name_scope(name, "RaggedBoundingBox"):
            lengths = self.row_lengths()
            longest = M.reduce_max(A.concat([lengths, A.zeros([1], lengths.dtype)], 0))
            inner = self._values.bounding_shape(out_type=lengths.dtype)[1:] if isinstance(
                self._values, RaggedTensor) else A.shape(self._values, out_type=lengths.dtype)[1:]
            shape = A.concat([A.stack([self.nrows(), longest]), inner], 0)
            if out_type is not None:
                shape = A.cast(shape, out_type)
            return shape if axis is None else A.gather(shape, axis)

    # -- conversions -----------------------------------------------------------------------
    def to_tensor(self, default_value: Any = None, name: Optional[str] = None,
                  shape: Any = None) -> Tensor:
        """The dense tensor ``[nrows, longest row, ...]``, short rows padded with
        ``default_value`` (zero)."""
        if shape is not None:
            raise ValueError("to_tensor(shape=...) is not supported; crop or pad the result")
        with name_scope(name, "RaggedToTensor"):
            inner = self._values.to_tensor(default_value) if isinstance(
                self._values, RaggedTensor) else self._values
            rowids = self.value_rowids()
            pos = A.range(0, A.shape(rowids, out_type=rowids.dtype)[0], dtype=rowids.dtype) \
                - A.gather(self._row_splits, rowids)
            lengths = self.row_lengths()
            longest = M.reduce_max(A.concat([lengths, A.zeros([1], lengths.dtype)], 0))
            outer = A.stack([self.nrows(), longest])
            dense_shape = A.concat([outer, A.shape(inner, out_type=outer.dtype)[1:]], 0)
            idx = A.stack([rowids, pos], 1)
            out = scatter_nd(idx, inner, dense_shape)
            if default_value is not None:
                mask = M.less(A.expand_dims(A.range(0, longest, dtype=lengths.dtype), 0),
                              A.expand_dims(lengths, 1))
                for _ in range(max((inner.shape.ndims or 1) - 1, 0)):
                    mask = A.expand_dims(mask, -1)
                fill = convert_to_tensor(default_value, dtype=out.dtype) + A.zeros_like(out)
                out = A.where(_broadcast_mask(mask, out), out, fill)
            return out

    def to_sparse(self, name: Optional[str] = None) -> SparseTensor:
        """The rows as a 2-D ``SparseTensor`` (one ragged dimension)."""
        if isinstance(self._values, RaggedTensor):
            raise ValueError("to_sparse takes a ragged tensor of ragged_rank 1")
        with name_scope(name, "RaggedToSparse"):
            rowids = A.cast(self.value_rowids(), _dtypes.int64)
            splits = A.cast(self._row_splits, _dtypes.int64)
            pos = A.range(0, A.shape(rowids, out_type=_dtypes.int64)[0], dtype=_dtypes.int64) \
                - A.gather(splits, rowids)
            lengths = self.row_lengths()
            longest = A.cast(M.reduce_max(A.concat([lengths, A.zeros([1], lengths.dtype)],
                                                   0)), _dtypes.int64)
            shape = A.concat([A.stack([A.cast(self.nrows(), _dtypes.int64), longest]),
                              A.shape(self._values, out_type=_dtypes.int64)[1:]], 0)
            return SparseTensor(A.stack([rowids, pos], 1), self._values, shape)

    # -- Session.run / feed_dict ------------------------------------------------------------
    def _fetch_components(self) -> tuple:
        return [self._values, self._row_splits], _rebuild

    def _feed_components(self) -> List[Tensor]:
        if isinstance(self._values, RaggedTensor):
            return self._values._feed_components() + [self._row_splits]
        return [self._values, self._row_splits]

    def __repr__(self) -> str:
        return f"tf.RaggedTensor(values={self._values!r}, row_splits={self._row_splits!r})"


def _broadcast_mask(mask: Tensor, like: Tensor) -> Tensor:
    return M.logical_and(mask, M.equal(A.zeros_like(like), A.zeros_like(like)))


def _nvals(values: Any) -> Tensor:
    if isinstance(values, RaggedTensor):
        return values.nrows()
    return A.shape(values, out_type=_dtypes.int64)[0]


def row_splits_to_segment_ids(splits: Any, name: Optional[str] = None,
                              out_type: Any = None) -> Tensor:
    """The row of each value, from row splits (``[0, 2, 2, 3] -> [0, 0, 2]``)."""
    with name_scope(name, "RaggedSplitsToSegmentIds"):
        s = _splits(splits, _dtypes.int64)
        n = s[-1]
        ids = searchsorted(s[1:], A.range(0, n, dtype=s.dtype), side="right",
                           out_type=s.dtype)
        return ids if out_type is None else A.cast(ids, out_type)


def segment_ids_to_row_splits(segment_ids: Any, num_segments: Any = None,
                              out_type: Any = None, name: Optional[str] = None) -> Tensor:
    """Row splits from the (sorted) row of each value; ``num_segments`` rows (default: one
    past the largest id)."""
    with name_scope(name, "SegmentIdsToRaggedSplits"):
        ids = _splits(segment_ids, _dtypes.int64)
        out = out_type or ids.dtype
        ids64 = A.cast(ids, _dtypes.int64)
        if num_segments is None:
            num = M.add(M.reduce_max(A.concat([ids64, A.constant([-1], _dtypes.int64)], 0)), 1)
        else:
            num = A.cast(convert_to_tensor(num_segments), _dtypes.int64)
        counts = unsorted_segment_sum(A.ones_like(ids64), ids64, num)
        splits = A.concat([A.zeros([1], _dtypes.int64), M.cumsum(counts)], 0)
        return A.cast(splits, out)
