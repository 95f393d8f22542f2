"""Kernels of fused chains (``tensorfleet.runtime.kernel_fusion``): a convolution or a
matrix product followed by the ops named in its ``fused_ops`` attribute ("BiasAdd" of a
bias along the last axis, then "Relu"), applied in place on the product's output; and
``MaxPoolGrad`` with the ``ReluGrad`` after it, run on the pooled side first."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.kernels.numpy.math_kernels import _matmul
from tensorfleet.kernels.numpy.nn_conv_kernels import _conv2d
from tensorfleet.kernels.registry import KernelContext, get_kernel, register_kernel


def _tail(ctx: KernelContext, y: np.ndarray, bias: tuple) -> np.ndarray:
    if not y.flags.writeable or not y.flags.owndata:
        y = y.copy()
    fused = ctx.attrs.get("fused_ops", ())
    if "BiasAdd" in fused:
        np.add(y, bias[0], out=y)
    if "Relu" in fused:
        np.maximum(y, 0, out=y)
    return y


@register_kernel("_FusedConv2D")
def _fused_conv2d(ctx: KernelContext, x: Any, w: Any, *bias: Any) -> np.ndarray:
    """``Conv2D``, then its bias and ReLU in place."""
    return _tail(ctx, _conv2d(ctx, x, w), bias)


@register_kernel("_FusedMatMul")
def _fused_matmul(ctx: KernelContext, a: Any, b: Any, *bias: Any) -> np.ndarray:
    """``MatMul``, then its bias and ReLU in place."""
    return _tail(ctx, _matmul(ctx, a, b), bias)


@register_kernel("_MaxPoolGradReluGrad")
def _max_pool_grad_relu_grad(ctx: KernelContext, x: Any, pooled: Any, grad: Any) -> np.ndarray:
    """``ReluGrad(MaxPoolGrad(x, pooled, grad), x)`` computed as
    ``MaxPoolGrad(x, pooled, ReluGrad(grad, pooled))``: the same values (see
    ``tensorfleet.runtime.kernel_fusion``), with the ReLU pass over the pooled
    gradient. Both run the kernels of the active CPU backend."""
    kept = get_kernel("ReluGrad", "CPU")(ctx, grad, pooled)
    return get_kernel("MaxPoolGrad", "CPU")(ctx, x, pooled, kept)
