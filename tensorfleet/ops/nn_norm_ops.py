"""Normalization ops: local response normalization, batch normalization (plain, fused
and with global normalization) and ``zero_fraction``.

``LRN`` is a kernel with its own backward op. The batch normalizations are
composed from math ops, so their gradients come from those ops; ``fused_batch_norm``
returns what TensorFlow's fused op returns (in training, the batch mean and the
Bessel-corrected batch variance, ready for moving averages).
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops.op_util import make_tensor, same_shape

register_op("LRN", same_shape)
register_op("LRNGrad", lambda op: [op.inputs[1].shape])


def _lrn_attrs(depth_radius: int, bias: float, alpha: float, beta: float) -> dict:
    if int(depth_radius) < 0:
        raise ValueError(f"lrn: depth_radius must be >= 0, got {depth_radius}")
    return {"depth_radius": int(depth_radius), "bias": float(bias), "alpha": float(alpha),
            "beta": float(beta)}


def local_response_normalization(input: Any, depth_radius: int = 5,  # noqa: A002
                                 bias: float = 1.0, alpha: float = 1.0, beta: float = 0.5,
                                 name: Optional[str] = None) -> Tensor:
    """``input / (bias + alpha * sqr_sum) ** beta`` where ``sqr_sum`` sums the squares
    of the ``2 * depth_radius + 1`` channels around each one (last axis of a 4-D input).

    Raises:
      ValueError: for an input that is not rank 4 or a negative depth_radius.
    """
    x = convert_to_tensor(input)
    if not x.dtype.is_floating:
        raise TypeError(f"lrn needs a floating-point input, got {x.dtype.name}")
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"lrn: input must be rank 4, got shape {x.shape}")
    return make_tensor("LRN", [x], x.dtype, _lrn_attrs(depth_radius, bias, alpha, beta),
                       name=name or "LRN")


lrn = local_response_normalization


def lrn_grad(input_grads: Any, input_image: Any, output_image: Any, depth_radius: int = 5,
             bias: float = 1.0, alpha: float = 1.0, beta: float = 0.5,
             name: Optional[str] = None) -> Tensor:
    """Gradient of ``lrn`` with respect to its input."""
    g = convert_to_tensor(input_grads)
    return make_tensor("LRNGrad", [g, input_image, output_image], g.dtype,
                       _lrn_attrs(depth_radius, bias, alpha, beta), name=name or "LRNGrad")


def batch_normalization(x: Any, mean: Any, variance: Any, offset: Any, scale: Any,
                        variance_epsilon: float, name: Optional[str] = None) -> Tensor:
    """``(x - mean) * scale / sqrt(variance + variance_epsilon) + offset``, broadcasting;
    ``offset`` and ``scale`` may be None."""
    with name_scope(name, "batchnorm"):
        x = convert_to_tensor(x)
        mean, variance, offset, scale = (
            None if t is None else t if isinstance(t, Tensor) else
            convert_to_tensor(t, dtype=x.dtype) for t in (mean, variance, offset, scale))
        inv = M.rsqrt(M.add(variance, variance_epsilon))
        if scale is not None:
            inv = M.multiply(inv, scale)
        shift = M.negative(M.multiply(mean, inv))
        if offset is not None:
            shift = M.add(shift, offset)
        return M.add(M.multiply(x, A.cast(inv, x.dtype)), A.cast(shift, x.dtype))


def batch_norm_with_global_normalization(t: Any = None, m: Any = None, v: Any = None,
                                         beta: Any = None, gamma: Any = None,
                                         variance_epsilon: Optional[float] = None,
                                         scale_after_normalization: Optional[bool] = None,
                                         name: Optional[str] = None, input: Any = None,  # noqa
                                         mean: Any = None, variance: Any = None) -> Tensor:
    """Batch normalization of a 4-D ``t`` with given mean ``m`` and variance ``v`` per
    channel; ``gamma`` multiplies only when ``scale_after_normalization``.

    Raises:
      ValueError: when a required argument is missing.
    """
    t = t if t is not None else input
    m = m if m is not None else mean
    v = v if v is not None else variance
    if t is None or m is None or v is None or beta is None or gamma is None \
            or variance_epsilon is None or scale_after_normalization is None:
        raise ValueError("batch_norm_with_global_normalization needs t, m, v, beta, gamma, "
                         "variance_epsilon and scale_after_normalization")
    return batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None,
                               variance_epsilon, name=name or "BatchNormWithGlobalNormalization")


def fused_batch_norm(x: Any, scale: Any, offset: Any, mean: Any = None, variance: Any = None,
                     epsilon: float = 0.001, data_format: str = "NHWC",
                     is_training: bool = True, name: Optional[str] = None,
                     exponential_avg_factor: float = 1.0) -> Tuple[Tensor, Tensor, Tensor]:
    """Batch normalization of a 4-D ``x`` over all axes but the channels.

    Returns ``(y, batch_mean, batch_variance)``. In training the statistics are
    the batch's (``y`` uses the biased variance, the returned variance is
    Bessel-corrected); otherwise ``mean`` and ``variance`` are used and returned.
    With ``exponential_avg_factor`` below 1 in training, the returned statistics
    are moved that far from ``mean``/``variance`` towards the batch's.

    Raises:
      ValueError: for a bad data_format, a missing mean/variance outside training,
        or an input that is not rank 4.
    """
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"fused_batch_norm: data_format must be 'NHWC' or 'NCHW', got "
                         f"{data_format!r}")
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"fused_batch_norm needs a floating-point x, got {x.dtype.name}")
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"fused_batch_norm: x must be rank 4, got shape {x.shape}")
    if not is_training and (mean is None or variance is None):
        raise ValueError("fused_batch_norm: mean and variance are required when is_training "
                         "is False")
    if is_training and exponential_avg_factor != 1.0 and (mean is None or variance is None):
        raise ValueError("fused_batch_norm: mean and variance are required with an "
                         "exponential_avg_factor other than 1")
    with name_scope(name, "FusedBatchNorm"):
        xn = x if data_format == "NHWC" else A.transpose(x, [0, 2, 3, 1])
        stat_dt = _dtypes.float32 if x.dtype is _dtypes.float16 else x.dtype
        xs = A.cast(xn, stat_dt) if stat_dt is not x.dtype else xn
        if is_training:
            bmean, bvar = N.moments(xs, [0, 1, 2])
            count = A.cast(M.reduce_prod(A.shape(xs)[:3]), stat_dt)
            # The variance handed back is the unbiased estimate (n / (n - 1)).
            unbiased = M.multiply(bvar, M.divide(count, M.maximum(M.subtract(count, 1.0),
                                                                  1.0)))
            out_mean, out_var = bmean, unbiased
            if exponential_avg_factor != 1.0:
                f = float(exponential_avg_factor)
                out_mean = M.add(M.multiply(mean, 1.0 - f), M.multiply(bmean, f))
                out_var = M.add(M.multiply(variance, 1.0 - f), M.multiply(unbiased, f))
        else:
            bmean, bvar = convert_to_tensor(mean), convert_to_tensor(variance)
            out_mean, out_var = A.identity(bmean), A.identity(bvar)
        y = batch_normalization(xs, bmean, bvar, offset, scale, epsilon)
        if stat_dt is not x.dtype:
            y = A.cast(y, x.dtype)
        if data_format == "NCHW":
            y = A.transpose(y, [0, 3, 1, 2])
        return y, out_mean, out_var


def zero_fraction(value: Any, name: Optional[str] = None) -> Tensor:
    """The fraction of entries of ``value`` that are zero, as a float32 scalar."""
    with name_scope(name, "zero_fraction"):
        v = convert_to_tensor(value)
        zero = M.equal(v, A.zeros_like(v))
        return M.reduce_mean(A.cast(zero, _dtypes.float32), name="fraction")


__all__ = ["lrn", "local_response_normalization", "batch_normalization",
           "batch_norm_with_global_normalization", "fused_batch_norm", "zero_fraction"]
