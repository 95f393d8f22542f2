"""Framing a signal and putting frames back together: ``tf.signal.frame`` and
``tf.signal.overlap_and_add``, built from ``gather`` and ``unsorted_segment_sum`` so their
gradients come from those ops. Frame lengths, steps and the framed axis's size must be
known when the graph is built."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops.array_indexing_ops import gather, pad, transpose, unsorted_segment_sum
from tensorfleet.ops.array_ops_core import reshape
from tensorfleet.ops.op_util import const_value


def static_int(value: Any, what: str) -> int:
    """``value`` (a Python int or a constant scalar tensor) as an int."""
    if isinstance(value, Tensor):
        v = const_value(value)
        if v is None:
            raise ValueError(f"{what} must be known when the graph is built (an int or a "
                             f"constant), got the computed tensor {value.name}")
        value = v
    arr = np.asarray(value)
    if arr.ndim != 0 or arr.dtype.kind not in "iu":
        raise ValueError(f"{what} must be an integer scalar, got {value!r}")
    return int(arr)


def frame(signal: Any, frame_length: Any, frame_step: Any, pad_end: bool = False,
          pad_value: Any = 0, axis: int = -1, name: Optional[str] = None) -> Tensor:
    """Frames of ``frame_length`` samples every ``frame_step`` samples along ``axis``: the
    axis of length ``n`` becomes two, ``[num_frames, frame_length]``. Without ``pad_end``
    the frames that run past the end are dropped; with it the signal is padded with
    ``pad_value`` so that a frame starts at every step (``ceil(n / frame_step)``
    frames)."""
    with name_scope(name, "frame"):
        x = convert_to_tensor(signal)
        length = static_int(frame_length, "frame_length")
        step = static_int(frame_step, "frame_step")
        if length < 1 or step < 1:
            raise ValueError(f"frame_length and frame_step must be positive, got {length} "
                             f"and {step}")
        rank = x.shape.ndims
        if rank is None or rank == 0:
            raise ValueError(f"frame needs a signal of rank >= 1 and known rank, got {x.shape}")
        if not -rank <= axis < rank:
            raise ValueError(f"axis {axis} is out of range for a signal of rank {rank}")
        axis %= rank
        n = x.shape.as_list()[axis]
        if n is None:
            raise ValueError(f"the length of the framed axis must be known, got {x.shape}")
        if pad_end:
            count = -(-n // step)
            total = (count - 1) * step + length if count else 0
            if total > n:
                paddings = [[0, 0] for _ in range(rank)]
                paddings[axis][1] = total - n
                x = pad(x, paddings, constant_values=pad_value)
        else:
            count = max(0, 1 + (n - length) // step) if n >= length else 0
        idx = (np.arange(count)[:, None] * step + np.arange(length)[None, :]).astype(np.int32)
        return gather(x, idx, axis=axis)


def overlap_and_add(signal: Any, frame_step: Any, name: Optional[str] = None) -> Tensor:
    """The sum of frames placed ``frame_step`` apart: ``[..., frames, frame_length]``
    becomes ``[..., (frames - 1) * frame_step + frame_length]``."""
    with name_scope(name, "overlap_and_add"):
        x = convert_to_tensor(signal)
        step = static_int(frame_step, "frame_step")
        if step < 1:
            raise ValueError(f"frame_step must be positive, got {step}")
        shape = x.shape.as_list() if x.shape.ndims is not None else None
        if shape is None or len(shape) < 2 or any(d is None for d in shape):
            raise ValueError(f"overlap_and_add needs a signal of rank >= 2 with a known shape, "
                             f"got {x.shape}")
        frames, length = shape[-2], shape[-1]
        if step > length:
            raise ValueError(f"frame_step ({step}) must not exceed frame_length ({length})")
        out_len = (frames - 1) * step + length if frames else 0
        outer = shape[:-2]
        flat = reshape(x, [-1, frames * length])
        ids = (np.arange(frames)[:, None] * step + np.arange(length)[None, :]).reshape(-1)
        summed = unsorted_segment_sum(transpose(flat), ids.astype(np.int32), out_len)
        return reshape(transpose(summed), outer + [out_len])
