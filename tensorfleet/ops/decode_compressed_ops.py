"""``tf.io.decode_compressed``: each string of a tensor decompressed from ZLIB or GZIP
(``""``: passed through)."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.ops.op_util import make_tensor, same_shape

register_op("DecodeCompressed", same_shape)


def decode_compressed(bytes: Any, compression_type: str = "",  # noqa: A002 (TF's name)
                      name: Optional[str] = None) -> Tensor:
    """The decompressed form of every string of ``bytes`` (same shape).

    Raises:
      ValueError: a ``compression_type`` other than "", "ZLIB" or "GZIP".
      InvalidArgumentError: (when run) data that is not in that format, or that
        decompresses to more than 2 GiB (a string's limit).
    """
    if compression_type not in ("", "ZLIB", "GZIP"):
        raise ValueError(f"decode_compressed: compression_type must be '', 'ZLIB' or 'GZIP', "
                         f"got {compression_type!r}")
    x = convert_to_tensor(bytes, dtype=_dtypes.string, name="bytes")
    return make_tensor("DecodeCompressed", [x], _dtypes.string,
                       {"compression_type": compression_type}, name=name or "DecodeCompressed")
