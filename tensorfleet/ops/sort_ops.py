"""``tf.sort``, ``tf.argsort`` and ``tf.reverse``, built from ``top_k`` and strided slices.

Sorting runs ``top_k`` over the whole of the sorted axis (moved last when it is
not), on the negated values for ascending order, so equal values keep their
original order either way.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.nn_sampling_ops import top_k
from tensorfleet.ops.op_util import const_value


def _check_direction(direction: str, fname: str) -> None:
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"{fname}: direction must be 'ASCENDING' or 'DESCENDING', got "
                         f"{direction!r}")


def _static_axis(x: Tensor, axis: Any, fname: str) -> int:
    if isinstance(axis, Tensor):
        value = const_value(axis)
        if value is None:
            raise ValueError(f"{fname}: axis must be known when the graph is built, got the "
                             f"computed tensor {axis.name}")
        axis = int(value)
    rank = x.shape.ndims
    if rank is None:
        if axis != -1:
            raise ValueError(f"{fname}: the rank of the input must be known to sort along "
                             f"axis {axis}")
        return -1
    if not -rank <= int(axis) < rank:
        raise ValueError(f"{fname}: axis {axis} is out of range for rank {rank}")
    return int(axis) % rank


def _last_axis_perm(rank: int, axis: int) -> List[int]:
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return perm


def _sorted_indices_values(x: Tensor, axis: int, direction: str) -> Any:
    """top_k over the whole of ``axis``: (values, int32 indices) in ``direction``."""
    rank = x.shape.ndims
    moved = rank is not None and axis not in (-1, rank - 1)
    if moved:
        perm = _last_axis_perm(rank, axis)
        x = A.transpose(x, perm)
    if direction == "ASCENDING":
        # Negation keeps the order of ties; for unsigned or the most negative int it
        # would wrap, so integers are ranked through a float64 copy.
        key = M.negative(x if x.dtype.is_floating else A.cast(x, _dtypes.float64))
    else:
        key = x
    n = A.shape(x)[-1]
    values, indices = top_k(key, k=n)
    if direction == "ASCENDING":
        values = M.negative(values)
        if values.dtype is not x.dtype:
            values = A.cast(values, x.dtype)
    elif values.dtype is not x.dtype:
        values = A.cast(values, x.dtype)
    if moved:
        values, indices = A.transpose(values, perm), A.transpose(indices, perm)
    return values, indices


def sort(values: Any, axis: Any = -1, direction: str = "ASCENDING",
         name: Optional[str] = None) -> Tensor:
    """``values`` sorted along ``axis``.

    Raises:
      ValueError: for an unknown ``direction`` or an axis that is not static.
    """
    _check_direction(direction, "sort")
    with name_scope(name, "sort", [values]):
        x = convert_to_tensor(values, name="values")
        return _sorted_indices_values(x, _static_axis(x, axis, "sort"), direction)[0]


def argsort(values: Any, axis: Any = -1, direction: str = "ASCENDING", stable: bool = False,
            name: Optional[str] = None) -> Tensor:
    """int32 indices that sort ``values`` along ``axis``; equal values keep their
    order, so the result is stable whatever ``stable`` says.

    Raises:
      ValueError: for an unknown ``direction`` or an axis that is not static.
    """
    _check_direction(direction, "argsort")
    with name_scope(name, "argsort", [values]):
        x = convert_to_tensor(values, name="values")
        return _sorted_indices_values(x, _static_axis(x, axis, "argsort"), direction)[1]


def reverse(tensor: Any, axis: Sequence[int], name: Optional[str] = None) -> Tensor:
    """``tensor`` with the order of its entries reversed along each of ``axis``.

    Raises:
      ValueError: for an axis out of range, repeated, computed at run time, or
        of mixed signs on a tensor of unknown rank.
    """
    with name_scope(name, "ReverseV2", [tensor]):
        x = convert_to_tensor(tensor, name="tensor")
        if isinstance(axis, Tensor):
            value = const_value(axis)
            if value is None:
                raise ValueError(f"reverse: axis must be known when the graph is built, got "
                                 f"the computed tensor {axis.name}")
            axis = value
        axes = [int(a) for a in (axis.tolist() if hasattr(axis, "tolist") else axis)]
        rank = x.shape.ndims
        flip = slice(None, None, -1)
        if rank is not None:
            if any(not -rank <= a < rank for a in axes):
                raise ValueError(f"reverse: axis {axes} is out of range for rank {rank}")
            norm = [a % rank for a in axes]
            if len(set(norm)) != len(norm):
                raise ValueError(f"reverse: axis {axes} names a dimension twice")
            index: List[Any] = [flip if d in norm else slice(None) for d in range(rank)]
        elif not axes:
            return A.identity(x)
        elif all(a >= 0 for a in axes):
            index = [flip if d in axes else slice(None) for d in range(max(axes) + 1)]
            index.append(Ellipsis)
        elif all(a < 0 for a in axes):
            index = [Ellipsis] + [flip if d in axes else slice(None)
                                  for d in range(min(axes), 0)]
        else:
            raise ValueError("reverse: axes of mixed signs need a tensor of known rank")
        if not index or all(s == slice(None) for s in index if s is not Ellipsis):
            return A.identity(x)
        return x[tuple(index)]


reverse_v2 = reverse

__all__ = ["sort", "argsort", "reverse", "reverse_v2"]
