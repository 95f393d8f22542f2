"""numpy kernels of the nn ops: activations, softmax, losses, dropout, bias, top-k.

Convolution and pooling kernels are in ``nn_conv_kernels`` (imported at the end).
Softmax and the cross entropies subtract the row maximum before exponentiating
(log-sum-exp), so large logits never overflow.
"""

from __future__ import annotations

import functools
from typing import Any, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.numpy import parallel_tasks
from tensorfleet.kernels.registry import KernelContext, register_kernel

_SELU_ALPHA = 1.6732632423543772
_SELU_SCALE = 1.0507009873554805


# -- activations ---------------------------------------------------------------------------

@register_kernel("Relu")
def _relu(ctx: KernelContext, x: Any) -> np.ndarray:
    return np.maximum(x, 0)


@register_kernel("ReluGrad")
def _relu_grad(ctx: KernelContext, g: Any, y: Any) -> np.ndarray:
    return np.multiply(g, y > 0)


@register_kernel("Relu6")
def _relu6(ctx: KernelContext, x: Any) -> np.ndarray:
    return np.clip(x, 0, 6)


@register_kernel("Relu6Grad")
def _relu6_grad(ctx: KernelContext, g: Any, x: Any) -> np.ndarray:
    return np.multiply(g, (x > 0) & (x < 6))


@register_kernel("Elu")
def _elu(ctx: KernelContext, x: Any) -> np.ndarray:
    neg = np.expm1(np.minimum(x, 0))
    return np.where(x > 0, x, neg)


@register_kernel("EluGrad")
def _elu_grad(ctx: KernelContext, g: Any, y: Any) -> np.ndarray:
    # For y <= 0, y = exp(x) - 1, so the slope exp(x) is y + 1.
    return np.where(y > 0, g, g * (y + 1))


@register_kernel("Selu")
def _selu(ctx: KernelContext, x: Any) -> np.ndarray:
    neg = np.expm1(np.minimum(x, 0))
    neg *= _SELU_ALPHA
    out = np.where(x > 0, x, neg)
    out *= _SELU_SCALE
    return out


@register_kernel("SeluGrad")
def _selu_grad(ctx: KernelContext, g: Any, y: Any) -> np.ndarray:
    # For y <= 0, y = scale*alpha*(exp(x)-1), so the slope is y + scale*alpha.
    return np.where(y > 0, g * _SELU_SCALE, g * (y + _SELU_SCALE * _SELU_ALPHA))


@register_kernel("Softplus")
def _softplus(ctx: KernelContext, x: Any) -> np.ndarray:
    return np.logaddexp(x, 0)


@register_kernel("SoftplusGrad")
def _softplus_grad(ctx: KernelContext, g: Any, x: Any) -> np.ndarray:
    s = np.multiply(x, 0.5)
    np.tanh(s, out=s)
    s += 1
    s *= 0.5
    s *= g
    return s


@register_kernel("LeakyRelu")
def _leaky_relu(ctx: KernelContext, x: Any) -> np.ndarray:
    return np.where(x > 0, x, x * ctx.attrs["alpha"])


@register_kernel("LeakyReluGrad")
def _leaky_relu_grad(ctx: KernelContext, g: Any, x: Any) -> np.ndarray:
    return np.where(x > 0, g, g * ctx.attrs["alpha"])


@register_kernel("Softmax")
def _softmax(ctx: KernelContext, x: Any) -> np.ndarray:
    ax = ctx.attrs["axis"]
    e = np.subtract(x, x.max(axis=ax, keepdims=True))
    np.exp(e, out=e)
    e /= e.sum(axis=ax, keepdims=True)
    return e


@register_kernel("LogSoftmax")
def _log_softmax(ctx: KernelContext, x: Any) -> np.ndarray:
    ax = ctx.attrs["axis"]
    shifted = np.subtract(x, x.max(axis=ax, keepdims=True))
    shifted -= np.log(np.exp(shifted).sum(axis=ax, keepdims=True))
    return shifted


# -- bias, l2 ------------------------------------------------------------------------------

@register_kernel("BiasAdd")
def _bias_add(ctx: KernelContext, x: Any, b: Any) -> np.ndarray:
    if ctx.attrs["data_format"] == "NCHW":
        return np.add(x, b.reshape((-1,) + (1,) * (x.ndim - 2)))
    if x.shape[-1] != b.shape[0]:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Must provide as many biases as the last dimension of the "
            f"input tensor: {list(b.shape)} vs. {list(x.shape)}")
    return np.add(x, b)


@register_kernel("BiasAddGrad")
def _bias_add_grad(ctx: KernelContext, g: Any) -> np.ndarray:
    if ctx.attrs["data_format"] == "NCHW":
        return g.sum(axis=tuple(i for i in range(g.ndim) if i != 1))
    m = g.reshape(-1, g.shape[-1])
    if g.dtype.kind == "f" and g.dtype.itemsize >= 4 and g.size >= 4096:
        # A matrix-vector product with ones: BLAS beats a numpy reduction here.
        ones = ctx.state.get("ones")
        if ones is None or ones.shape[0] != m.shape[0] or ones.dtype != g.dtype:
            ones = ctx.state["ones"] = np.ones(m.shape[0], g.dtype)
        return ones @ m
    return m.sum(axis=0)


# Rows of logits handled at once by the sparse cross-entropy: its passes stay in cache.
_XENT_BLOCK_BYTES = 1 << 20


@register_kernel("L2Loss")
def _l2_loss(ctx: KernelContext, x: Any) -> np.ndarray:
    flat = x.reshape(-1)
    return np.asarray(np.dot(flat, flat) * 0.5, dtype=x.dtype)


# -- cross entropies -----------------------------------------------------------------------

