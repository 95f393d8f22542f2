"""``tf.strings.unicode_transcode`` and ``tf.strings.unsorted_segment_join``."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops.op_util import make_tensor, same_shape
from tensorfleet.framework.static_value import get_static_value

# TensorFlow's encoding names and Python's codecs for them.
INPUT_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be",
                   "US-ASCII": "ascii", "ISO-8859-1": "latin-1"}
OUTPUT_ENCODINGS = ("UTF-8", "UTF-16-BE", "UTF-32-BE")


def _join_shape(op: Any) -> list:
    data, ids = op.inputs[0].shape, op.inputs[1].shape
    n = get_static_value(op.inputs[2])
    head = [None if n is None else int(n)]
    if data.ndims is None or ids.ndims is None:
        return [TensorShape(None)]
    return [TensorShape(head + data.as_list()[ids.ndims:])]


register_op("UnicodeTranscode", same_shape)
register_op("UnsortedSegmentJoin", _join_shape)


def unicode_transcode(input: Any, input_encoding: str, output_encoding: str,  # noqa: A002
                      errors: str = "replace", replacement_char: int = 65533,
                      replace_control_characters: bool = False,
                      name: Optional[str] = None) -> Tensor:
    """Every string of ``input`` decoded from ``input_encoding`` and encoded in
    ``output_encoding``. Invalid sequences (and, with ``replace_control_characters``, the
    C0 control characters) are replaced by ``replacement_char`` (``errors="replace"``),
    dropped (``"ignore"``) or an InvalidArgumentError when run (``"strict"``).

    Raises:
      ValueError: an encoding, ``errors`` or ``replacement_char`` TensorFlow does not take.
    """
    if input_encoding not in INPUT_ENCODINGS:
        raise ValueError(f"unicode_transcode: input_encoding must be one of "
                         f"{sorted(INPUT_ENCODINGS)}, got {input_encoding!r}")
    if output_encoding not in OUTPUT_ENCODINGS:
        raise ValueError(f"unicode_transcode: output_encoding must be one of "
                         f"{list(OUTPUT_ENCODINGS)}, got {output_encoding!r}")
    if errors not in ("replace", "ignore", "strict"):
        raise ValueError(f"unicode_transcode: errors must be 'replace', 'ignore' or "
                         f"'strict', got {errors!r}")
    if isinstance(replacement_char, bool) or not isinstance(replacement_char, int) or \
            not 0 <= replacement_char <= 0x10FFFF or 0xD800 <= replacement_char <= 0xDFFF:
        raise ValueError(f"unicode_transcode: replacement_char must be a Unicode code point, "
                         f"got {replacement_char!r}")
    x = convert_to_tensor(input, dtype=_dtypes.string, name="input")
    return make_tensor("UnicodeTranscode", [x], _dtypes.string,
                       {"input_encoding": input_encoding, "output_encoding": output_encoding,
                        "errors": errors, "replacement_char": replacement_char,
                        "replace_control_characters": bool(replace_control_characters)},
                       name=name or "UnicodeTranscode")


def unsorted_segment_join(inputs: Any, segment_ids: Any, num_segments: Any,
                          separator: str = "", name: Optional[str] = None) -> Tensor:
    """The strings of ``inputs`` joined (with ``separator``, in order) per segment:
    ``segment_ids`` (a prefix of ``inputs``' shape) names the segment of each; the result
    has ``num_segments`` rows, empty for segments nothing names.

    Raises:
      InvalidArgumentError: (when run) an id that is negative or not below
        ``num_segments``.
    """
    data = convert_to_tensor(inputs, dtype=_dtypes.string, name="inputs")
    ids = convert_to_tensor(segment_ids, name="segment_ids")
    if not ids.dtype.is_integer:
        raise TypeError(f"unsorted_segment_join: segment_ids must be integers, got "
                        f"{ids.dtype.name}")
    n = convert_to_tensor(num_segments, name="num_segments")
    return make_tensor("UnsortedSegmentJoin", [data, ids, n], _dtypes.string,
                       {"separator": str(separator)}, name=name or "UnsortedSegmentJoin")


__all__ = ["unicode_transcode", "unsorted_segment_join"]
