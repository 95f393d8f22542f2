"""``tf.conv`` (TensorFlow's generic ``Conv`` op): an N-D cross-correlation whose rank
comes from the filter, with any number of leading batch dimensions and explicit
padding; it runs as ``conv2d`` / ``conv3d``."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops
from tensorfleet.ops.nn_conv_ops import conv2d
from tensorfleet.ops.nn_conv_variant_ops import conv3d

_FORMATS = {"CHANNELS_LAST": ("NHWC", "NDHWC"), "CHANNELS_FIRST": ("NCHW", "NCDHW")}


def _ints(name: str, v: Any, n: int) -> List[int]:
    v = list(v)
    if len(v) != n or any(isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in v):
        raise ValueError(f"conv: {name} must list {n} positive ints (one per dimension of "
                         f"the convolved input), got {v}")
    return v


def conv(input: Any, filter: Any, strides: Sequence[int],  # noqa: A002 - TF names
         padding: str, explicit_paddings: Sequence[int] = (),
         data_format: str = "CHANNELS_LAST", dilations: Sequence[int] = (),
         batch_dims: int = 1, groups: int = 1, name: Optional[str] = None) -> Tensor:
    """Cross-correlation of ``input`` (``batch_dims`` batch dimensions, then N spatial
    dimensions and channels, or channels first) with ``filter`` ``[k1..kN, in, out]``,
    for N = 2 or 3.

    ``strides`` and ``dilations`` have N + 2 entries in the layout of one example;
    ``padding`` is SAME, VALID or EXPLICIT (``explicit_paddings``: a ``(before,
    after)`` pair per dimension of one example).

    Raises:
      ValueError: N not 2 or 3, ``groups`` other than 1, a bad layout, padding,
        stride or dilation list, or input ranks that do not fit.
    """
    if data_format not in _FORMATS:
        raise ValueError(f"conv: data_format must be CHANNELS_LAST or CHANNELS_FIRST, got "
                         f"{data_format!r}")
    if groups != 1:
        raise ValueError(f"conv: grouped convolutions (groups={groups}) are not supported; "
                         f"use groups=1")
    if isinstance(batch_dims, bool) or not isinstance(batch_dims, int) or batch_dims < 1:
        raise ValueError(f"conv: batch_dims must be an int >= 1, got {batch_dims!r}")
    with name_scope(name, "Conv"):
        x = convert_to_tensor(input, name="input")
        w = convert_to_tensor(filter, name="filter")
        if w.shape.ndims not in (4, 5):
            raise ValueError(f"conv: the filter must have 2 or 3 spatial dimensions (rank 4 "
                             f"or 5), got shape {w.shape}")
        n = w.shape.ndims - 2
        rank = n + 1 + batch_dims
        if x.shape.ndims is None or x.shape.ndims != rank:
            raise ValueError(f"conv: input must have rank {rank} (batch_dims={batch_dims}, "
                             f"{n} spatial dimensions, channels), got shape {x.shape}")
        s = _ints("strides", strides, n + 2)
        d = _ints("dilations", list(dilations) or [1] * (n + 2), n + 2)
        fmt = _FORMATS[data_format][n - 2]
        pad = padding
        if padding == "EXPLICIT":
            pads = list(explicit_paddings)
            if len(pads) != 2 * (n + 2) or any(p < 0 for p in pads):
                raise ValueError(f"conv: explicit_paddings must hold {2 * (n + 2)} "
                                 f"non-negative ints, got {pads}")
            pad = "VALID"
        elif padding in ("SAME", "VALID"):
            if list(explicit_paddings):
                raise ValueError("conv: explicit_paddings are only allowed with padding "
                                 "'EXPLICIT'")
        else:
            raise ValueError(f"conv: padding must be SAME, VALID or EXPLICIT, got {padding!r}")
        outer = array_ops.shape(x)[:batch_dims]
        inner = x if batch_dims == 1 else array_ops.reshape(
            x, array_ops.concat([[-1], array_ops.shape(x)[batch_dims:]], 0))
        if padding == "EXPLICIT":
            inner = array_ops.pad(inner, [pads[2 * i:2 * i + 2] for i in range(n + 2)])
        op = conv2d if n == 2 else conv3d
        y = op(inner, w, strides=s, padding=pad, data_format=fmt, dilations=d)
        if batch_dims == 1:
            return y
        return array_ops.reshape(y, array_ops.concat([outer, array_ops.shape(y)[1:]], 0))


__all__ = ["conv"]
