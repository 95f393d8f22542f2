"""``tf.nn`` functions that are compositions of existing ops: activations (swish,
softsign, crelu, relu_layer), the weighted logistic loss and the moments helpers.

Their gradients follow from the ops they are made of.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N


def swish(features: Any, name: Optional[str] = None) -> Tensor:
    """``features * sigmoid(features)`` (also called SiLU)."""
    with name_scope(name, "swish", [features]):
        x = convert_to_tensor(features, name="features")
        return M.multiply(x, M.sigmoid(x))


def silu(features: Any, beta: Any = 1.0, name: Optional[str] = None) -> Tensor:
    """``features * sigmoid(beta * features)``."""
    with name_scope(name, "silu", [features]):
        x = convert_to_tensor(features, name="features")
        return M.multiply(x, M.sigmoid(M.multiply(convert_to_tensor(beta, dtype=x.dtype), x)))


def softsign(features: Any, name: Optional[str] = None) -> Tensor:
    """``features / (1 + |features|)``."""
    with name_scope(name, "Softsign", [features]):
        x = convert_to_tensor(features, name="features")
        return M.truediv(x, M.add(M.abs(x), A.constant(1, dtype=x.dtype)))


def crelu(features: Any, name: Optional[str] = None, axis: int = -1) -> Tensor:
    """``concat([relu(features), relu(-features)], axis)``: twice the channels."""
    with name_scope(name, "CRelu", [features]):
        x = convert_to_tensor(features, name="features")
        return N.relu(A.concat([x, M.negative(x)], axis))


def relu_layer(x: Any, weights: Any, biases: Any, name: Optional[str] = None) -> Tensor:
    """``relu(matmul(x, weights) + biases)``."""
    with name_scope(name, "relu_layer", [x, weights, biases]):
        return N.relu(N.xw_plus_b(x, weights, biases))


def weighted_cross_entropy_with_logits(targets: Any = None, logits: Any = None,
                                       pos_weight: Any = None, name: Optional[str] = None,
                                       labels: Any = None) -> Tensor:
    """Logistic loss with the positive term scaled by ``pos_weight``:
    ``-pos_weight * t * log(sigmoid(x)) - (1 - t) * log(1 - sigmoid(x))``,
    computed without overflow for large ``|x|``. ``labels`` is the later name of
    ``targets``.

    Raises:
      ValueError: when targets/labels, logits or pos_weight is missing, or
        targets and logits differ in shape.
    """
    if labels is not None:
        if targets is not None:
            raise ValueError("weighted_cross_entropy_with_logits: pass targets or labels, "
                             "not both")
        targets = labels
    if targets is None or logits is None or pos_weight is None:
        raise ValueError("weighted_cross_entropy_with_logits needs targets (or labels), "
                         "logits and pos_weight")
    with name_scope(name, "logistic_loss", [logits, targets]):
        x = convert_to_tensor(logits, name="logits")
        t = convert_to_tensor(targets, name="targets", preferred_dtype=x.dtype)
        if t.dtype is not x.dtype:
            t = A.cast(t, x.dtype)
        if not x.shape.is_compatible_with(t.shape):
            raise ValueError(f"logits and targets must have the same shape ({x.shape} vs "
                             f"{t.shape})")
        one = A.constant(1, dtype=x.dtype)
        w = M.add(one, M.multiply(M.subtract(convert_to_tensor(pos_weight, dtype=x.dtype),
                                             one), t))
        # log(1 + exp(-x)) written as log1p(exp(-|x|)) + max(-x, 0), finite for any x.
        softplus_neg = M.add(M.log1p(M.exp(M.negative(M.abs(x)))),
                             M.maximum(M.negative(x), A.constant(0, dtype=x.dtype)))
        return M.add(M.multiply(M.subtract(one, t), x), M.multiply(w, softplus_neg))


def sufficient_statistics(x: Any, axes: Sequence[int], shift: Any = None,
                          keep_dims: bool = False, name: Optional[str] = None,
                          keepdims: Optional[bool] = None) -> Tuple[Tensor, Tensor, Tensor,
                                                                    Optional[Tensor]]:
    """``(count, sum(x - shift), sum((x - shift)**2), shift)`` over ``axes``: what
    ``normalize_moments`` turns into a mean and variance."""
    keep = keep_dims if keepdims is None else keepdims
    with name_scope(name, "sufficient_statistics", [x, shift]):
        x = convert_to_tensor(x, name="x")
        axes = list(axes)
        static = x.shape.as_list() if x.shape.ndims is not None else None
        if static is not None and all(static[a] is not None for a in axes):
            n = 1
            for a in axes:
                n *= static[a]
            count = A.constant(float(n), dtype=x.dtype, name="count")
        else:
            dims = A.gather(A.shape(x), axes)
            count = A.cast(M.reduce_prod(dims), x.dtype, name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, dtype=x.dtype, name="shift")
            centred = M.subtract(x, shift)
        else:
            centred = x
        m_ss = M.reduce_sum(centred, axes, keepdims=keep, name="mean_ss")
        v_ss = M.reduce_sum(M.square(centred), axes, keepdims=keep, name="var_ss")
        return count, m_ss, v_ss, shift


def normalize_moments(counts: Any, mean_ss: Any, variance_ss: Any, shift: Any,
                      name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """``(mean, variance)`` from the output of ``sufficient_statistics``."""
    with name_scope(name, "normalize", [counts, mean_ss, variance_ss, shift]):
        mean_ss = convert_to_tensor(mean_ss, name="mean_ss")
        divisor = M.reciprocal(convert_to_tensor(counts, dtype=mean_ss.dtype), name="divisor")
        shifted_mean = M.multiply(mean_ss, divisor, name="shifted_mean")
        mean = shifted_mean if shift is None else M.add(shifted_mean, shift, name="mean")
        variance = M.subtract(M.multiply(variance_ss, divisor), M.square(shifted_mean),
                              name="variance")
        return mean, variance


__all__ = ["swish", "softsign", "crelu", "relu_layer", "weighted_cross_entropy_with_logits",
           "sufficient_statistics", "normalize_moments"]
