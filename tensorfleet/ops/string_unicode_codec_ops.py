"""``tf.strings`` between strings and code points: ``unicode_decode`` (and
``_with_offsets``), ``unicode_encode``, ``unicode_split`` (and ``_with_offsets``) and
``bytes_split``.

A string tensor of shape ``[d0, ..., dk]`` decodes to a ``RaggedTensor`` of shape
``[d0, ..., dk, (chars)]``: the kernels work on the flat strings and give one vector of
values and its row splits; the outer dimensions are put back as uniform row partitions,
and a ragged input keeps its own. A scalar string gives a plain vector.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.op_util import make_op
from tensorfleet.ops.ragged_tensor import RaggedTensor
from tensorfleet.ops.string_unicode_ops import INPUT_ENCODINGS, OUTPUT_ENCODINGS

_ERRORS = ("replace", "ignore", "strict")


def _split_shapes(op: Operation) -> List[TensorShape]:
    n = op.inputs[0].shape.num_elements()
    rest = [TensorShape([None])] * (len(op.outputs) - 1)
    return [TensorShape([None if n is None else n + 1])] + rest


def _encode_shape(op: Operation) -> List[TensorShape]:
    n = op.inputs[1].shape.as_list()[0] if op.inputs[1].shape.ndims == 1 else None
    return [TensorShape([None if n is None else n - 1])]


register_op("UnicodeDecode", _split_shapes)
register_op("UnicodeDecodeWithOffsets", _split_shapes)
register_op("UnicodeEncode", _encode_shape)
register_op("StringBytesSplit", _split_shapes)


def _check_codec(what: str, errors: str, replacement_char: Any) -> None:
    if errors not in _ERRORS:
        raise ValueError(f"{what}: errors must be one of {list(_ERRORS)}, got {errors!r}")
    if isinstance(replacement_char, bool) or not isinstance(replacement_char, int) or \
            not 0 <= replacement_char <= 0x10FFFF or 0xD800 <= replacement_char <= 0xDFFF:
        raise ValueError(f"{what}: replacement_char must be a Unicode code point, got "
                         f"{replacement_char!r}")


def _check_input_encoding(what: str, encoding: str) -> None:
    if encoding not in INPUT_ENCODINGS:
        raise ValueError(f"{what}: input_encoding {encoding!r} is not supported; supported: "
                         f"{sorted(INPUT_ENCODINGS)}")


def _uniform_splits(rows: Tensor, width: Tensor) -> Tensor:
    """The row splits of ``rows`` rows of ``width`` values each."""
    return A.range(0, rows + 1, dtype=_dtypes.int64) * width


def _uniform_outer(inner: Any, dims: Tensor, rank: int) -> Any:
    """``inner`` (one row per string of a flattened ``[d0, ..., d{rank-1}]`` tensor) with
    those dimensions put back as uniform row partitions."""
    out = inner
    for axis in range(rank - 1, 0, -1):
        out = RaggedTensor.from_row_splits(
            out, _uniform_splits(M.reduce_prod(dims[:axis]), dims[axis]), validate=False)
    return out


def _per_string(what: str, input: Any,  # noqa: A002 (TF's name)
                flat_fn: Callable[[Tensor], Tuple[Tensor, List[Tensor]]]) -> List[Any]:
    """Applies ``flat_fn`` (strings vector -> row splits and value vectors) to ``input``
    and gives each value vector the shape of ``input`` plus one ragged dimension."""
    if isinstance(input, RaggedTensor):
        flat = input.flat_values
        if flat.shape.ndims != 1:
            raise ValueError(f"{what}: a ragged input needs flat values of rank 1, got "
                             f"{flat.shape}")
        outs = _per_string(what, flat, flat_fn)
        return [RaggedTensor.from_nested_row_splits(o, input.nested_row_splits,
                                                    validate=False) for o in outs]
    x = convert_to_tensor(input, dtype=_dtypes.string, name="input")
    rank = x.shape.ndims
    if rank is None:
        raise ValueError(f"{what}: the rank of input must be known when the graph is built")
    splits, values = flat_fn(A.reshape(x, [-1]))
    if rank == 0:
        return values
    dims = A.shape(x, out_type=_dtypes.int64)
    return [_uniform_outer(RaggedTensor.from_row_splits(v, splits, validate=False), dims,
                           rank) for v in values]


def _decode_op(x: Tensor, op_type: str, input_encoding: str, errors: str,
               replacement_char: int, replace_control_characters: bool) -> Operation:
    outs = [_dtypes.int64, _dtypes.int32] + ([_dtypes.int64] if op_type.endswith("Offsets")
                                             else [])
    return make_op(op_type, [x], outs,
                   {"input_encoding": input_encoding, "errors": errors,
                    "replacement_char": int(replacement_char),
                    "replace_control_characters": bool(replace_control_characters),
                    "Tsplits": _dtypes.int64}, name=op_type)


def _decode(what: str, input: Any, input_encoding: str, errors: str,  # noqa: A002
            replacement_char: int, replace_control_characters: bool,
            with_offsets: bool) -> List[Any]:
    _check_input_encoding(what, input_encoding)
    _check_codec(what, errors, replacement_char)
    op_type = "UnicodeDecodeWithOffsets" if with_offsets else "UnicodeDecode"

    def flat_fn(x: Tensor) -> Tuple[Tensor, List[Tensor]]:
        op = _decode_op(x, op_type, input_encoding, errors, replacement_char,
                        replace_control_characters)
        return op.outputs[0], list(op.outputs[1:])
    return _per_string(what, input, flat_fn)


def unicode_decode(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002
                   replacement_char: int = 65533, replace_control_characters: bool = False,
                   name: Optional[str] = None) -> Any:
    """The code points (int32) of every string of ``input``, decoded from
    ``input_encoding``: a ``RaggedTensor`` with one more (ragged) dimension than
    ``input`` (a vector for a scalar string).

    Each invalid sequence becomes ``replacement_char`` (``errors="replace"``), is dropped
    (``"ignore"``) or is an InvalidArgumentError when run (``"strict"``); with
    ``replace_control_characters`` the C0 controls are treated the same way.

    Raises:
      ValueError: an encoding, ``errors`` or ``replacement_char`` not supported, or an
        input of unknown rank.
    """
    with name_scope(name, "UnicodeDecode"):
        return _decode("unicode_decode", input, input_encoding, errors, replacement_char,
                       replace_control_characters, False)[0]


def unicode_decode_with_offsets(input: Any, input_encoding: str,  # noqa: A002
                                errors: str = "replace", replacement_char: int = 65533,
                                replace_control_characters: bool = False,
                                name: Optional[str] = None) -> Tuple[Any, Any]:
    """``unicode_decode`` and, for each code point, the byte offset (int64) in its string
    where the character (or the invalid sequence it replaces) starts."""
    with name_scope(name, "UnicodeDecodeWithOffsets"):
        points, starts = _decode("unicode_decode_with_offsets", input, input_encoding,
                                 errors, replacement_char, replace_control_characters, True)
        return points, starts


def _encode_flat(values: Tensor, splits: Tensor, output_encoding: str, errors: str,
                 replacement_char: int) -> Tensor:
    return make_op("UnicodeEncode", [A.cast(values, _dtypes.int32),
                                     A.cast(splits, _dtypes.int64)], [_dtypes.string],
                   {"errors": errors, "output_encoding": output_encoding,
                    "replacement_char": int(replacement_char), "Tsplits": _dtypes.int64},
                   name="UnicodeEncode").outputs[0]


def _encode_dense(x: Tensor, output_encoding: str, errors: str,
                  replacement_char: int) -> Tensor:
    rank = x.shape.ndims
    if rank is None or rank == 0:
        raise ValueError(f"unicode_encode: input must have rank >= 1 (known when the graph "
                         f"is built), got {x.shape}")
    dims = A.shape(x, out_type=_dtypes.int64)
    splits = _uniform_splits(M.reduce_prod(dims[:-1]), dims[-1])
    out = _encode_flat(A.reshape(x, [-1]), splits, output_encoding, errors, replacement_char)
    return A.reshape(out, dims[:-1])


def unicode_encode(input: Any, output_encoding: str, errors: str = "replace",  # noqa: A002
                   replacement_char: int = 65533, name: Optional[str] = None) -> Any:
    """The strings, in ``output_encoding``, whose code points are the innermost dimension
    of ``input`` (an int32 tensor of rank >= 1 or a ``RaggedTensor``); the result has one
    dimension fewer. A value that is not a code point (negative, above U+10FFFF, a
    surrogate) becomes ``replacement_char``, is dropped, or with ``errors="strict"`` is an
    InvalidArgumentError when run.

    Raises:
      ValueError: an encoding other than UTF-8, UTF-16-BE and UTF-32-BE, a bad ``errors``
        or ``replacement_char``, or a dense input of rank 0.
    """
    if output_encoding not in OUTPUT_ENCODINGS:
        raise ValueError(f"unicode_encode: output_encoding must be one of "
                         f"{list(OUTPUT_ENCODINGS)}, got {output_encoding!r}")
    _check_codec("unicode_encode", errors, replacement_char)
    with name_scope(name, "UnicodeEncode"):
        if not isinstance(input, RaggedTensor):
            x = convert_to_tensor(input, name="input")
            if not x.dtype.is_integer:
                raise TypeError(f"unicode_encode: input must hold integer code points, got "
                                f"{x.dtype.name}")
            return _encode_dense(x, output_encoding, errors, replacement_char)
        if not input.dtype.is_integer:
            raise TypeError(f"unicode_encode: input must hold integer code points, got "
                            f"{input.dtype.name}")
        if input.flat_values.shape.ndims != 1:
            # The innermost dimension is uniform: encode the flat values as a dense tensor.
            return input.with_flat_values(_encode_dense(
                input.flat_values, output_encoding, errors, replacement_char))
        splits = list(input.nested_row_splits)
        strings = _encode_flat(input.flat_values, splits[-1], output_encoding, errors,
                               replacement_char)
        if len(splits) == 1:
            return strings
        return RaggedTensor.from_nested_row_splits(strings, splits[:-1], validate=False)


def _split(what: str, input: Any, input_encoding: str, errors: str,  # noqa: A002
           replacement_char: int, with_offsets: bool) -> List[Any]:
    _check_input_encoding(what, input_encoding)
    _check_codec(what, errors, replacement_char)
    if input_encoding not in OUTPUT_ENCODINGS:
        raise ValueError(f"{what}: characters are re-encoded in input_encoding, which must "
                         f"be one of {list(OUTPUT_ENCODINGS)}, got {input_encoding!r}")
    op_type = "UnicodeDecodeWithOffsets" if with_offsets else "UnicodeDecode"

    def flat_fn(x: Tensor) -> Tuple[Tensor, List[Tensor]]:
        op = _decode_op(x, op_type, input_encoding, errors, replacement_char, False)
        points = op.outputs[1]
        n = A.size(points, out_type=_dtypes.int64)
        one_each = A.range(0, n + 1, dtype=_dtypes.int64)
        chars = _encode_flat(points, one_each, input_encoding, errors, replacement_char)
        return op.outputs[0], [chars] + list(op.outputs[2:])
    return _per_string(what, input, flat_fn)


def unicode_split(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002
                  replacement_char: int = 65533, name: Optional[str] = None) -> Any:
    """Every string of ``input`` cut into its characters (each a string in
    ``input_encoding``): one more (ragged) dimension, as ``unicode_decode``. An invalid
    sequence becomes the encoded ``replacement_char`` or is dropped (``"ignore"``)."""
    with name_scope(name, "UnicodeSplit"):
        return _split("unicode_split", input, input_encoding, errors, replacement_char,
                      False)[0]


def unicode_split_with_offsets(input: Any, input_encoding: str,  # noqa: A002
                               errors: str = "replace", replacement_char: int = 65533,
                               name: Optional[str] = None) -> Tuple[Any, Any]:
    """``unicode_split`` and the byte offset (int64) where each character starts."""
    with name_scope(name, "UnicodeSplitWithOffsets"):
        chars, starts = _split("unicode_split_with_offsets", input, input_encoding, errors,
                               replacement_char, True)
        return chars, starts


def bytes_split(input: Any, name: Optional[str] = None) -> Any:  # noqa: A002
    """Every string of ``input`` cut into one-byte strings: one more (ragged) dimension
    (a vector for a scalar string)."""
    with name_scope(name, "BytesSplit"):
        def flat_fn(x: Tensor) -> Tuple[Tensor, List[Tensor]]:
            op = make_op("StringBytesSplit", [x], [_dtypes.int64, _dtypes.string],
                         name="StringBytesSplit")
            return op.outputs[0], [op.outputs[1]]
        return _per_string("bytes_split", input, flat_fn)[0]


__all__ = ["bytes_split", "unicode_decode", "unicode_decode_with_offsets", "unicode_encode",
           "unicode_split", "unicode_split_with_offsets"]
