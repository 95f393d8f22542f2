"""More string ops, the ``tf.strings`` family of TensorFlow 1.13+: length, substr, join,
reduce_join, regex_full_match, regex_replace, strip, upper/lower, web-safe base64, the
legacy ``string_to_hash_bucket`` and ``strings.split`` with a separator string.

Their kernels are in ``kernels/numpy/string_manip_kernels.py``. Regular expressions are Python
``re`` patterns, which agree with RE2 on the syntax TF programs use (classes, groups,
anchors, repetition).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.tensor_shape import TensorShape, broadcast_shape, unknown_shape
from tensorfleet.ops.op_util import make_op, make_tensor, normalize_axis, same_shape
from tensorfleet.ops.string_ops import string_to_number

_UNITS = ("BYTE", "UTF8_CHAR")


def _broadcast_all(op: Operation) -> List[TensorShape]:
    shape = op.inputs[0].shape
    for t in op.inputs[1:]:
        shape = broadcast_shape(shape, t.shape)
    return [shape]


def _reduce_join_shape(op: Operation) -> List[TensorShape]:
    return [unknown_shape()]


def _split_v2_shapes(op: Operation) -> List[TensorShape]:
    return [TensorShape([None, 2]), TensorShape([None]), TensorShape([2])]


for _name in ("StringLength", "StringStrip", "StringUpper", "StringLower", "EncodeBase64",
              "DecodeBase64", "StringToHashBucket", "RegexReplace", "RegexFullMatch"):
    register_op(_name, same_shape)
register_op("Substr", _broadcast_all)
register_op("StringJoin", _broadcast_all)
register_op("ReduceJoin", _reduce_join_shape)
register_op("StringSplitV2", _split_v2_shapes)
# Writing a file is the point of the op: never cached or pruned as a constant.
register_op("WriteFile", lambda op: [], stateful=True)


def _strings(value: Any, what: str) -> Tensor:
    t = convert_to_tensor(value, dtype=_dtypes.string, name=what)
    if t.dtype is not _dtypes.string:
        raise TypeError(f"{what} must be a string tensor, got {t.dtype.name} ({t.name})")
    return t


def _unit(unit: str, what: str) -> str:
    if unit not in _UNITS:
        raise ValueError(f"{what}: unit must be one of {_UNITS}, got {unit!r}")
    return unit


def length(input: Any, name: Optional[str] = None,  # noqa: A002 - TF name
           unit: str = "BYTE") -> Tensor:
    """The int32 length of every string, in bytes or (``unit="UTF8_CHAR"``) characters."""
    x = _strings(input, "input")
    return make_tensor("StringLength", [x], _dtypes.int32, {"unit": _unit(unit, "length")},
                       name=name or "StringLength")


def substr(input: Any, pos: Any, len: Any, name: Optional[str] = None,  # noqa: A002
           unit: str = "BYTE") -> Tensor:
    """``input[pos:pos + len]`` per string (broadcasting); a negative ``pos`` counts from
    the end. A ``pos`` outside the string is an InvalidArgumentError when run."""
    x = _strings(input, "input")
    p = convert_to_tensor(pos, name="pos")
    n = convert_to_tensor(len, dtype=p.dtype, name="len")
    if not p.dtype.is_integer or p.dtype is not n.dtype:
        raise TypeError(f"substr: pos and len must be integers of one type, got "
                        f"{p.dtype.name} and {n.dtype.name}")
    return make_tensor("Substr", [x, p, n], _dtypes.string, {"unit": _unit(unit, "substr")},
                       name=name or "Substr")


def string_join(inputs: Sequence[Any], separator: str = "",
                name: Optional[str] = None) -> Tensor:
    """Joins the strings of ``inputs`` element-wise (scalars broadcast) with ``separator``."""
    if isinstance(inputs, Tensor) or not isinstance(inputs, (list, tuple)) or not inputs:
        raise TypeError("string_join: inputs must be a non-empty list of string tensors")
    ts = [_strings(t, f"inputs_{i}") for i, t in enumerate(inputs)]
    return make_tensor("StringJoin", ts, _dtypes.string, {"separator": str(separator)},
                       name=name or "StringJoin")


def reduce_join(inputs: Any, axis: Any = None, keep_dims: Optional[bool] = None,
                separator: str = "", name: Optional[str] = None,
                reduction_indices: Any = None, keepdims: Optional[bool] = None) -> Tensor:
    """Joins the strings of ``inputs`` along ``axis`` (all axes when None), in row-major
    order, with ``separator`` between them."""
    if axis is not None and reduction_indices is not None:
        raise ValueError("reduce_join: give axis or reduction_indices, not both")
    if keep_dims is not None and keepdims is not None and bool(keep_dims) != bool(keepdims):
        raise ValueError("reduce_join: keep_dims and keepdims disagree")
    keep = bool(keepdims if keepdims is not None else keep_dims)
    axis = reduction_indices if axis is None else axis
    x = _strings(inputs, "inputs")
    axes = normalize_axis(axis, None) if axis is not None else None
    if axes is not None and any(not isinstance(a, int) for a in axes):
        raise TypeError(f"reduce_join: axis must be Python integers, got {axis!r}")
    return make_tensor("ReduceJoin", [x], _dtypes.string,
                       {"axes": axes, "keep_dims": keep, "separator": str(separator)},
                       name=name or "ReduceJoin")


def regex_full_match(input: Any, pattern: Any,  # noqa: A002 - TF name
                     name: Optional[str] = None) -> Tensor:
    """True where the whole string matches the regular expression ``pattern``."""
    return make_tensor("RegexFullMatch", [_strings(input, "input"), _strings(pattern, "pattern")],
                       _dtypes.bool, name=name or "RegexFullMatch")


def regex_replace(input: Any, pattern: Any, rewrite: Any,  # noqa: A002 - TF name
                  replace_global: bool = True, name: Optional[str] = None) -> Tensor:
    """Replaces matches of ``pattern`` with ``rewrite`` (every match, or only the first
    with ``replace_global=False``); ``\\1``..``\\9`` in ``rewrite`` are groups, ``\\0``
    the whole match."""
    ins = [_strings(input, "input"), _strings(pattern, "pattern"), _strings(rewrite, "rewrite")]
    return make_tensor("RegexReplace", ins, _dtypes.string,
                       {"replace_global": bool(replace_global)}, name=name or "RegexReplace")


def string_strip(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Every string without its leading and trailing ASCII whitespace."""
    return make_tensor("StringStrip", [_strings(input, "input")], _dtypes.string,
                       name=name or "StringStrip")


