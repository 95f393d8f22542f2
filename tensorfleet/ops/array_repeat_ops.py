"""``tf.repeat``: every element (or slice along an axis) repeated a number of times.

Built from ``gather``: the output position ``p`` reads the input slice whose cumulative
repeat count first exceeds ``p``, so the gradient is ``gather``'s (repeats added up).
"""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, control_dependencies, convert_to_tensor, \
    name_scope
from tensorfleet.ops.array_indexing_ops import gather, range as _range
from tensorfleet.ops.array_ops_core import cast, reshape, shape
from tensorfleet.ops.array_transform_ops import broadcast_to, searchsorted
from tensorfleet.ops.check_ops import assert_non_negative
from tensorfleet.ops.math_ops_reduce import cumsum, reduce_sum


def repeat(input: Any, repeats: Any, axis: Optional[int] = None,  # noqa: A002 (TF's name)
           name: Optional[str] = None) -> Tensor:
    """``input`` with slice ``i`` along ``axis`` repeated ``repeats[i]`` times (a scalar
    ``repeats`` applies to every slice); with ``axis=None`` the flattened input.

    Raises:
      ValueError: ``axis`` out of range, or ``repeats`` of rank above 1.
      TypeError: ``repeats`` not integer.
      InvalidArgumentError: (when run) a negative repeat count.
    """
    with name_scope(name, "Repeat"):
        x = convert_to_tensor(input, name="input")
        if axis is None:
            x = reshape(x, [-1])
            axis = 0
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"repeat: axis must be a Python int, got {axis!r}")
        rank = x.shape.ndims
        if rank is not None:
            if not -rank <= axis < max(rank, 1) or rank == 0:
                raise ValueError(f"repeat: axis {axis} is out of range for an input of rank "
                                 f"{rank}")
            axis %= rank
        elif axis < 0:
            raise ValueError("repeat: a negative axis needs an input of known rank")
        reps = convert_to_tensor(repeats, name="repeats")
        if reps.dtype not in (_dtypes.int32, _dtypes.int64):
            raise TypeError(f"repeat: repeats must be int32 or int64, got {reps.dtype.name}")
        if reps.shape.ndims is not None and reps.shape.ndims > 1:
            raise ValueError(f"repeat: repeats must be a scalar or a vector, got shape "
                             f"{reps.shape}")
        reps = cast(reps, _dtypes.int64)
        n = cast(shape(x)[axis:axis + 1], _dtypes.int64)
        reps = broadcast_to(reps, n)
        with control_dependencies([assert_non_negative(
                reps, message="repeat: repeats must be non-negative")]):
            ends = cumsum(reps)
            total = reduce_sum(reps)
        positions = _range(total)
        source = searchsorted(ends, positions, side="right", out_type=_dtypes.int64)
        return gather(x, source, axis=axis)
