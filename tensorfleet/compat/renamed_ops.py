"""TensorFlow 0.x names that TF 1.x programs written before 1.0 still call.

``tf.pack`` became ``tf.stack``, ``tf.mul`` ``tf.multiply``, ``tf.select``
``tf.where``, ``tf.concat_v2`` ``tf.concat``...; each function here is the
current op under its old name and old argument names, with no warning.
(``initialize_all_variables``, ``initialize_local_variables`` and
``all_variables`` live with the other variable helpers.)
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet.framework.graph import Tensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M


def concat_v2(values: Any, axis: Any, name: str = "concat_v2") -> Tensor:
    """``tf.concat(values, axis)``: joins tensors along ``axis``."""
    return A.concat(values, axis, name=name)


def pack(values: List[Any], axis: int = 0, name: str = "pack") -> Tensor:
    """``tf.stack``: packs rank-R tensors into one rank-(R+1) tensor along ``axis``."""
    return A.stack(values, axis=axis, name=name)


def unpack(value: Any, num: Optional[int] = None, axis: int = 0,
           name: str = "unpack") -> List[Tensor]:
    """``tf.unstack``: splits ``value`` along ``axis`` into rank-(R-1) tensors."""
    return A.unstack(value, num=num, axis=axis, name=name)


def mul(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """``tf.multiply``: element-wise ``x * y`` with broadcasting."""
    return M.multiply(x, y, name=name)


def sub(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """``tf.subtract``: element-wise ``x - y`` with broadcasting."""
    return M.subtract(x, y, name=name)


def neg(x: Any, name: Optional[str] = None) -> Tensor:
    """``tf.negative``: element-wise ``-x``."""
    return M.negative(x, name=name)


def select(condition: Any, t: Any, e: Any, name: Optional[str] = None) -> Tensor:
    """``tf.where(condition, t, e)``: elements of ``t`` where ``condition``, else of ``e``
    (a rank-1 condition picks whole rows)."""
    return A.where(condition, t, e, name=name)


def batch_matmul(x: Any, y: Any, adj_x: bool = False, adj_y: bool = False,
                 name: Optional[str] = None) -> Tensor:
    """``tf.matmul`` over the leading (batch) dimensions, ``adj_x`` / ``adj_y`` taking the
    adjoint of the last two dimensions of ``x`` / ``y``."""
    return M.matmul(x, y, adjoint_a=adj_x, adjoint_b=adj_y, name=name)


__all__ = ["concat_v2", "pack", "unpack", "mul", "sub", "neg", "select", "batch_matmul"]