def _case(op_type: str, input: Any, encoding: str, name: Optional[str]) -> Tensor:  # noqa: A002
    if encoding not in ("", "utf-8"):
        raise ValueError(f"{op_type}: encoding must be '' (ASCII) or 'utf-8', got {encoding!r}")
    return make_tensor(op_type, [_strings(input, "input")], _dtypes.string,
                       {"encoding": encoding}, name=name or op_type)


def upper(input: Any, encoding: str = "", name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Every string in upper case (ASCII letters only unless ``encoding="utf-8"``)."""
    return _case("StringUpper", input, encoding, name)


def lower(input: Any, encoding: str = "", name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Every string in lower case (ASCII letters only unless ``encoding="utf-8"``)."""
    return _case("StringLower", input, encoding, name)


def encode_base64(input: Any, pad: bool = False,  # noqa: A002 - TF name
                  name: Optional[str] = None) -> Tensor:
    """Web-safe base64 (``-`` and ``_`` for ``+`` and ``/``) of every string, ``=``
    padding only with ``pad``."""
    return make_tensor("EncodeBase64", [_strings(input, "input")], _dtypes.string,
                       {"pad": bool(pad)}, name=name or "EncodeBase64")


def decode_base64(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The bytes of every web-safe base64 string (padded or not)."""
    return make_tensor("DecodeBase64", [_strings(input, "input")], _dtypes.string,
                       name=name or "DecodeBase64")


def string_to_hash_bucket(string_tensor: Any = None, num_buckets: Optional[int] = None,
                          name: Optional[str] = None, input: Any = None) -> Tensor:  # noqa: A002
    """Each string hashed to an int64 bucket with TensorFlow's legacy 64-bit hash (the one
    ``tf.string_to_hash_bucket`` has always used), modulo ``num_buckets``."""
    if (string_tensor is None) == (input is None):
        raise ValueError("string_to_hash_bucket: give exactly one of string_tensor and input")
    if not isinstance(num_buckets, int) or num_buckets < 1:
        raise ValueError(f"string_to_hash_bucket: num_buckets must be a positive integer, got "
                         f"{num_buckets!r}")
    x = _strings(input if string_tensor is None else string_tensor, "string_tensor")
    return make_tensor("StringToHashBucket", [x], _dtypes.int64, {"num_buckets": num_buckets},
                       name=name or "StringToHashBucket")


def to_number(string_tensor: Any = None, out_type: Any = _dtypes.float32,
              name: Optional[str] = None, input: Any = None) -> Tensor:  # noqa: A002
    """``tf.strings.to_number``: ``string_to_number`` taking ``input`` as well."""
    if (string_tensor is None) == (input is None):
        raise ValueError("strings.to_number: give exactly one of string_tensor and input")
    return string_to_number(input if string_tensor is None else string_tensor, out_type, name)


def strings_split(input: Any = None, sep: Any = None, maxsplit: int = -1,  # noqa: A002
                  result_type: str = "SparseTensor", source: Any = None,
                  name: Optional[str] = None) -> SparseTensor:
    """``tf.strings.split`` of TF 1.x: splits each string of a vector at ``sep`` (a whole
    string; consecutive separators give empty tokens) or, when ``sep`` is None or empty,
    at runs of whitespace; at most ``maxsplit`` splits per string when it is >= 0.

    Returns:
      A rank-2 ``SparseTensor`` of tokens, ``[len(input), most tokens]`` dense.

    Raises:
      ValueError: ``result_type`` other than ``"SparseTensor"`` (tensorfleet has no
        RaggedTensor), or both/neither of ``input`` and ``source``.
    """
    if result_type != "SparseTensor":
        raise ValueError(f"strings.split: result_type {result_type!r} is not supported; "
                         f"only 'SparseTensor' (tensorfleet has no RaggedTensor)")
    if (input is None) == (source is None):
        raise ValueError("strings.split: give exactly one of input and source")
    with name_scope(name, "StringSplit"):
        src = _strings(input if source is None else source, "input")
        if src.shape.ndims is not None and src.shape.ndims != 1:
            raise ValueError(f"strings.split: input must be a vector, got shape {src.shape}")
        sep_t = _strings("" if sep is None else sep, "sep")
        op = make_op("StringSplitV2", [src, sep_t],
                     [_dtypes.int64, _dtypes.string, _dtypes.int64],
                     {"maxsplit": int(maxsplit)}, name="StringSplitV2")
    return SparseTensor(op.outputs[0], op.outputs[1], op.outputs[2])


def write_file(filename: Any, contents: Any, name: Optional[str] = None) -> Operation:
    """Writes the string scalar ``contents`` to the file ``filename`` (replacing it, and
    creating missing parent directories) each time the returned op runs."""
    fn = _strings(filename, "filename")
    data = _strings(contents, "contents")
    for t, what in ((fn, "filename"), (data, "contents")):
        if t.shape.ndims not in (None, 0):
            raise ValueError(f"write_file: {what} must be a scalar, got shape {t.shape}")
    return make_op("WriteFile", [fn, data], [], name=name or "WriteFile")


__all__ = ["write_file", "length", "substr", "string_join", "reduce_join", "regex_full_match",
           "regex_replace", "string_strip", "upper", "lower", "encode_base64", "decode_base64",
           "string_to_hash_bucket", "to_number", "strings_split"]
