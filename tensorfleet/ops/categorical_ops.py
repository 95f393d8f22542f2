"""Categorical ops that feature columns are made of.

``bucketize`` (float values to bucket ids between sorted boundaries),
``vocabulary_lookup`` (values to their index in a fixed vocabulary, unknown
values to ``default_value`` or to hashed out-of-vocabulary buckets),
``dense_to_sparse_drop`` (a dense tensor as a ``SparseTensor`` without the
entries equal to an "ignore" value) and ``as_string`` for numbers. Their
kernels are in ``kernels/numpy/categorical_kernels.py``; none of them has a gradient
(their outputs are ids).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops.op_util import make_op, make_tensor, same_shape


def _dense_to_sparse_shapes(op: Operation) -> List[TensorShape]:
    rank = op.inputs[0].shape.ndims
    return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]


register_op("Bucketize", same_shape)
register_op("VocabularyLookup", same_shape)
register_op("DenseToSparseDrop", _dense_to_sparse_shapes)
register_op("AsString", same_shape)


def bucketize(input: Any, boundaries: Sequence[float],  # noqa: A002 - TF name
              name: Optional[str] = None) -> Tensor:
    """The int32 bucket of each value: ``i`` such that ``boundaries[i-1] <= v < boundaries[i]``.

    Raises:
      ValueError: ``boundaries`` is not a sorted list of numbers.
    """
    b = [float(x) for x in boundaries]
    if any(b[i] >= b[i + 1] for i in range(len(b) - 1)):
        raise ValueError(f"bucketize: boundaries must be a sorted list, got {list(boundaries)}")
    x = convert_to_tensor(input)
    if not (x.dtype.is_floating or x.dtype.is_integer):
        raise TypeError(f"bucketize: input must be numeric, got {x.dtype.name}")
    return make_tensor("Bucketize", [x], _dtypes.int32, {"boundaries": b},
                       name=name or "Bucketize", shape=x.shape)


def vocabulary_lookup(input: Any, keys: Sequence[Any],  # noqa: A002 - TF name
                      default_value: int = -1, num_oov_buckets: int = 0,
                      name: Optional[str] = None) -> Tensor:
    """The int64 index of each value of ``input`` in ``keys``.

    A value not in ``keys`` gets ``len(keys) + fingerprint % num_oov_buckets``
    when ``num_oov_buckets`` > 0 (the fingerprint of an integer is that of its
    decimal string), else ``default_value``.
    """
    x = convert_to_tensor(input)
    string = x.dtype is _dtypes.string
    if not string and not x.dtype.is_integer:
        raise TypeError(f"vocabulary_lookup: input must be string or integer, got "
                        f"{x.dtype.name}")
    if string:
        arr = np.array([k.encode() if isinstance(k, str) else bytes(k) for k in keys],
                       dtype=object)
    else:
        arr = np.asarray(list(keys), dtype=np.int64)
    if arr.size == 0:
        raise ValueError("vocabulary_lookup: the vocabulary must not be empty")
    if len(set(arr.tolist())) != arr.size:
        raise ValueError(f"vocabulary_lookup: the vocabulary has duplicate keys: {list(keys)}")
    if num_oov_buckets < 0:
        raise ValueError(f"vocabulary_lookup: num_oov_buckets must be >= 0, got "
                         f"{num_oov_buckets}")
    return make_tensor("VocabularyLookup", [x], _dtypes.int64,
                       {"keys": arr, "default_value": int(default_value),
                        "num_oov_buckets": int(num_oov_buckets)},
                       name=name or "VocabularyLookup", shape=x.shape)


def dense_to_sparse_drop(input: Any, ignore_value: Any = None,  # noqa: A002 - TF name
                         name: Optional[str] = None) -> SparseTensor:
    """``input`` as a ``SparseTensor`` holding its entries that differ from ``ignore_value``.

    ``ignore_value`` defaults to ``""`` for strings and ``-1`` for integers;
    floats need an explicit one.
    """
    x = convert_to_tensor(input)
    if ignore_value is None:
        if x.dtype is _dtypes.string:
            ignore_value = b""
        elif x.dtype.is_integer:
            ignore_value = -1
        else:
            raise ValueError(f"dense_to_sparse_drop: give an ignore_value for {x.dtype.name} "
                             f"input {x.name}")
    if isinstance(ignore_value, str):
        ignore_value = ignore_value.encode()
    op = make_op("DenseToSparseDrop", [x], [_dtypes.int64, x.dtype, _dtypes.int64],
                 {"ignore_value": ignore_value}, name=name or "DenseToSparseDrop")
    return SparseTensor(op.outputs[0], op.outputs[1], op.outputs[2])


_AS_STRING_FLAGS = (" ", "+", "-", "0", "#")


def as_string(input: Any, precision: int = -1, scientific: bool = False,  # noqa: A002
              shortest: bool = False, width: int = -1, fill: str = "",
              name: Optional[str] = None) -> Tensor:
    """Numbers (or bools) as strings, printf-style as TensorFlow formats them.

    Floats use ``%f`` (``%e`` with ``scientific``, ``%g`` with ``shortest``) with
    ``precision`` digits when it is >= 0; integers use ``%d``. ``width`` pads to at
    least that many characters with spaces, or with ``fill`` ``"0"``; ``fill`` may
    also be one of the printf flags ``" "``, ``"+"``, ``"-"`` (left-justify), ``"#"``.
    Bools are ``true``/``false``.

    Raises:
      TypeError: for a dtype other than integers, floats and bool.
      ValueError: an unsupported ``fill``, both ``scientific`` and ``shortest``, or a
        float-only option for integers.
    """
    x = convert_to_tensor(input)
    if not (x.dtype.is_integer or x.dtype.is_floating or x.dtype is _dtypes.bool):
        raise TypeError(f"as_string: only integer, floating-point and bool inputs are "
                        f"supported, got {x.dtype.name}")
    if fill and (len(fill) != 1 or fill not in _AS_STRING_FLAGS):
        raise ValueError(f"as_string: Fill argument not supported: {fill!r}; use one of "
                         f"{_AS_STRING_FLAGS}")
    if scientific and shortest:
        raise ValueError("as_string: Cannot select both scientific and shortest notation")
    if x.dtype.is_integer and (scientific or shortest or precision > -1):
        raise ValueError(f"as_string: scientific, shortest and precision apply to floats, "
                         f"not {x.dtype.name}")
    attrs = {"precision": int(precision), "scientific": bool(scientific),
             "shortest": bool(shortest), "width": int(width), "fill": str(fill)}
    return make_tensor("AsString", [x], _dtypes.string, attrs, name=name or "AsString",
                       shape=x.shape)


__all__ = ["bucketize", "vocabulary_lookup", "dense_to_sparse_drop", "as_string"]
