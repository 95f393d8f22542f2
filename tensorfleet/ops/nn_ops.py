"""``tf.nn`` ops: activations, softmax, losses, dropout, embeddings, normalization.

Convolution and pooling live in ``nn_conv_ops`` and are re-exported here. The
backward ops of the activations (``ReluGrad`` ...) are real ops with their own
kernels: one fused kernel per step instead of a chain of elementwise ops.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, get_seed, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, unknown_shape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import embedding_ops as _embedding_ops
from tensorfleet.ops.array_ops import cast
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.nn_conv_ops import (  # noqa: F401  (re-exported)
    avg_pool, conv2d, conv2d_backprop_filter, conv2d_backprop_input, max_pool)
from tensorfleet.ops.op_util import (const_value, convert_pair, make_op, make_tensor,
                                     same_shape)

_ACTIVATIONS = ["Relu", "Relu6", "Elu", "Selu", "Softplus", "LeakyRelu", "Softmax",
                "LogSoftmax"]
_ACTIVATION_GRADS = ["ReluGrad", "Relu6Grad", "EluGrad", "SeluGrad", "SoftplusGrad",
                     "LeakyReluGrad"]
for _t in _ACTIVATIONS + _ACTIVATION_GRADS:
    register_op(_t, same_shape)


def _bias_add_shape(op: Any) -> List[TensorShape]:
    v, b = op.inputs[0].shape, op.inputs[1].shape
    if b.ndims is not None and b.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {b.ndims}")
    if v.ndims is not None:
        if v.ndims < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {v.ndims}")
        c = v[1] if op.attrs["data_format"] == "NCHW" else v[-1]
        if c is not None and b.ndims == 1 and b[0] is not None and c != b[0]:
            raise ValueError(f"Dimensions must be equal, but are {c} and {b[0]}")
    return [v]


def _bias_add_grad_shape(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    if s.ndims is None:
        return [unknown_shape(1)]
    return [TensorShape([s[1] if op.attrs["data_format"] == "NCHW" else s[-1]])]


def _xent_shape(op: Any) -> List[TensorShape]:
    logits, labels = op.inputs[0].shape, op.inputs[1].shape
    if not logits.is_compatible_with(labels):
        raise ValueError(f"logits and labels must be broadcastable: logits_size={logits} "
                         f"labels_size={labels}")
    s = logits.merge_with(labels)
    if s.ndims is None:
        return [unknown_shape(), s]
    ax = op.attrs["axis"] % max(s.ndims, 1)
    return [TensorShape([d for i, d in enumerate(s.as_list()) if i != ax]), s]


def _sparse_xent_shape(op: Any) -> List[TensorShape]:
    logits, labels = op.inputs[0].shape, op.inputs[1].shape
    if logits.ndims is not None and labels.ndims is not None:
        if labels.ndims != logits.ndims - 1:
            raise ValueError(f"Rank mismatch: Rank of labels (received {labels.ndims}) should "
                             f"equal rank of logits minus 1 (received {logits.ndims}).")
        labels = labels.merge_with(logits[:-1])
    return [labels, logits]


def _dropout_shape(op: Any) -> List[TensorShape]:
    ns = op.attrs["noise_shape"]
    return [op.inputs[0].shape, op.inputs[0].shape if ns is None else TensorShape(
        [None if d < 0 else d for d in ns])]


register_op("BiasAdd", _bias_add_shape)
register_op("BiasAddGrad", _bias_add_grad_shape)
register_op("SigmoidCrossEntropyWithLogits", lambda op: [
    op.inputs[0].shape.merge_with(op.inputs[1].shape)])
register_op("SoftmaxCrossEntropyWithLogits", _xent_shape)
register_op("SparseSoftmaxCrossEntropyWithLogits", _sparse_xent_shape)
register_op("Dropout", _dropout_shape, stateful=True)
register_op("InTopK", lambda op: [TensorShape([op.inputs[0].shape[0]])
                                  if op.inputs[0].shape.ndims else unknown_shape(1)])


def _float_input(x: Any, op: str) -> Tensor:
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"Value passed to '{op}' has dtype {x.dtype.name}; it needs a "
                        f"floating-point tensor ({x.name})")
    return x


# -- activations ---------------------------------------------------------------------------

def relu(features: Any, name: Optional[str] = None) -> Tensor:
    """Rectified linear unit: ``max(features, 0)``."""
    x = convert_to_tensor(features)
    return make_tensor("Relu", [x], x.dtype, name=name or "Relu")


def relu6(features: Any, name: Optional[str] = None) -> Tensor:
    """``min(max(features, 0), 6)``."""
    x = convert_to_tensor(features)
    return make_tensor("Relu6", [x], x.dtype, name=name or "Relu6")


def elu(features: Any, name: Optional[str] = None) -> Tensor:
    """Exponential linear unit: ``x`` if ``x > 0`` else ``exp(x) - 1``."""
    x = _float_input(features, "Elu")
    return make_tensor("Elu", [x], x.dtype, name=name or "Elu")


def selu(features: Any, name: Optional[str] = None) -> Tensor:
    """Scaled exponential linear unit (self-normalizing constants)."""
    x = _float_input(features, "Selu")
    return make_tensor("Selu", [x], x.dtype, name=name or "Selu")


def leaky_relu(features: Any, alpha: float = 0.2, name: Optional[str] = None) -> Tensor:
    """``x`` if ``x > 0`` else ``alpha * x``."""
    x = _float_input(features, "LeakyRelu")
    return make_tensor("LeakyRelu", [x], x.dtype, {"alpha": float(alpha)},
                       name=name or "LeakyRelu")


def softplus(features: Any, name: Optional[str] = None) -> Tensor:
    """``log(exp(features) + 1)``, computed without overflow."""
    x = _float_input(features, "Softplus")
    return make_tensor("Softplus", [x], x.dtype, name=name or "Softplus")


def _axis_of(x: Tensor, axis: Any, dim: Any, op: str) -> int:
    if axis is not None and dim is not None:
        raise ValueError(f"{op}: cannot specify both 'axis' and 'dim'")
    axis = -1 if axis is None and dim is None else (axis if axis is not None else dim)
    axis = int(axis)
    nd = x.shape.ndims
    if nd is not None:
        if nd == 0:
            raise ValueError(f"{op} needs a tensor of rank >= 1, got a scalar ({x.name})")
        if not -nd <= axis < nd:
            raise ValueError(f"{op}: axis {axis} is out of range for a tensor of rank {nd}")
        axis %= nd
    return axis


def softmax(logits: Any, axis: Any = None, name: Optional[str] = None,
            dim: Any = None) -> Tensor:
    """``exp(logits) / sum(exp(logits), axis)``, along the last axis by default."""
    x = _float_input(logits, "Softmax")
    return make_tensor("Softmax", [x], x.dtype, {"axis": _axis_of(x, axis, dim, "softmax")},
                       name=name or "Softmax")


def log_softmax(logits: Any, axis: Any = None, name: Optional[str] = None,
                dim: Any = None) -> Tensor:
    """``logits - log(sum(exp(logits), axis))``, computed stably."""
    x = _float_input(logits, "LogSoftmax")
    return make_tensor("LogSoftmax", [x], x.dtype,
                       {"axis": _axis_of(x, axis, dim, "log_softmax")},
                       name=name or "LogSoftmax")


def activation_grad(op_type: str, grads: Any, features: Any, **attrs: Any) -> Tensor:
    """A fused activation backward op (``ReluGrad``, ``EluGrad`` ...), used by nn_grad."""
    if op_type not in _ACTIVATION_GRADS:
        raise ValueError(f"unknown activation gradient op {op_type!r}")
    g, f = convert_pair(grads, features)
    return make_tensor(op_type, [g, f], f.dtype, dict(attrs), name=op_type)


# -- bias ----------------------------------------------------------------------------------

def bias_add(value: Any, bias: Any, data_format: Optional[str] = None,
             name: Optional[str] = None) -> Tensor:
    """Adds the rank-1 ``bias`` along the channel dim of ``value`` (last, or 1 for NCHW)."""
    value = convert_to_tensor(value)
    bias = convert_to_tensor(bias, dtype=value.dtype) if not isinstance(bias, Tensor) else bias
    if bias.dtype is not value.dtype:
        raise TypeError(f"bias_add: bias dtype {bias.dtype.name} does not match value dtype "
                        f"{value.dtype.name}")
    fmt = data_format or "NHWC"
    if fmt not in ("NHWC", "NCHW"):
        raise ValueError(f"bias_add: data_format must be NHWC or NCHW, got {data_format!r}")
    return make_tensor("BiasAdd", [value, bias], value.dtype, {"data_format": fmt},
                       name=name or "BiasAdd")


def bias_add_grad(out_backprop: Any, data_format: str = "NHWC",
                  name: Optional[str] = None) -> Tensor:
    """The gradient of ``bias_add`` with respect to the bias: a sum over all but channels."""
    g = convert_to_tensor(out_backprop)
    return make_tensor("BiasAddGrad", [g], g.dtype, {"data_format": data_format},
                       name=name or "BiasAddGrad")


def xw_plus_b(x: Any, weights: Any, biases: Any, name: Optional[str] = None) -> Tensor:
    """``matmul(x, weights) + biases``."""
    return bias_add(M.matmul(x, weights), biases, name=name or "xw_plus_b")


# -- losses --------------------------------------------------------------------------------

def l2_loss(t: Any, name: Optional[str] = None) -> Tensor:
    """``sum(t ** 2) / 2``."""
    x = _float_input(t, "L2Loss")
    return make_tensor("L2Loss", [x], x.dtype, name=name or "L2Loss")


def _named_only(sentinel: Any, fname: str) -> None:
    if sentinel is not None:
        raise ValueError(f"Only call `{fname}` with named arguments (labels=..., logits=..., "
                         "...)")


def _labels_like(labels: Any, logits: Tensor, op: str) -> Tensor:
    if labels is None:
        raise ValueError(f"{op}: labels and logits must both be given")
    lab = labels if isinstance(labels, Tensor) else convert_to_tensor(labels, dtype=logits.dtype)
    if lab.dtype is not logits.dtype:
        raise TypeError(f"{op}: labels dtype {lab.dtype.name} does not match logits dtype "
                        f"{logits.dtype.name}")
    if not lab.shape.is_compatible_with(logits.shape):
        raise ValueError(f"{op}: logits and labels must have the same shape ({logits.shape} "
                         f"vs {lab.shape})")
    return lab


def sigmoid_cross_entropy_with_logits(_sentinel: Any = None, labels: Any = None,
                                      logits: Any = None, name: Optional[str] = None) -> Tensor:
    """Elementwise logistic loss ``-z*log(sigmoid(x)) - (1-z)*log(1-sigmoid(x))``.

    Computed as ``max(x, 0) - x*z + log1p(exp(-|x|))``, which never overflows.
    """
    _named_only(_sentinel, "sigmoid_cross_entropy_with_logits")
    x = _float_input(logits, "SigmoidCrossEntropyWithLogits")
    z = _labels_like(labels, x, "sigmoid_cross_entropy_with_logits")
    return make_tensor("SigmoidCrossEntropyWithLogits", [z, x], x.dtype,
                       name=name or "logistic_loss")


def _softmax_xent(labels: Any, logits: Any, axis: Any, name: Optional[str],
                  labels_grad: bool, fname: str) -> Tensor:
    x = _float_input(logits, "SoftmaxCrossEntropyWithLogits")
    z = _labels_like(labels, x, fname)
    ax = _axis_of(x, axis, None, fname)
    op = make_op("SoftmaxCrossEntropyWithLogits", [x, z], [x.dtype, x.dtype],
                 {"axis": ax, "labels_grad": labels_grad}, name=name or fname)
    return op.outputs[0]


def softmax_cross_entropy_with_logits(_sentinel: Any = None, labels: Any = None,
                                      logits: Any = None, dim: int = -1,
                                      name: Optional[str] = None, axis: Any = None) -> Tensor:
    """Cross entropy between ``labels`` (a distribution) and ``softmax(logits)``.

    TF 1.x semantics: no gradient flows into ``labels``.
    """
    _named_only(_sentinel, "softmax_cross_entropy_with_logits")
    ax = dim if axis is None else axis
    return _softmax_xent(labels, logits, ax, name, False, "softmax_cross_entropy_with_logits")


def softmax_cross_entropy_with_logits_v2(_sentinel: Any = None, labels: Any = None,
                                         logits: Any = None, axis: Any = None,
                                         name: Optional[str] = None, dim: Any = None) -> Tensor:
    """Like ``softmax_cross_entropy_with_logits`` but also differentiable in ``labels``."""
    _named_only(_sentinel, "softmax_cross_entropy_with_logits_v2")
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    ax = -1 if axis is None and dim is None else (axis if axis is not None else dim)
    return _softmax_xent(labels, logits, ax, name, True,
                         "softmax_cross_entropy_with_logits_v2")


def sparse_softmax_cross_entropy_with_logits(_sentinel: Any = None, labels: Any = None,
                                             logits: Any = None,
                                             name: Optional[str] = None) -> Tensor:
    """Cross entropy of ``softmax(logits)`` against integer class ``labels``.

    ``labels`` has the shape of ``logits`` without its last dim; a label outside
    ``[0, num_classes)`` raises InvalidArgumentError at run time.
    """
    _named_only(_sentinel, "sparse_softmax_cross_entropy_with_logits")
    x = _float_input(logits, "SparseSoftmaxCrossEntropyWithLogits")
    if labels is None:
        raise ValueError("sparse_softmax_cross_entropy_with_logits: labels must be given")
    lab = convert_to_tensor(labels)
    if lab.dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"sparse_softmax_cross_entropy_with_logits: labels must be int32 or "
                        f"int64, got {lab.dtype.name}")
    if x.shape.ndims == 0:
        raise ValueError("Logits cannot be scalars - received shape ().")
    op = make_op("SparseSoftmaxCrossEntropyWithLogits", [x, lab], [x.dtype, x.dtype],
                 name=name or "SparseSoftmaxCrossEntropyWithLogits")
    return op.outputs[0]


def log_poisson_loss(targets: Any, log_input: Any, compute_full_loss: bool = False,
                     name: Optional[str] = None) -> Tensor:
    """Poisson negative log likelihood ``exp(log_input) - log_input * targets``, plus the
    Stirling approximation of ``log(targets!)`` (for targets above 1) when
    ``compute_full_loss``."""
    with name_scope(name or "log_poisson_loss"):
        li = convert_to_tensor(log_input)
        t = convert_to_tensor(targets, dtype=li.dtype)
        result = M.exp(li) - li * t
        if compute_full_loss:
            zeros, ones = A.zeros_like(t), A.ones_like(t)
            stirling = t * M.log(t) - t + 0.5 * M.log(2.0 * math.pi * t)
            small = M.logical_and(M.greater_equal(t, zeros), M.less_equal(t, ones))
            result = result + A.where(small, zeros, stirling)
        return result


# -- dropout -------------------------------------------------------------------------------

def dropout(x: Any, keep_prob: Any = None, noise_shape: Any = None, seed: Optional[int] = None,
            name: Optional[str] = None, rate: Any = None) -> Tensor:
    """Zeroes each element with probability ``1 - keep_prob``, scales the rest by ``1/keep_prob``.

    Give either ``keep_prob`` (TF 1.x) or ``rate`` (= 1 - keep_prob); either may
    be a tensor, e.g. a placeholder fed 1.0 at evaluation time.
    """
    if (keep_prob is None) == (rate is None):
        raise ValueError("dropout: give exactly one of keep_prob and rate")
    x = _float_input(x, "Dropout")
    if rate is not None:
        keep_prob = (1 - rate) if isinstance(rate, numbers.Real) else M.subtract(1, rate)
    if isinstance(keep_prob, numbers.Real):
        if not 0 < keep_prob <= 1:
            raise ValueError(f"keep_prob must be a scalar tensor or a float in the range "
                             f"(0, 1], got {keep_prob}")
        if keep_prob == 1:
            return x
    kp = keep_prob if isinstance(keep_prob, Tensor) else convert_to_tensor(keep_prob,
                                                                           dtype=x.dtype)
    if kp.dtype is not x.dtype:
        kp = cast(kp, x.dtype)
    ns = None
    if noise_shape is not None:
        v = const_value(noise_shape) if isinstance(noise_shape, Tensor) else noise_shape
        if v is None:
            raise ValueError("dropout: noise_shape must be known while building the graph")
        vals = v.reshape(-1).tolist() if isinstance(v, np.ndarray) else list(v)
        ns = [-1 if d is None or int(d) < 0 else int(d) for d in vals]
        if x.shape.ndims is not None and len(ns) != x.shape.ndims:
            raise ValueError(f"dropout: noise_shape {ns} must have the rank of x {x.shape}")
    graph_seed, op_seed = get_seed(seed)
    op = make_op("Dropout", [x, kp], [x.dtype, x.dtype],
                 {"seed": int(graph_seed or 0), "seed2": int(op_seed or 0), "noise_shape": ns},
                 name=name or "dropout")
    return op.outputs[0]


# -- lookups, ranking, normalization ----------------------------------------------------

def embedding_lookup(params: Any, ids: Any, partition_strategy: str = "mod",
                     name: Optional[str] = None, validate_indices: bool = True,
                     max_norm: Any = None) -> Tensor:
    """Rows ``ids`` of ``params``: one tensor or variable, or a list of shards /
    ``PartitionedVariable`` routed by ``partition_strategy`` (see ``embedding_ops``)."""
    return _embedding_ops.embedding_lookup(params, ids, partition_strategy, name,
                                           validate_indices, max_norm)


def in_top_k(predictions: Any, targets: Any, k: int, name: Optional[str] = None) -> Tensor:
    """Whether ``targets[i]`` is among the ``k`` largest ``predictions[i]`` (ties count in)."""
    p = _float_input(predictions, "InTopK")
    t = convert_to_tensor(targets)
    if t.dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"in_top_k: targets must be int32 or int64, got {t.dtype.name}")
    if p.shape.ndims is not None and p.shape.ndims != 2:
        raise ValueError(f"in_top_k: predictions must be rank 2, got shape {p.shape}")
    if t.shape.ndims is not None and t.shape.ndims != 1:
        raise ValueError(f"in_top_k: targets must be rank 1, got shape {t.shape}")
    return make_tensor("InTopK", [p, t], _dtypes.bool, {"k": int(k)}, name=name or "InTopK")


def moments(x: Any, axes: Any, shift: Any = None, name: Optional[str] = None,
            keep_dims: Optional[bool] = None, keepdims: Optional[bool] = None
            ) -> Tuple[Tensor, Tensor]:
    """Mean and variance of ``x`` over ``axes``."""
    keep = bool(keepdims if keepdims is not None else keep_dims)
    x = _float_input(x, "moments")
    mean_k = M.reduce_mean(x, axes, keepdims=True)
    # No stop_gradient on the mean is needed: d(variance)/d(mean) is zero.
    sq = M.squared_difference(x, mean_k)
    if keep:
        return mean_k, M.reduce_mean(sq, axes, keepdims=True, name=name)
    return M.reduce_mean(x, axes), M.reduce_mean(sq, axes, name=name)


def weighted_moments(x: Any, axes: Any, frequency_weights: Any, name: Optional[str] = None,
                     keep_dims: Optional[bool] = None, keepdims: Optional[bool] = None
                     ) -> Tuple[Tensor, Tensor]:
    """Frequency-weighted mean and variance of ``x`` over ``axes``."""
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with name_scope(name or "weighted_moments"):
        x = convert_to_tensor(x)
        w = convert_to_tensor(frequency_weights, dtype=x.dtype)
        ax: Sequence[int] = list(axes) if isinstance(axes, (list, tuple)) else [axes]
        total = M.reduce_sum(M.multiply(w, x), ax, keepdims=True)
        count = M.reduce_sum(w + A.zeros_like(x), ax, keepdims=True)
        inv = M.reciprocal(count)
        mean = total * inv
        var = M.reduce_sum(M.multiply(w, M.squared_difference(x, mean)), ax,
                           keepdims=True) * inv
        if not keep:
            mean = A.squeeze(mean, axis=ax)
            var = A.squeeze(var, axis=ax)
        return mean, var


def l2_normalize(x: Any, axis: Any = None, epsilon: float = 1e-12, name: Optional[str] = None,
                 dim: Any = None) -> Tensor:
    """``x / sqrt(max(sum(x**2, axis), epsilon))``."""
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    axis = axis if axis is not None else dim
    x = _float_input(x, "l2_normalize")
    square_sum = M.reduce_sum(M.square(x), axis, keepdims=True)
    inv = M.rsqrt(M.maximum(square_sum, epsilon))
    return M.multiply(x, inv, name=name or "l2_normalize")


sigmoid = M.sigmoid
tanh = M.tanh

__all__ = [
    "relu", "relu6", "elu", "selu", "leaky_relu", "softplus", "softmax", "log_softmax",
    "bias_add", "xw_plus_b", "l2_loss", "sigmoid_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits_v2",
    "sparse_softmax_cross_entropy_with_logits", "log_poisson_loss", "dropout",
    "embedding_lookup", "in_top_k", "moments", "weighted_moments", "l2_normalize", "sigmoid",
    "tanh",
    # Convolution and pooling, defined in nn_conv_ops.
    "conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "max_pool", "avg_pool",
]
