"""``tf.audio``: WAV files (16-bit PCM) to float32 samples in [-1, 1) and back."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops.op_util import make_op, make_tensor, scalar_shape


def _decoded_shapes(op: Any) -> list:
    channels, samples = op.attrs["desired_channels"], op.attrs["desired_samples"]
    return [TensorShape([samples if samples > 0 else None,
                         channels if channels > 0 else None]), TensorShape([])]


register_op("DecodeWav", _decoded_shapes)
register_op("EncodeWav", scalar_shape)


def decode_wav(contents: Any, desired_channels: int = -1, desired_samples: int = -1,
               name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """``(audio, sample_rate)``: the samples of a 16-bit PCM WAV file as float32
    ``[samples, channels]`` (``value / 32768``) and its rate (int32).

    ``desired_channels`` keeps that many channels, repeating the last when the file has
    fewer; ``desired_samples`` cuts or zero-pads to that many samples (-1: as in the file).

    Raises:
      InvalidArgumentError: (when run) data that is not a 16-bit PCM WAV file.
    """
    for what, v in (("desired_channels", desired_channels), ("desired_samples", desired_samples)):
        if isinstance(v, bool) or not isinstance(v, int) or v < -1 or v == 0:
            raise ValueError(f"decode_wav: {what} must be -1 or a positive int, got {v!r}")
    x = convert_to_tensor(contents, dtype=_dtypes.string, name="contents")
    if x.shape.ndims not in (None, 0):
        raise ValueError(f"decode_wav: contents must be a scalar string, got shape {x.shape}")
    op = make_op("DecodeWav", [x], [_dtypes.float32, _dtypes.int32],
                 {"desired_channels": desired_channels, "desired_samples": desired_samples},
                 name=name or "DecodeWav")
    return op.outputs[0], op.outputs[1]


def encode_wav(audio: Any, sample_rate: Any, name: Optional[str] = None) -> Tensor:
    """A 16-bit PCM WAV file of float32 ``audio`` ``[samples, channels]`` (values clipped to
    [-1, 1], times 32768, rounded) at ``sample_rate`` (int32 scalar)."""
    a = convert_to_tensor(audio, dtype=_dtypes.float32, name="audio")
    if a.shape.ndims not in (None, 2):
        raise ValueError(f"encode_wav: audio must be [samples, channels], got shape {a.shape}")
    rate = convert_to_tensor(sample_rate, dtype=_dtypes.int32, name="sample_rate")
    return make_tensor("EncodeWav", [a, rate], _dtypes.string, name=name or "EncodeWav")


__all__ = ["decode_wav", "encode_wav"]
