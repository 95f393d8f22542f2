"""``tf.compat``: bytes/text conversions TF 1.x programs use around file names and
export paths, and the type tuples they test values against."""

from __future__ import annotations

import numbers
import os
from typing import Any, Union

import numpy as np

bytes_or_text_types = (bytes, str)
integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)


def as_bytes(bytes_or_text: Union[bytes, str, bytearray], encoding: str = "utf-8") -> bytes:
    """``bytes_or_text`` as bytes, text encoded with ``encoding``.

    Raises:
      TypeError: for anything that is neither bytes nor text.
    """
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text: Union[bytes, str], encoding: str = "utf-8") -> str:
    """``bytes_or_text`` as text, bytes decoded with ``encoding``.

    Raises:
      TypeError: for anything that is neither bytes nor text.
    """
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


def as_str_any(value: Any) -> str:
    """``as_str(value)`` for bytes, ``str(value)`` for anything else."""
    return as_str(value) if isinstance(value, bytes) else str(value)


def path_to_str(path: Any) -> Any:
    """A ``PathLike`` as its string; anything else unchanged."""
    return os.fspath(path) if isinstance(path, os.PathLike) else path


__all__ = ["as_bytes", "as_text", "as_str", "as_str_any", "path_to_str", "bytes_or_text_types",
           "integral_types", "real_types", "complex_types"]
