"""Functions of square matrices: ``tf.linalg.expm``, ``logm`` and ``sqrtm`` (also
``tf.matrix_square_root``), batched over leading dimensions.

The ops are ``MatrixExponential``, ``MatrixLogarithm`` (complex input only, as in
TensorFlow) and ``MatrixSquareRoot``; values come from ``scipy.linalg``. The exponential
and the square root differentiate through their adjoint Fréchet derivatives
(``MatrixExponentialGrad``, ``MatrixSquareRootGrad``); the logarithm has no gradient, as
in TensorFlow.
"""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.ops.op_util import make_tensor, same_shape

for _t in ("MatrixExponential", "MatrixLogarithm", "MatrixSquareRoot",
           "MatrixExponentialGrad", "MatrixSquareRootGrad"):
    register_op(_t, same_shape)


def _square(x: Any, what: str, kinds: str) -> Tensor:
    t = convert_to_tensor(x)
    if t.dtype.kind not in kinds:
        allowed = "complex64 or complex128" if kinds == "c" else "float or complex"
        raise TypeError(f"{what} takes a {allowed} tensor, got {t.dtype.name} ({t.name})")
    dims = t.shape.as_list() if t.shape.ndims is not None else None
    if dims is not None:
        if len(dims) < 2:
            raise ValueError(f"{what} needs matrices (rank >= 2), got shape {t.shape}")
        if None not in dims[-2:] and dims[-1] != dims[-2]:
            raise ValueError(f"{what} needs square matrices, got shape {t.shape}")
    return t


def expm(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The matrix exponential of each ``[..., M, M]`` matrix."""
    x = _square(input, "expm", "fc")
    return make_tensor("MatrixExponential", [x], x.dtype, name=name or "MatrixExponential")


def logm(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The principal matrix logarithm of each complex ``[..., M, M]`` matrix."""
    x = _square(input, "logm", "c")
    return make_tensor("MatrixLogarithm", [x], x.dtype, name=name or "MatrixLogarithm")


def sqrtm(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The principal square root of each ``[..., M, M]`` matrix (real input gives the real
    root; a matrix without one gives nan)."""
    x = _square(input, "sqrtm", "fc")
    return make_tensor("MatrixSquareRoot", [x], x.dtype, name=name or "MatrixSquareRoot")


def expm_grad(a: Tensor, grad: Tensor) -> Tensor:
    """The gradient of ``expm`` at ``a`` for the incoming gradient ``grad``."""
    return make_tensor("MatrixExponentialGrad", [a, grad], a.dtype,
                       name="MatrixExponentialGrad")


def sqrtm_grad(root: Tensor, grad: Tensor) -> Tensor:
    """The gradient of ``sqrtm`` given its output ``root`` and the incoming ``grad``."""
    return make_tensor("MatrixSquareRootGrad", [root, grad], root.dtype,
                       name="MatrixSquareRootGrad")