@register_kernel("SigmoidCrossEntropyWithLogits")
def _sigmoid_xent(ctx: KernelContext, z: Any, x: Any) -> np.ndarray:
    if z.shape != x.shape:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"logits and labels must have the same shape "
            f"({list(x.shape)} vs {list(z.shape)})")
    # max(x, 0) - x*z + log1p(exp(-|x|)): the exponent is never positive.
    out = np.abs(x)
    np.negative(out, out=out)
    np.exp(out, out=out)
    np.log1p(out, out=out)
    out += np.maximum(x, 0)
    out -= x * z
    return out


@register_kernel("SoftmaxCrossEntropyWithLogits")
def _softmax_xent(ctx: KernelContext, x: Any, labels: Any) -> Tuple[np.ndarray, np.ndarray]:
    if x.shape != labels.shape:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"logits and labels must be same size: logits_size="
            f"{list(x.shape)} labels_size={list(labels.shape)}")
    ax = ctx.attrs["axis"]
    shifted = np.subtract(x, x.max(axis=ax, keepdims=True))
    e = np.exp(shifted)
    total = e.sum(axis=ax, keepdims=True)
    shifted -= np.log(total)                    # log-softmax
    shifted *= labels
    loss = shifted.sum(axis=ax)
    np.negative(loss, out=loss)
    # d loss / d logits = softmax * sum(labels) - labels; the sum is 1 for proper
    # distributions, but keeping it makes the gradient exact for any labels.
    e /= total
    e *= labels.sum(axis=ax, keepdims=True)
    e -= labels
    return loss, e


@register_kernel("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_xent(ctx: KernelContext, x: Any, labels: Any
                         ) -> Tuple[np.ndarray, np.ndarray]:
    if labels.shape != x.shape[:-1]:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"logits and labels must have the same first dimension, got "
            f"logits shape {list(x.shape)} and labels shape {list(labels.shape)}")
    c = x.shape[-1]
    flat_labels = labels.reshape(-1)
    bad = (flat_labels < 0) | (flat_labels >= c)
    if bad.any():
        v = int(flat_labels[np.argmax(bad)])
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Received a label value of {v} which is outside the valid "
            f"range of [0, {c}).  Label values: {flat_labels.tolist()[:20]}")
    x2 = x.reshape(-1, c)
    # One [rows, classes] buffer: the shifted logits, then their exp, then the gradient;
    # filled a block of rows at a time, so that its five passes run in cache (a 400 x
    # 10,000 float32 batch measured 6.2 ms in one block, 4.9 ms in blocks of 1 MiB),
    # the blocks shared out between the kernel threads (numpy releases the GIL in them).
    e = np.empty(x2.shape, x2.dtype)
    loss = np.empty(x2.shape[0], e.dtype)
    step = max(1, _XENT_BLOCK_BYTES // max(1, c * e.itemsize))

    def block(b: int) -> None:
        xs, es = x2[b:b + step], e[b:b + step]
        rows, lab = np.arange(xs.shape[0]), flat_labels[b:b + step]
        np.subtract(xs, xs.max(axis=1, keepdims=True), out=es)
        picked = es[rows, lab]
        np.exp(es, out=es)
        total = es.sum(axis=1, keepdims=True)
        np.subtract(np.log(total[:, 0]), picked, out=loss[b:b + step])
        np.multiply(es, 1 / total, out=es)
        es[rows, lab] -= 1

    parallel_tasks.run([functools.partial(block, b) for b in range(0, x2.shape[0], step)])
    return loss.reshape(labels.shape).astype(x.dtype, copy=False), e.reshape(x.shape)


# -- dropout -------------------------------------------------------------------------------

def _generator(ctx: KernelContext) -> np.random.Generator:
    rng = ctx.state.get("rng")
    if rng is None:
        seed, seed2 = ctx.attrs["seed"], ctx.attrs["seed2"]
        # Seeds (0, 0) mean "not seeded": fresh entropy for every session.
        rng = np.random.default_rng(None if seed == 0 and seed2 == 0 else [seed, seed2])
        ctx.state["rng"] = rng
    return rng


@register_kernel("Dropout")
def _dropout(ctx: KernelContext, x: Any, keep_prob: Any) -> Tuple[np.ndarray, np.ndarray]:
    keep = float(keep_prob)
    if not 0.0 < keep <= 1.0:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"keep_prob must be in (0, 1], got {keep}")
    ns = ctx.attrs["noise_shape"]
    shape = x.shape if ns is None else tuple(
        x.shape[i] if d < 0 else d for i, d in enumerate(ns))
    rdt = np.float64 if x.dtype == np.float64 else np.float32
    u = _generator(ctx).random(shape, dtype=rdt)
    # The mask carries the 1/keep_prob scale, so the backward pass is one multiply.
    mask = np.multiply(u < keep, x.dtype.type(1.0 / keep), dtype=x.dtype)
    try:
        return np.multiply(x, mask), mask
    except ValueError:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"noise_shape {list(shape)} does not broadcast to the shape "
            f"of x {list(x.shape)}") from None


# -- ranking -------------------------------------------------------------------------------

@register_kernel("InTopK")
def _in_top_k(ctx: KernelContext, pred: Any, targets: Any) -> np.ndarray:
    n, c = pred.shape
    if targets.shape != (n,):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"targets must have shape [{n}], got {list(targets.shape)}")
    valid = (targets >= 0) & (targets < c)
    t = np.where(valid, targets, 0)
    tp = pred[np.arange(n), t]
    above = (pred > tp[:, None]).sum(axis=1)
    finite = np.isfinite(pred).all(axis=1)
    return valid & finite & (above < ctx.attrs["k"])
