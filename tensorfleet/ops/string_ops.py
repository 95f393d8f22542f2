"""String ops: ``tf.decode_csv``, ``tf.string_to_number``, ``tf.decode_raw``,
``tf.read_file``, ``tf.string_split``.

Their kernels are in ``kernels/numpy/string_kernels.py``. ``decode_csv``,
``string_to_number`` and ``decode_raw`` work element by element on a tensor of any
shape, so they may be used in a ``Dataset.map`` that comes before a ``batch``.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.tensor_shape import TensorShape, scalar
from tensorfleet.ops.op_util import make_op, make_tensor, same_shape

_NUMBER_TYPES = ("float32", "float64", "int32", "int64")
_CSV_TYPES = _NUMBER_TYPES + ("string",)
_RAW_TYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
              "uint16", "bool")


def _records_shape(op: Operation) -> List[TensorShape]:
    return [op.inputs[0].shape for _ in op.outputs]


def _decode_raw_shape(op: Operation) -> List[TensorShape]:
    return [op.inputs[0].shape.concatenate([None])]


def _split_shapes(op: Operation) -> List[TensorShape]:
    return [TensorShape([None, 2]), TensorShape([None]), TensorShape([2])]


register_op("DecodeCSV", _records_shape)
register_op("StringToNumber", same_shape)
register_op("DecodeRaw", _decode_raw_shape)
# A file's contents may change between steps: never cached.
register_op("ReadFile", lambda op: [scalar()], stateful=True)
register_op("StringSplit", _split_shapes)


def _strings(value: Any, what: str) -> Tensor:
    t = convert_to_tensor(value, dtype=_dtypes.string, name=what)
    if t.dtype is not _dtypes.string:
        raise TypeError(f"{what} must be a string tensor, got {t.dtype.name} ({t.name})")
    return t


def _one_char(value: Any, what: str) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    if not isinstance(value, str) or len(value.encode("utf-8")) != 1:
        raise ValueError(f"{what} must be a single character, got {value!r}")
    return value


def decode_csv(records: Any, record_defaults: Sequence[Any], field_delim: str = ",",
               use_quote_delim: bool = True, name: Optional[str] = None,
               na_value: str = "", select_cols: Optional[Sequence[int]] = None) -> List[Tensor]:
    """Converts CSV records (a string tensor of any shape) to one tensor per column.

    Args:
      records: string tensor; every element is one line.
      record_defaults: one entry per output column, its dtype (float32/64, int32/64,
        string) that column's; an entry with one element (``[0.0]``) is the value of an
        empty field, an empty one (``tf.constant([], tf.int64)``) makes the column
        required.
      field_delim: the one-character field separator.
      use_quote_delim: ``"..."`` fields may hold the delimiter, ``""`` is a quote.
      na_value: a field equal to this counts as empty.
      select_cols: sorted column indices to keep (``record_defaults`` then has one
        entry per selected column).

    Returns:
      A list of tensors, each shaped like ``records``.

    Raises:
      InvalidArgumentError (when run): a record has the wrong number of fields, a
        required field is empty, or a field is not a number of its column's type.
    """
    delim = _one_char(field_delim, "decode_csv field_delim")
    if not isinstance(record_defaults, (list, tuple)) or not record_defaults:
        raise ValueError("decode_csv: record_defaults must be a non-empty list")
    cols = None
    if select_cols is not None:
        cols = [int(c) for c in select_cols]
        if any(c < 0 for c in cols) or any(b <= a for a, b in zip(cols, cols[1:])):
            raise ValueError(f"decode_csv: select_cols must be non-negative and strictly "
                             f"increasing, got {list(select_cols)}")
        if len(cols) != len(record_defaults):
            raise ValueError(f"decode_csv: {len(record_defaults)} record_defaults for "
                             f"{len(cols)} select_cols")
    with name_scope(name, "DecodeCSV"):
        recs = _strings(records, "records")
        defaults = [convert_to_tensor(d, name=f"record_default_{i}")
                    for i, d in enumerate(record_defaults)]
        for i, d in enumerate(defaults):
            if d.dtype.name not in _CSV_TYPES:
                raise TypeError(f"decode_csv: record_defaults[{i}] has type {d.dtype.name}; "
                                f"supported: {', '.join(_CSV_TYPES)}")
        attrs = {"OUT_TYPE": [d.dtype for d in defaults], "field_delim": delim,
                 "use_quote_delim": bool(use_quote_delim), "na_value": str(na_value),
                 "select_cols": cols}
        op = make_op("DecodeCSV", [recs] + defaults, [d.dtype for d in defaults], attrs,
                     name="DecodeCSV")
    return list(op.outputs)


def string_to_number(string_tensor: Any, out_type: Any = _dtypes.float32,
                     name: Optional[str] = None) -> Tensor:
    """Parses every string as a number of ``out_type`` (float32/64, int32/64)."""
    dt = _dtypes.as_dtype(out_type)
    if dt.name not in _NUMBER_TYPES:
        raise TypeError(f"string_to_number: out_type must be one of {_NUMBER_TYPES}, got "
                        f"{dt.name}")
    return make_tensor("StringToNumber", [_strings(string_tensor, "string_tensor")], dt,
                       {"out_type": dt}, name=name or "StringToNumber")


def decode_raw(bytes: Any, out_type: Any, little_endian: bool = True,  # noqa: A002
               name: Optional[str] = None) -> Tensor:
    """Reinterprets each string's bytes as a vector of ``out_type`` (one more dimension;
    all strings must be the same length)."""
    dt = _dtypes.as_dtype(out_type)
    if dt.name not in _RAW_TYPES:
        raise TypeError(f"decode_raw: out_type must be one of {_RAW_TYPES}, got {dt.name}")
    return make_tensor("DecodeRaw", [_strings(bytes, "bytes")], dt,
                       {"out_type": dt, "little_endian": bool(little_endian)},
                       name=name or "DecodeRaw")


def read_file(filename: Any, name: Optional[str] = None) -> Tensor:
    """The whole contents of the file ``filename`` (a string scalar), as a string."""
    return make_tensor("ReadFile", [_strings(filename, "filename")], _dtypes.string,
                       name=name or "ReadFile")


def string_split(source: Any, delimiter: Any = " ", skip_empty: bool = True,
                 name: Optional[str] = None) -> SparseTensor:
    """Splits each string of the vector ``source`` into tokens.

    Every character of ``delimiter`` is a split point (an empty delimiter splits into
    single bytes); with ``skip_empty`` empty tokens are dropped.

    Returns:
      A ``SparseTensor`` of rank 2: row ``i`` holds the tokens of ``source[i]``, and
      ``dense_shape`` is ``[len(source), most tokens in a row]``.
    """
    with name_scope(name, "StringSplit"):
        src = _strings(source, "source")
        if src.shape.ndims is not None and src.shape.ndims != 1:
            raise ValueError(f"string_split: source must be a vector, got shape {src.shape}")
        delim = _strings(delimiter, "delimiter")
        op = make_op("StringSplit", [src, delim],
                     [_dtypes.int64, _dtypes.string, _dtypes.int64],
                     {"skip_empty": bool(skip_empty)}, name="StringSplit")
    return SparseTensor(op.outputs[0], op.outputs[1], op.outputs[2])


__all__ = ["decode_csv", "string_to_number", "decode_raw", "read_file", "string_split"]
