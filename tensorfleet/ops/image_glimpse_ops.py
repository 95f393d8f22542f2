"""``tf.image.extract_glimpse``: a window of each image of a batch, centred on an offset;
where the window leaves the image it is filled with noise drawn from that image's values."""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops.op_util import const_value, make_tensor


def _glimpse_shape(op: Operation) -> List[TensorShape]:
    x = op.inputs[0].shape
    size = const_value(op.inputs[1])
    hw = [None, None] if size is None else [int(v) for v in size]
    if x.ndims is None:
        return [TensorShape([None] + hw + [None])]
    dims = x.as_list()
    return [TensorShape([dims[0]] + hw + [dims[3]])]


# The noise is random: the op must run anew every step.
register_op("ExtractGlimpse", _glimpse_shape, stateful=True)


def extract_glimpse(input: Any, size: Any, offsets: Any,  # noqa: A002 (TF's name)
                    centered: bool = True, normalized: bool = True,
                    uniform_noise: bool = True, name: Optional[str] = None) -> Tensor:
    """Windows of ``size`` ``[height, width]`` from a float32 ``[batch, h, w, c]`` batch.

    ``offsets`` (float32 ``[batch, 2]``, ``(y, x)``) places each window's centre: with
    ``normalized`` as fractions of the image size, with ``centered`` relative to the image
    centre (``-1 .. 1`` spanning the image when both are set), otherwise from the top-left
    corner. The window's top-left pixel is the centre less half the window, truncated to an
    integer. Pixels outside the image are noise: uniform between the image's smallest and
    largest value (``uniform_noise``), or Gaussian with each channel's mean and standard
    deviation.

    Raises:
      ValueError: input not of rank 4, or offsets not ``[batch, 2]``.
      TypeError: input not float32.
    """
    with name_scope(name, "ExtractGlimpse"):
        x = convert_to_tensor(input, name="input")
        if x.dtype is not _dtypes.float32:
            raise TypeError(f"extract_glimpse: input must be float32, got {x.dtype.name}")
        if x.shape.ndims not in (None, 4):
            raise ValueError(f"extract_glimpse: input must be [batch, height, width, "
                             f"channels], got {x.shape}")
        sz = convert_to_tensor(size, dtype=_dtypes.int32, name="size")
        off = convert_to_tensor(offsets, dtype=_dtypes.float32, name="offsets")
        if off.shape.ndims not in (None, 2) or (off.shape.ndims == 2 and
                                                off.shape.as_list()[1] not in (None, 2)):
            raise ValueError(f"extract_glimpse: offsets must be [batch, 2], got {off.shape}")
        return make_tensor("ExtractGlimpse", [x, sz, off], _dtypes.float32,
                           {"centered": bool(centered), "normalized": bool(normalized),
                            "uniform_noise": bool(uniform_noise), "noise": "uniform"
                            if uniform_noise else "gaussian"},
                           name="ExtractGlimpse")


__all__ = ["extract_glimpse"]
