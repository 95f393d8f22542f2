"""Complex numbers: ``tf.complex``, ``tf.real``, ``tf.imag``, ``tf.angle``, ``tf.conj``
and the absolute value of a complex tensor (``ComplexAbs``, what ``tf.abs`` runs on
complex input).

The op types and attributes are TensorFlow's (``Complex``/``Real``/``Imag``/``Angle``
carry ``Tout``); on real input ``real`` and ``conj`` return the input, ``imag`` zeros and
``angle`` 0 or pi by the sign, as TensorFlow's Python wrappers do.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.ops.array_indexing_ops import where
from tensorfleet.ops.array_ops_core import cast, zeros_like
from tensorfleet.ops.op_util import broadcast_binary, convert_pair, make_tensor, same_shape

for _t in ("Real", "Imag", "Angle", "Conj", "ComplexAbs"):
    register_op(_t, same_shape)
register_op("Complex", broadcast_binary)

_COMPLEX_OF = {"float32": _dtypes.complex64, "float64": _dtypes.complex128}


def _need_complex(x: Tensor, what: str) -> None:
    if not x.dtype.is_complex:
        raise TypeError(f"{what} takes a complex64 or complex128 tensor, got "
                        f"{x.dtype.name} ({x.name})")


def complex(real: Any, imag: Any, name: Optional[str] = None) -> Tensor:  # noqa: A001
    """The complex tensor ``real + 1j * imag`` (float32 parts give complex64, float64
    parts complex128), with broadcasting.

    Raises:
      TypeError: the parts differ in dtype or are not float32/float64.
    """
    real, imag = convert_pair(real, imag)
    out = _COMPLEX_OF.get(real.dtype.name)
    if out is None:
        raise TypeError(f"tf.complex takes float32 or float64 parts, got {real.dtype.name}")
    return make_tensor("Complex", [real, imag], out, {"Tout": out}, name=name or "Complex")


def real(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The real part of a complex tensor; a real tensor is returned as it is."""
    x = convert_to_tensor(input)
    if not x.dtype.is_complex:
        _need_numeric(x, "tf.math.real")
        return x
    out = x.dtype.real_dtype
    return make_tensor("Real", [x], out, {"Tout": out}, name=name or "Real")


def imag(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The imaginary part of a complex tensor; zeros for a real tensor."""
    x = convert_to_tensor(input)
    if not x.dtype.is_complex:
        _need_numeric(x, "tf.math.imag")
        return zeros_like(x, name=name)
    out = x.dtype.real_dtype
    return make_tensor("Imag", [x], out, {"Tout": out}, name=name or "Imag")


def angle(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The argument of each element, in ``(-pi, pi]``; for a real tensor 0 where it is
    non-negative and pi where it is negative."""
    x = convert_to_tensor(input)
    if not x.dtype.is_complex:
        _need_numeric(x, "tf.math.angle")
        if not x.dtype.is_floating:
            raise TypeError(f"tf.math.angle takes floating or complex tensors, got "
                            f"{x.dtype.name}")
        zero = zeros_like(x)
        negative = make_tensor("Less", [x, zero], _dtypes.bool, name="Less")
        pi = convert_to_tensor(math.pi, dtype=x.dtype)
        return where(negative, zero + pi, zero, name=name)
    out = x.dtype.real_dtype
    return make_tensor("Angle", [x], out, {"Tout": out}, name=name or "Angle")


def conj(x: Any, name: Optional[str] = None) -> Tensor:
    """The complex conjugate; a real numeric tensor is returned as it is.

    Raises:
      TypeError: ``x`` is neither numeric nor complex.
    """
    x = convert_to_tensor(x)
    if not x.dtype.is_complex:
        _need_numeric(x, "tf.math.conj")
        return x
    return make_tensor("Conj", [x], x.dtype, name=name or "Conj")


def complex_abs(x: Any, name: Optional[str] = None) -> Tensor:
    """``|x|`` of a complex tensor, as a float tensor of the matching precision."""
    x = convert_to_tensor(x)
    _need_complex(x, "ComplexAbs")
    out = x.dtype.real_dtype
    return make_tensor("ComplexAbs", [x], out, {"Tout": out}, name=name or "ComplexAbs")


def to_complex64(x: Any, name: str = "ToComplex64") -> Tensor:
    """``cast(x, tf.complex64)``."""
    return cast(x, _dtypes.complex64, name=name)


def to_complex128(x: Any, name: str = "ToComplex128") -> Tensor:
    """``cast(x, tf.complex128)``."""
    return cast(x, _dtypes.complex128, name=name)


def to_bfloat16(x: Any, name: str = "ToBFloat16") -> Tensor:
    """``cast(x, tf.bfloat16)``."""
    return cast(x, _dtypes.bfloat16, name=name)


def _need_numeric(x: Tensor, what: str) -> None:
    if not x.dtype.is_numeric:
        raise TypeError(f"{what} takes a numeric tensor, got {x.dtype.name} ({x.name})")
