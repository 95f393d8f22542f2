"""The tensor functions of ``tf.keras.backend`` (``K.mean``, ``K.dot``,
``K.categorical_crossentropy`` ...): thin graph-mode forms over tensorfleet's ops,
with Keras's argument names (``axis``, ``keepdims``) and Keras's loss arithmetic.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N

_FUZZ = 1e-7  # Keras's epsilon(); the losses here clip probabilities by it.


def _t(x: Any) -> Tensor:
    return convert_to_tensor(x)


def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Mean of ``x`` over ``axis`` (all axes when None)."""
    return M.reduce_mean(_t(x), axis=axis, keepdims=keepdims)


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Sum of ``x`` over ``axis``."""
    return M.reduce_sum(_t(x), axis=axis, keepdims=keepdims)


def max(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Maximum of ``x`` over ``axis``."""
    return M.reduce_max(_t(x), axis=axis, keepdims=keepdims)


def min(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Minimum of ``x`` over ``axis``."""
    return M.reduce_min(_t(x), axis=axis, keepdims=keepdims)


def square(x: Any) -> Tensor:
    """Elementwise square."""
    return M.square(_t(x))


def sqrt(x: Any) -> Tensor:
    """Elementwise square root, of ``x`` clipped to be non-negative (as Keras does)."""
    x = _t(x)
    return M.sqrt(M.clip_by_value(x, 0.0, np.inf))


def exp(x: Any) -> Tensor:
    """Elementwise exponential."""
    return M.exp(_t(x))


def log(x: Any) -> Tensor:
    """Elementwise natural logarithm."""
    return M.log(_t(x))


def abs(x: Any) -> Tensor:  # noqa: A001
    """Elementwise absolute value."""
    return M.abs(_t(x))


def clip(x: Any, min_value: Any, max_value: Any) -> Tensor:
    """``x`` clipped to ``[min_value, max_value]``."""
    return M.clip_by_value(_t(x), min_value, max_value)


def maximum(x: Any, y: Any) -> Tensor:
    """Elementwise maximum."""
    return M.maximum(x, y)


def minimum(x: Any, y: Any) -> Tensor:
    """Elementwise minimum."""
    return M.minimum(x, y)


def pow(x: Any, a: Any) -> Tensor:  # noqa: A001
    """``x ** a`` elementwise."""
    return M.pow(x, a)


def cast(x: Any, dtype: Any) -> Tensor:
    """``x`` converted to ``dtype``."""
    return A.cast(_t(x), _dtypes.as_dtype(dtype))


def dot(x: Any, y: Any) -> Tensor:
    """Matrix product over the last axis of ``x`` and the first of ``y``."""
    x, y = _t(x), _t(y)
    if x.shape.ndims == 2 and y.shape.ndims == 2:
        return M.matmul(x, y)
    return M.tensordot(x, y, axes=[[x.shape.ndims - 1], [0]])


def reshape(x: Any, shape: Any) -> Tensor:
    """``x`` reshaped to ``shape``."""
    return A.reshape(_t(x), shape)


def concatenate(tensors: Sequence[Any], axis: int = -1) -> Tensor:
    """``tensors`` joined along ``axis``."""
    ts = [_t(t) for t in tensors]
    if axis < 0 and ts[0].shape.ndims is not None:
        axis %= ts[0].shape.ndims
    return A.concat(ts, axis)


def expand_dims(x: Any, axis: int = -1) -> Tensor:
    """``x`` with a new axis of size 1 at ``axis``."""
    return A.expand_dims(_t(x), axis)


def squeeze(x: Any, axis: int) -> Tensor:
    """``x`` without its size-1 axis ``axis``."""
    return A.squeeze(_t(x), [axis])


def stack(x: Sequence[Any], axis: int = 0) -> Tensor:
    """The tensors of ``x`` stacked along a new ``axis``."""
    return A.stack(list(x), axis=axis)


def transpose(x: Any) -> Tensor:
    """``x`` with its axes reversed."""
    return A.transpose(_t(x))


def gather(reference: Any, indices: Any) -> Tensor:
    """Rows ``indices`` of ``reference``."""
    return A.gather(reference, indices)


def flatten(x: Any) -> Tensor:
    """``x`` as a vector."""
    return A.reshape(_t(x), [-1])


def batch_flatten(x: Any) -> Tensor:
    """``x`` as [batch, everything else]."""
    x = _t(x)
    return A.reshape(x, A.stack([A.shape(x)[0], -1]))


def zeros(shape: Any, dtype: Any = "float32", name: Optional[str] = None) -> Tensor:
    """A tensor of zeros (a plain tensor, not a variable)."""
    return A.zeros(shape, dtype=_dtypes.as_dtype(dtype), name=name)


def ones(shape: Any, dtype: Any = "float32", name: Optional[str] = None) -> Tensor:
    """A tensor of ones (a plain tensor, not a variable)."""
    return A.ones(shape, dtype=_dtypes.as_dtype(dtype), name=name)


def constant(value: Any, dtype: Any = None, shape: Any = None,
             name: Optional[str] = None) -> Tensor:
    """A constant tensor, ``float32`` unless ``dtype`` is given."""
    return A.constant(value, dtype=_dtypes.as_dtype(dtype or "float32"), shape=shape,
                      name=name or "Const")


def argmax(x: Any, axis: int = -1) -> Tensor:
    """Index of the largest value along ``axis``."""
    return M.argmax(_t(x), axis=axis)


def equal(x: Any, y: Any) -> Tensor:
    """Elementwise ``x == y``."""
    return M.equal(x, y)


def relu(x: Any, alpha: float = 0.0, max_value: Optional[float] = None,
         threshold: float = 0.0) -> Tensor:
    """Rectified linear unit with an optional leak ``alpha`` and cap ``max_value``."""
    x = _t(x)
    if threshold != 0.0:
        raise ValueError("relu: a non-zero threshold is not supported")
    y = N.leaky_relu(x, alpha=alpha) if alpha else N.relu(x)
    if max_value is not None:
        y = M.minimum(y, float(max_value))
    return y


def softmax(x: Any, axis: int = -1) -> Tensor:
    """Softmax over ``axis``."""
    return N.softmax(_t(x), axis=axis)


def sigmoid(x: Any) -> Tensor:
    """Logistic sigmoid."""
    return M.sigmoid(_t(x))


def hard_sigmoid(x: Any) -> Tensor:
    """``clip(0.2 * x + 0.5, 0, 1)``: the piecewise-linear sigmoid of Keras."""
    return M.clip_by_value(M.add(M.multiply(_t(x), 0.2), 0.5), 0.0, 1.0)


def tanh(x: Any) -> Tensor:
    """Hyperbolic tangent."""
    return M.tanh(_t(x))


def _softmax_logits(output: Tensor) -> Optional[Tensor]:
    # A softmax output is undone to its logits so the loss is computed stably.
    if output.op.type == "Softmax":
        return output.op.inputs[0]
    return None


def categorical_crossentropy(target: Any, output: Any, from_logits: bool = False,
                             axis: int = -1) -> Tensor:
    """Cross-entropy between one-hot ``target`` and probabilities (or logits) ``output``.

    Probabilities are renormalized to sum to one and clipped to ``[eps, 1 - eps]``;
    the output of a softmax op is differentiated through its logits instead.
    """
    target, output = _t(target), _t(output)
    if not from_logits:
        logits = _softmax_logits(output) if axis in (-1, output.shape.ndims - 1) else None
        if logits is None:
            p = M.divide(output, M.reduce_sum(output, axis=axis, keepdims=True))
            p = M.clip_by_value(p, _FUZZ, 1.0 - _FUZZ)
            return M.negative(M.reduce_sum(M.multiply(A.cast(target, p.dtype), M.log(p)),
                                           axis=axis))
        output = logits
    return N.softmax_cross_entropy_with_logits_v2(labels=A.cast(target, output.dtype),
                                                  logits=output, axis=axis)


def sparse_categorical_crossentropy(target: Any, output: Any, from_logits: bool = False,
                                    axis: int = -1) -> Tensor:
    """Cross-entropy between integer class ``target`` and probabilities/logits ``output``."""
    target, output = _t(target), _t(output)
    if axis not in (-1, output.shape.ndims - 1):
        raise ValueError("sparse_categorical_crossentropy: only the last axis is supported")
    if not from_logits:
        logits = _softmax_logits(output)
        if logits is None:
            p = M.clip_by_value(output, _FUZZ, 1.0 - _FUZZ)
            logits = M.log(p)
        output = logits
    labels = A.cast(target, _dtypes.int64)
    n = output.shape[-1]
    # Targets of shape [batch, 1] (or any shape with the batch's rank) are flattened.
    flat_labels = A.reshape(labels, [-1])
    flat_logits = A.reshape(output, [-1, int(n)] if n is not None else
                            A.stack([-1, A.shape(output)[-1]]))
    loss = N.sparse_softmax_cross_entropy_with_logits(labels=flat_labels, logits=flat_logits)
    if output.shape.ndims is not None and output.shape.ndims > 2:
        return A.reshape(loss, A.shape(output)[:-1])
    return loss


def binary_crossentropy(target: Any, output: Any, from_logits: bool = False) -> Tensor:
    """Elementwise cross-entropy between 0/1 ``target`` and probabilities/logits ``output``;
    a sigmoid output is differentiated through its logits."""
    target, output = _t(target), _t(output)
    if not from_logits:
        if output.op.type == "Sigmoid":
            output = output.op.inputs[0]
        else:
            p = M.clip_by_value(output, _FUZZ, 1.0 - _FUZZ)
            output = M.log(M.divide(p, M.subtract(1.0, p)))
    return N.sigmoid_cross_entropy_with_logits(labels=A.cast(target, output.dtype),
                                               logits=output)


__all__ = ["mean", "sum", "max", "min", "square", "sqrt", "exp", "log", "abs", "clip",
           "maximum", "minimum", "pow", "cast", "dot", "reshape", "concatenate",
           "expand_dims", "squeeze", "stack", "transpose", "gather", "flatten",
           "batch_flatten", "zeros", "ones", "constant", "argmax", "equal", "relu", "softmax",
           "sigmoid", "hard_sigmoid", "tanh", "categorical_crossentropy",
           "sparse_categorical_crossentropy", "binary_crossentropy"]
