"""Pooling beyond ``max_pool``/``avg_pool``: ``tf.nn.max_pool_with_argmax``, the N-D
``tf.nn.pool`` and its forms ``tf.nn.max_pool1d`` / ``avg_pool1d``, ``max_pool2d`` /
``avg_pool2d`` and ``max_pool_v2`` / ``avg_pool_v2`` (whose ``ksize``/``strides`` may be an
int, N ints or N+2 ints), fractional max and average pooling, and
``tf.clip_by_average_norm``.

``max_pool_with_argmax`` also returns where each maximum came from, as a flat index
into the input: ``(y * width + x) * channels + c``, plus ``b * height * width *
channels`` with ``include_batch_in_index``. Ties go to the first position in
row-major window order. Kernels are in ``kernels/numpy/nn_pool_kernels.py``; the gradient
(``gradients/nn_pool_grad.py``) scatters into those positions.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops, math_ops
from tensorfleet.ops import nn_conv_variant_ops
from tensorfleet.ops.nn_conv_ops import avg_pool, conv_output_size, max_pool, spatial_ints
from tensorfleet.ops.op_util import make_op, make_tensor


def _argmax_pool_shape(op: Operation) -> List[TensorShape]:
    x = op.inputs[0].shape
    if x.ndims is not None and x.ndims != 4:
        raise ValueError(f"max_pool_with_argmax: input must be rank 4, got shape {x}")
    if x.ndims is None:
        out = TensorShape([None] * 4)
    else:
        k, s, pad = op.attrs["ksize"], op.attrs["strides"], op.attrs["padding"]
        d = x.as_list()
        out = TensorShape([d[0], conv_output_size(d[1], k[1], s[1], 1, pad),
                           conv_output_size(d[2], k[2], s[2], 1, pad), d[3]])
    return [out, out]


def _fractional_shape(op: Operation) -> List[TensorShape]:
    x = op.inputs[0].shape
    if x.ndims is not None and x.ndims != 4:
        raise ValueError(f"fractional pooling: input must be rank 4, got shape {x}")
    dims = x.as_list() if x.ndims == 4 else [None] * 4
    ratio = op.attrs["pooling_ratio"]
    out = [None if d is None else int(math.floor(d / r)) for d, r in zip(dims, ratio)]
    rows = None if out[1] is None else out[1] + 1
    cols = None if out[2] is None else out[2] + 1
    return [TensorShape(out), TensorShape([rows]), TensorShape([cols])]


register_op("MaxPoolWithArgmax", _argmax_pool_shape)
register_op("MaxPoolGradWithArgmax", lambda op: [op.inputs[0].shape])
register_op("FractionalMaxPool", _fractional_shape, stateful=True)
register_op("FractionalAvgPool", _fractional_shape, stateful=True)
register_op("FractionalMaxPoolGrad", lambda op: [op.inputs[0].shape])
register_op("FractionalAvgPoolGrad", lambda op: [TensorShape([None] * 4)])


def _window(v: Any, what: str) -> List[int]:
    vals = [int(v)] * 2 if isinstance(v, int) else [int(i) for i in v]
    if len(vals) == 2:
        vals = [1] + vals + [1]
    if len(vals) != 4 or vals[0] != 1 or vals[3] != 1 or min(vals) < 1:
        raise ValueError(f"max_pool_with_argmax: {what} must be 2 positive ints or 4 with "
                         f"1 in the batch and depth dimensions, got {v!r}")
    return vals


def max_pool_with_argmax(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
                         data_format: str = "NHWC", Targmax: Any = None,  # noqa: N803
                         name: Optional[str] = None, output_dtype: Any = None,
                         include_batch_in_index: bool = False) -> Tuple[Tensor, Tensor]:
    """Max pooling of an NHWC batch that also returns the flat input index of each
    maximum (int64 unless ``Targmax``/``output_dtype`` says int32).

    Raises:
      ValueError: another ``data_format`` than NHWC, a bad padding, ksize or strides,
        or both ``Targmax`` and ``output_dtype`` given and different.
    """
    if data_format != "NHWC":
        raise ValueError(f"max_pool_with_argmax only supports data_format 'NHWC', got "
                         f"{data_format!r}")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"max_pool_with_argmax: padding must be 'SAME' or 'VALID', got "
                         f"{padding!r}")
    if Targmax is not None and output_dtype is not None and \
            _dtypes.as_dtype(Targmax) is not _dtypes.as_dtype(output_dtype):
        raise ValueError("max_pool_with_argmax: Targmax and output_dtype differ")
    idx_dt = _dtypes.as_dtype(output_dtype or Targmax or _dtypes.int64)
    if idx_dt not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"max_pool_with_argmax: the argmax dtype must be int32 or int64, got "
                        f"{idx_dt.name}")
    x = convert_to_tensor(input, name="input")
    if not (x.dtype.is_floating or x.dtype.is_integer):
        raise TypeError(f"max_pool_with_argmax needs a real input, got {x.dtype.name}")
    op = make_op("MaxPoolWithArgmax", [x], [x.dtype, idx_dt],
                 {"ksize": _window(ksize, "ksize"), "strides": _window(strides, "strides"),
                  "padding": padding, "Targmax": idx_dt,
                  "include_batch_in_index": bool(include_batch_in_index)},
                 name=name or "MaxPoolWithArgmax")
    return op.outputs[0], op.outputs[1]


def max_pool_grad_with_argmax(input: Any, grad: Any, argmax: Any,  # noqa: A002
                              include_batch_in_index: bool = False,
                              name: Optional[str] = None) -> Tensor:
    """The gradient of ``max_pool_with_argmax``: ``grad`` added into ``input``'s shape at
    the ``argmax`` positions."""
    x = convert_to_tensor(input, name="input")
    g = convert_to_tensor(grad, name="grad")
    return make_tensor("MaxPoolGradWithArgmax", [x, g, convert_to_tensor(argmax)], g.dtype,
                       {"include_batch_in_index": bool(include_batch_in_index)},
                       name=name or "MaxPoolGradWithArgmax")


def _fractional(op_type: str, value: Any, pooling_ratio: Sequence[float],
                pseudo_random: bool, overlapping: bool, deterministic: bool, seed: int,
                seed2: int, name: Optional[str]) -> Tuple[Tensor, Tensor, Tensor]:
    ratio = [float(r) for r in pooling_ratio]
    if len(ratio) != 4:
        raise ValueError(f"{op_type}: pooling_ratio must have 4 entries, got {pooling_ratio}")
    if min(ratio) < 1:
        raise ValueError(f"{op_type}: pooling_ratio cannot be smaller than 1, got {ratio}")
    if ratio[0] != 1 or ratio[3] != 1:
        raise ValueError(f"{op_type}: only rows and columns can be pooled (pooling_ratio[0] "
                         f"and pooling_ratio[3] must be 1.0), got {ratio}")
    if not deterministic and (seed or seed2):
        raise ValueError(f"{op_type}: Both seed and seed2 should be 0 if deterministic is "
                         f"false, got {seed} and {seed2}")
    x = convert_to_tensor(value, name="value")
    if not (x.dtype.is_floating or x.dtype in (_dtypes.int32, _dtypes.int64)):
        raise TypeError(f"{op_type} needs float, double, int32 or int64 input, got "
                        f"{x.dtype.name}")
    op = make_op(op_type, [x], [x.dtype, _dtypes.int64, _dtypes.int64],
                 {"pooling_ratio": ratio, "pseudo_random": bool(pseudo_random),
                  "overlapping": bool(overlapping), "deterministic": bool(deterministic),
                  "seed": int(seed or 0), "seed2": int(seed2 or 0)}, name=name or op_type)
    return op.outputs[0], op.outputs[1], op.outputs[2]


def fractional_max_pool(value: Any, pooling_ratio: Sequence[float], pseudo_random: bool = False,
                        overlapping: bool = False, deterministic: bool = False, seed: int = 0,
                        seed2: int = 0, name: Optional[str] = None
                        ) -> Tuple[Tensor, Tensor, Tensor]:
    """Fractional max pooling (Graham, 2014) of an NHWC batch.

    Rows (and columns) are cut into ``floor(size / ratio)`` regions of whole pixels,
    ``k`` or ``k + 1`` long: in random order, or (``pseudo_random``) at
    ``ceil(ratio * (i + u))`` for one random offset ``u``. ``overlapping`` adds each
    region's next boundary pixel to it. With ``deterministic`` the same regions are
    used on every run (``seed``/``seed2`` fix them; both 0 picks them once per
    session); otherwise both seeds must be 0 and every run draws new regions.

    Returns:
      ``(output, row_pooling_sequence, col_pooling_sequence)``: the sequences are the
      int64 region boundaries, ``output_size + 1`` long.

    Raises:
      ValueError: a ratio below 1 or one that pools the batch or channel dimension,
        or seeds without ``deterministic``.
    """
    return _fractional("FractionalMaxPool", value, pooling_ratio, pseudo_random, overlapping,
                       deterministic, seed, seed2, name)


def fractional_avg_pool(value: Any, pooling_ratio: Sequence[float], pseudo_random: bool = False,
                        overlapping: bool = False, deterministic: bool = False, seed: int = 0,
                        seed2: int = 0, name: Optional[str] = None
                        ) -> Tuple[Tensor, Tensor, Tensor]:
    """Fractional average pooling: the regions of ``fractional_max_pool``, averaged."""
    return _fractional("FractionalAvgPool", value, pooling_ratio, pseudo_random, overlapping,
                       deterministic, seed, seed2, name)


_CHANNELS_FIRST = {"NCW": 1, "NCHW": 2, "NCDHW": 3}
_CHANNELS_LAST = {"NWC": 1, "NHWC": 2, "NDHWC": 3}


def _ints(v: Any, n: int, what: str) -> List[int]:
    vals = [1] * n if v is None else ([int(v)] * n if isinstance(v, int) else
                                      [int(i) for i in v])
    if len(vals) != n or min(vals) < 1:
        raise ValueError(f"pool: {what} must be {n} positive ints, got {v!r}")
    return vals


def pool(input: Any, window_shape: Sequence[int], pooling_type: str,  # noqa: A002
         padding: str, dilation_rate: Any = None, strides: Any = None,
         name: Optional[str] = None, data_format: Optional[str] = None,
         dilations: Any = None) -> Tensor:
    """N-D max or average pooling (N = 1, 2 or 3 spatial dimensions).

    Args:
      window_shape: N ints; ``pooling_type`` ``"MAX"`` or ``"AVG"``; ``padding``
        ``"SAME"`` or ``"VALID"``; ``strides`` N ints (default 1).
      data_format: channels last (``NWC``/``NHWC``/``NDHWC``, the default) or first
        (``NCW``/``NCHW``/``NCDHW``).

    Raises:
      ValueError: an N outside 1-3, an unknown pooling type, padding or format, or a
        dilation rate other than 1 (dilated pooling is not supported).
    """
    n = len(window_shape)
    if n not in (1, 2, 3):
        raise ValueError(f"pool: window_shape must have 1, 2 or 3 entries, got {window_shape}")
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"pool: pooling_type must be 'MAX' or 'AVG', got {pooling_type!r}")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"pool: padding must be 'SAME' or 'VALID', got {padding!r}")
    if dilation_rate is not None and dilations is not None:
        raise ValueError("pool: give at most one of dilation_rate and dilations")
    rates = _ints(dilation_rate if dilations is None else dilations, n, "dilation_rate")
    if any(r != 1 for r in rates):
        raise ValueError(f"pool: dilation_rate {rates} is not supported (only 1)")
    window, steps = _ints(window_shape, n, "window_shape"), _ints(strides, n, "strides")
    fmt = data_format or ["NWC", "NHWC", "NDHWC"][n - 1]
    if _CHANNELS_FIRST.get(fmt, _CHANNELS_LAST.get(fmt)) != n:
        raise ValueError(f"pool: data_format {fmt!r} does not fit {n} spatial dimensions")
    with name_scope(name, f"{pooling_type.lower()}_pool"):
        x = convert_to_tensor(input, name="input")
        if x.shape.ndims is not None and x.shape.ndims != n + 2:
            raise ValueError(f"pool: input must have rank {n + 2}, got shape {x.shape}")
        first = fmt in _CHANNELS_FIRST
        if first:
            x = array_ops.transpose(x, [0] + list(range(2, n + 2)) + [1])
        if n == 1:
            x = array_ops.expand_dims(x, 1)
            window, steps = [1] + window, [1] + steps
        if n == 3:
            fn = nn_conv_variant_ops.max_pool3d if pooling_type == "MAX" else nn_conv_variant_ops.avg_pool3d
            y = fn(x, [1] + window + [1], [1] + steps + [1], padding)
        else:
            fn = max_pool if pooling_type == "MAX" else avg_pool
            y = fn(x, [1] + window + [1], [1] + steps + [1], padding)
        if n == 1:
            y = array_ops.squeeze(y, [1])
        if first:
            y = array_ops.transpose(y, [0, n + 1] + list(range(1, n + 1)))
        return y


def _full(v: Any, channels_last: bool, what: str) -> List[int]:
    w = spatial_ints(v, 2, channels_last, what)
    return [1] + w + [1] if channels_last else [1, 1] + w


def max_pool2d(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
               data_format: str = "NHWC", name: Optional[str] = None) -> Tensor:
    """``tf.nn.max_pool`` whose ``ksize``/``strides`` may also be an int or 2 ints."""
    last = data_format == "NHWC"
    return max_pool(input, _full(ksize, last, "ksize"), _full(strides, last, "strides"),
                    padding, data_format=data_format, name=name)


def avg_pool2d(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
               data_format: str = "NHWC", name: Optional[str] = None) -> Tensor:
    """``tf.nn.avg_pool`` whose ``ksize``/``strides`` may also be an int or 2 ints."""
    last = data_format == "NHWC"
    return avg_pool(input, _full(ksize, last, "ksize"), _full(strides, last, "strides"),
                    padding, data_format=data_format, name=name)


def _pool_nd(kind: str, input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
             data_format: Optional[str], name: Optional[str], default: str) -> Tensor:
    x = convert_to_tensor(input)
    r = x.shape.ndims
    if r is None:
        raise ValueError(f"{default} needs the rank of its input to be known")
    n = r - 2
    if n not in (1, 2, 3):
        raise ValueError(f"Input tensor must be of rank 3, 4 or 5 but was {r}.")
    last = data_format is None or not data_format.startswith("NC")
    return pool(x, spatial_ints(ksize, n, last, "ksize"), kind, padding,
                strides=spatial_ints(strides, n, last, "strides"), name=name or default,
                data_format=data_format)


def max_pool1d(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
               data_format: str = "NWC", name: Optional[str] = None) -> Tensor:
    """Max pooling of ``input`` [N, W, C] ("NWC") or [N, C, W] ("NCW")."""
    return _pool_nd("MAX", input, ksize, strides, padding, data_format, name, "MaxPool1d")


def avg_pool1d(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
               data_format: str = "NWC", name: Optional[str] = None) -> Tensor:
    """Average pooling of ``input`` [N, W, C] ("NWC") or [N, C, W] ("NCW")."""
    return _pool_nd("AVG", input, ksize, strides, padding, data_format, name, "AvgPool1D")


def max_pool_v2(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
                data_format: Optional[str] = None, name: Optional[str] = None) -> Tensor:
    """Max pooling of a 3-, 4- or 5-D ``input`` (1, 2 or 3 spatial dimensions)."""
    return _pool_nd("MAX", input, ksize, strides, padding, data_format, name, "MaxPool")


def avg_pool_v2(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
                data_format: Optional[str] = None, name: Optional[str] = None) -> Tensor:
    """Average pooling of a 3-, 4- or 5-D ``input`` (1, 2 or 3 spatial dimensions)."""
    return _pool_nd("AVG", input, ksize, strides, padding, data_format, name, "AvgPool")


def clip_by_average_norm(t: Any, clip_norm: Any, name: Optional[str] = None) -> Tensor:
    """``t * clip_norm / max(l2norm(t) / size(t), clip_norm)``: scales ``t`` down so
    that its L2 norm divided by its number of elements is at most ``clip_norm``."""
    with name_scope(name, "clip_by_average_norm"):
        x = convert_to_tensor(t, name="t")
        n = array_ops.cast(array_ops.size(x), x.dtype)
        inv_norm = math_ops.rsqrt(math_ops.reduce_sum(x * x))
        c = convert_to_tensor(clip_norm, dtype=x.dtype, name="clip_norm")
        scale = math_ops.minimum(inv_norm * c * n, array_ops.ones_like(c))
        return array_ops.identity(x * scale, name=name or "clip_by_average_norm")


__all__ = ["max_pool_with_argmax", "max_pool_grad_with_argmax", "pool", "max_pool1d",
           "avg_pool1d", "max_pool2d", "avg_pool2d", "max_pool_v2", "avg_pool_v2",
           "fractional_max_pool", "fractional_avg_pool", "clip_by_average_norm"]
