"""``tf.layers``: the TF 1.x functional layers built on ``get_variable``.

Each call that owns variables opens ``variable_scope(name, default_name=...)``,
so the first ``dense`` makes ``dense/kernel`` and the next ``dense_1/kernel``;
passing an explicit ``name`` with ``reuse=True`` shares the variables of an
earlier call. Only the channels-last (NHWC) layout is supported. The layer objects
(``Dense``, ``Conv2D`` ...) come from ``nn_layers.objects``;
``BatchNormalization`` is defined here, beside the function whose arithmetic it shares.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import GraphKeys, Tensor, convert_to_tensor, name_scope
from tensorfleet.nn_layers.objects import Layer
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import control_flow_ops as CF
from tensorfleet.ops import init_ops
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops import state_ops as S
from tensorfleet.ops.variable_scope import get_variable, variable_scope

IntOrPair = Union[int, Sequence[int]]
Activation = Optional[Callable[[Tensor], Tensor]]


# -- argument checking ---------------------------------------------------------------------

def _pair(value: IntOrPair, what: str, layer: str) -> Tuple[int, int]:
    if isinstance(value, numbers.Integral):
        out = (int(value), int(value))
    else:
        try:
            out = tuple(int(v) for v in value)  # type: ignore[union-attr]
        except TypeError:
            raise ValueError(f"{layer}: {what} must be an int or a pair of ints, "
                             f"got {value!r}") from None
        if len(out) != 2:
            raise ValueError(f"{layer}: {what} must be an int or a pair of ints, "
                             f"got {value!r}")
    if min(out) < 1:
        raise ValueError(f"{layer}: {what} must be positive, got {value!r}")
    return out  # type: ignore[return-value]


def _padding(padding: Any, layer: str) -> str:
    p = padding.upper() if isinstance(padding, str) else None
    if p not in ("SAME", "VALID"):
        raise ValueError(f"{layer}: padding must be 'same' or 'valid' (any case), "
                         f"got {padding!r}")
    return p  # type: ignore[return-value]


def _channels_last(data_format: str, layer: str) -> None:
    if data_format == "channels_first":
        raise ValueError(f"{layer}: data_format='channels_first' is not supported on this "
                         f"CPU backend; transpose the input to channels_last (NHWC)")
    if data_format != "channels_last":
        raise ValueError(f"{layer}: data_format must be 'channels_last' or "
                         f"'channels_first', got {data_format!r}")


def _float_input(inputs: Any, layer: str) -> Tensor:
    x = convert_to_tensor(inputs)
    if not x.dtype.is_floating:
        raise TypeError(f"{layer}: inputs must be floating point, got {x.dtype.name} "
                        f"({x.name})")
    return x


def _rank(x: Tensor, rank: int, layer: str) -> None:
    if x.shape.ndims is not None and x.shape.ndims != rank:
        raise ValueError(f"{layer}: inputs must be rank {rank}, got shape {x.shape} "
                         f"({x.name})")


def _last_dim(x: Tensor, layer: str) -> int:
    d = x.shape[-1] if x.shape.ndims else None
    if d is None:
        raise ValueError(f"{layer}: the last dimension of the inputs must be known while "
                         f"building the graph, got shape {x.shape} ({x.name})")
    return int(d)


def _finish(y: Tensor, activation: Activation) -> Tensor:
    return activation(y) if activation is not None else y


# -- layers with variables -------------------------------------------------------------------

def dense(inputs: Any, units: int, activation: Activation = None, use_bias: bool = True,
          kernel_initializer: Any = None, bias_initializer: Any = init_ops.Zeros(),
          kernel_regularizer: Any = None, bias_regularizer: Any = None,
          activity_regularizer: Any = None, kernel_constraint: Any = None,
          bias_constraint: Any = None, trainable: bool = True, name: Optional[str] = None,
          reuse: Any = None) -> Tensor:
    """Fully connected layer: ``activation(inputs @ kernel + bias)``.

    ``kernel`` is [last dim of inputs, units] (glorot-uniform by default) and
    ``bias`` is [units]. Inputs of rank > 2 are multiplied over their last axis
    only, so a [batch, time, features] input gives [batch, time, units].

    Raises:
      ValueError: for inputs of rank < 2, an unknown last dimension or units < 1.
      TypeError: for non-floating inputs.
    """
    x = _float_input(inputs, "dense")
    if x.shape.ndims is not None and x.shape.ndims < 2:
        raise ValueError(f"dense: inputs must have rank >= 2, got shape {x.shape} "
                         f"({x.name})")
    if int(units) < 1:
        raise ValueError(f"dense: units must be a positive integer, got {units!r}")
    units = int(units)
    n_in = _last_dim(x, "dense")
    with variable_scope(name, default_name="dense", values=[x], reuse=reuse):
        kernel = get_variable("kernel", [n_in, units], dtype=x.dtype,
                              initializer=kernel_initializer,
                              regularizer=kernel_regularizer, trainable=trainable,
                              constraint=kernel_constraint)
        bias = None
        if use_bias:
            bias = get_variable("bias", [units], dtype=x.dtype, initializer=bias_initializer,
                                regularizer=bias_regularizer, trainable=trainable,
                                constraint=bias_constraint)
        if x.shape.ndims == 2:
            y = M.matmul(x, kernel)
        else:
            y = _matmul_last_axis(x, kernel, n_in, units)
        if bias is not None:
            y = N.bias_add(y, bias)
        y = _finish(y, activation)
    _activity(activity_regularizer, y)
    return y


def _matmul_last_axis(x: Tensor, kernel: Any, n_in: int, units: int) -> Tensor:
    # Flatten the leading axes into one batch so a single MatMul does the work,
    # then restore them; the dynamic shape keeps unknown leading dims working.
    flat = A.reshape(x, [-1, n_in])
    y = M.matmul(flat, kernel)
    lead = x.shape.as_list()[:-1] if x.shape.ndims is not None else None
    if lead is not None and sum(d is None for d in lead) <= 1:
        return A.reshape(y, [-1 if d is None else d for d in lead] + [units])
    return A.reshape(y, A.concat([A.shape(x)[:-1], [units]], 0))


def _activity(regularizer: Any, y: Tensor) -> None:
    if regularizer is None:
        return
    loss = regularizer(y)
    if loss is not None:
        y.graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)


def conv2d(inputs: Any, filters: int, kernel_size: IntOrPair, strides: IntOrPair = (1, 1),
           padding: str = "valid", data_format: str = "channels_last",
           dilation_rate: IntOrPair = (1, 1), activation: Activation = None,
           use_bias: bool = True, kernel_initializer: Any = None,
           bias_initializer: Any = init_ops.Zeros(), kernel_regularizer: Any = None,
           bias_regularizer: Any = None, activity_regularizer: Any = None,
           kernel_constraint: Any = None, bias_constraint: Any = None, trainable: bool = True,
           name: Optional[str] = None, reuse: Any = None) -> Tensor:
    """2-D convolution layer over an NHWC input.

    ``kernel`` is [kh, kw, in_channels, filters]; ``bias`` is [filters].

    Raises:
      ValueError: for channels_first data, an unknown padding, bad sizes, an input
        that is not rank 4, or an unknown channel count.
    """
    _channels_last(data_format, "conv2d")
    pad = _padding(padding, "conv2d")
    kh, kw = _pair(kernel_size, "kernel_size", "conv2d")
    sh, sw = _pair(strides, "strides", "conv2d")
    dh, dw = _pair(dilation_rate, "dilation_rate", "conv2d")
    if int(filters) < 1:
        raise ValueError(f"conv2d: filters must be a positive integer, got {filters!r}")
    x = _float_input(inputs, "conv2d")
    _rank(x, 4, "conv2d")
    c_in = _last_dim(x, "conv2d")
    with variable_scope(name, default_name="conv2d", values=[x], reuse=reuse):
        kernel = get_variable("kernel", [kh, kw, c_in, int(filters)], dtype=x.dtype,
                              initializer=kernel_initializer,
                              regularizer=kernel_regularizer, trainable=trainable,
                              constraint=kernel_constraint)
        y = N.conv2d(x, kernel, strides=[1, sh, sw, 1], padding=pad,
                     dilations=[1, dh, dw, 1])
        if use_bias:
            bias = get_variable("bias", [int(filters)], dtype=x.dtype,
                                initializer=bias_initializer, regularizer=bias_regularizer,
                                trainable=trainable, constraint=bias_constraint)
            y = N.bias_add(y, bias)
        y = _finish(y, activation)
    _activity(activity_regularizer, y)
    return y


def batch_normalization(inputs: Any, axis: int = -1, momentum: float = 0.99,
                        epsilon: float = 1e-3, center: bool = True, scale: bool = True,
                        beta_initializer: Any = init_ops.Zeros(),
                        gamma_initializer: Any = init_ops.Ones(),
                        moving_mean_initializer: Any = init_ops.Zeros(),
                        moving_variance_initializer: Any = init_ops.Ones(),
                        beta_regularizer: Any = None, gamma_regularizer: Any = None,
                        training: Any = False, trainable: bool = True,
                        name: Optional[str] = None, reuse: Any = None) -> Tensor:
    """Normalizes ``inputs`` over every axis but ``axis``, then scales and shifts.

    In training the batch statistics are used and ops that move ``moving_mean``
    and ``moving_variance`` towards them (by ``1 - momentum``) are added to
    ``GraphKeys.UPDATE_OPS``; run them with the train op, e.g. under
    ``tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS))``.
    Otherwise the moving statistics are used. ``training`` may be a Python bool
    or a scalar bool tensor. The moving variance tracks the biased batch variance.

    Raises:
      ValueError: for an unknown rank or size along ``axis``, or a bad momentum.
    """
    x = _float_input(inputs, "batch_normalization")
    axis, depth = _bn_axis(x, axis, momentum, "batch_normalization")
    with variable_scope(name, default_name="batch_normalization", values=[x], reuse=reuse):
        shape = [depth]
        gamma = get_variable("gamma", shape, dtype=x.dtype, initializer=gamma_initializer,
                             regularizer=gamma_regularizer,
                             trainable=trainable) if scale else None
        beta = get_variable("beta", shape, dtype=x.dtype, initializer=beta_initializer,
                            regularizer=beta_regularizer,
                            trainable=trainable) if center else None
        moving_mean = get_variable("moving_mean", shape, dtype=x.dtype,
                                   initializer=moving_mean_initializer, trainable=False)
        moving_var = get_variable("moving_variance", shape, dtype=x.dtype,
                                  initializer=moving_variance_initializer, trainable=False)
        y, _ = _normalize(x, axis, training, momentum, epsilon, gamma, beta, moving_mean,
                          moving_var)
        return y


def _bn_axis(x: Tensor, axis: int, momentum: float, layer: str) -> Tuple[int, int]:
    """The normalized axis (non-negative) and its size, after checking the arguments."""
    rank = x.shape.ndims
    if rank is None:
        raise ValueError(f"{layer}: the rank of the inputs must be known, "
                         f"got {x.shape} ({x.name})")
    if not -rank <= axis < rank:
        raise ValueError(f"{layer}: axis {axis} is out of range for inputs of "
                         f"shape {x.shape}")
    if not 0.0 <= momentum <= 1.0:
        raise ValueError(f"{layer}: momentum must be in [0, 1], got {momentum}")
    axis %= rank
    depth = x.shape[axis]
    if depth is None:
        raise ValueError(f"{layer}: dimension {axis} of the inputs must be "
                         f"known, got shape {x.shape} ({x.name})")
    return axis, int(depth)


def _normalize(x: Tensor, axis: int, training: Any, momentum: float, epsilon: float,
               gamma: Any, beta: Any, moving_mean: Any, moving_var: Any
               ) -> Tuple[Tensor, List[Tensor]]:
    """Batch normalization of ``x`` along ``axis`` and the moving-average update ops
    (also added to ``GraphKeys.UPDATE_OPS``; none outside training)."""
    rank = x.shape.ndims
    reduce_axes = [i for i in range(rank) if i != axis]
    # Parameters of shape [depth] broadcast against the input only when the
    # normalized axis is last; otherwise give them singleton dims elsewhere.
    bshape = [1] * rank
    bshape[axis] = int(x.shape[axis])

    def bcast(v: Any) -> Any:
        return v if axis == rank - 1 else A.reshape(v, bshape)

    updates: List[Tensor] = []
    if training is False:
        mean, var = moving_mean.value(), moving_var.value()
    else:
        mean, var = _batch_stats(x, reduce_axes, training, moving_mean, moving_var)
        decay = 1.0 - momentum
        with name_scope("AssignMovingAvg"):
            upd_m = S.assign_sub(moving_mean, M.multiply(M.subtract(moving_mean, mean),
                                                         decay))
            upd_v = S.assign_sub(moving_var, M.multiply(M.subtract(moving_var, var),
                                                        decay))
        x.graph.add_to_collection(GraphKeys.UPDATE_OPS, upd_m)
        x.graph.add_to_collection(GraphKeys.UPDATE_OPS, upd_v)
        updates = [upd_m, upd_v]
    inv = M.rsqrt(M.add(var, epsilon))
    if gamma is not None:
        inv = M.multiply(inv, gamma)
    shift = M.negative(M.multiply(mean, inv))
    if beta is not None:
        shift = M.add(shift, beta)
    return M.add(M.multiply(x, bcast(inv)), bcast(shift)), updates


class BatchNormalization(Layer):
    """Batch normalization layer: the object form of ``batch_normalization``.

    ``gamma``/``beta`` are trainable, ``moving_mean``/``moving_variance`` are not;
    calling with ``training=True`` (or a bool tensor) also creates the update ops of
    the moving statistics, listed in ``layer.updates`` and ``GraphKeys.UPDATE_OPS``.
    ``fused`` is accepted for compatibility: both forms give the same results here.
    """

    def __init__(self, axis: int = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True,
                 beta_initializer: Any = init_ops.Zeros(),
                 gamma_initializer: Any = init_ops.Ones(),
                 moving_mean_initializer: Any = init_ops.Zeros(),
                 moving_variance_initializer: Any = init_ops.Ones(),
                 beta_regularizer: Any = None, gamma_regularizer: Any = None,
                 beta_constraint: Any = None, gamma_constraint: Any = None,
                 renorm: bool = False, fused: Optional[bool] = None, trainable: bool = True,
                 name: Optional[str] = None, **kwargs: Any):
        super().__init__(trainable=trainable, name=name, **kwargs)
        if renorm:
            raise ValueError("BatchNormalization: renorm=True is not supported")
        if isinstance(axis, (list, tuple)):
            raise ValueError(f"BatchNormalization: only a single axis is supported, got {axis}")
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"BatchNormalization: momentum must be in [0, 1], got {momentum}")
        self.axis, self.momentum, self.epsilon = int(axis), float(momentum), float(epsilon)
        self.center, self.scale, self.fused = center, scale, fused
        self._inits = (beta_initializer, gamma_initializer, moving_mean_initializer,
                       moving_variance_initializer)
        self._regs = (beta_regularizer, gamma_regularizer)
        self._constraints = (beta_constraint, gamma_constraint)
        self.gamma: Any = None
        self.beta: Any = None
        self.moving_mean: Any = None
        self.moving_variance: Any = None
        self._updates: List[Tensor] = []

    @property
    def updates(self) -> List[Tensor]:
        """The moving-average update ops made by calls in training mode."""
        return list(self._updates)

    def build(self, input_shape: Any) -> None:
        """Creates ``gamma``, ``beta``, ``moving_mean`` and ``moving_variance``."""
        rank = input_shape.ndims
        if rank is None or not -rank <= self.axis < rank or input_shape[self.axis] is None:
            raise ValueError(f"BatchNormalization: axis {self.axis} of the inputs must be "
                             f"known, got shape {input_shape}")
        shape = [int(input_shape[self.axis])]
        b_init, g_init, m_init, v_init = self._inits
        if self.scale:
            self.gamma = self.add_weight("gamma", shape, initializer=g_init,
                                         regularizer=self._regs[1],
                                         constraint=self._constraints[1])
        if self.center:
            self.beta = self.add_weight("beta", shape, initializer=b_init,
                                        regularizer=self._regs[0],
                                        constraint=self._constraints[0])
        self.moving_mean = self.add_weight("moving_mean", shape, initializer=m_init,
                                           trainable=False)
        self.moving_variance = self.add_weight("moving_variance", shape, initializer=v_init,
                                               trainable=False)
        self.built = True

    def call(self, inputs: Tensor, training: Any = False) -> Tensor:  # type: ignore[override]
        """Normalizes ``inputs`` with batch statistics in training, else moving ones."""
        x = _float_input(inputs, "BatchNormalization")
        axis, _ = _bn_axis(x, self.axis, self.momentum, "BatchNormalization")
        y, updates = _normalize(x, axis, training, self.momentum, self.epsilon, self.gamma,
                                self.beta, self.moving_mean, self.moving_variance)
        self._updates.extend(updates)
        return y


def _batch_stats(x: Tensor, axes: List[int], training: Any, moving_mean: Any,
                 moving_var: Any) -> Tuple[Tensor, Tensor]:
    mean, var = N.moments(x, axes)
    if training is True:
        return mean, var
    # With a training tensor the moving statistics are chosen when it is false, which
    # also makes the moving-average updates no-ops (they move by zero).
    pred = convert_to_tensor(training)
    mean = CF.cond(pred, lambda: mean, lambda: moving_mean.value())
    var = CF.cond(pred, lambda: var, lambda: moving_var.value())
    return mean, var


# -- layers without variables --------------------------------------------------------------

def _pool(kind: str, inputs: Any, pool_size: IntOrPair, strides: IntOrPair, padding: str,
          data_format: str, name: Optional[str]) -> Tensor:
    _channels_last(data_format, kind)
    pad = _padding(padding, kind)
    ph, pw = _pair(pool_size, "pool_size", kind)
    sh, sw = _pair(strides, "strides", kind)
    x = convert_to_tensor(inputs)
    _rank(x, 4, kind)
    fn = N.max_pool if kind == "max_pooling2d" else N.avg_pool
    with name_scope(name, default_name=kind):
        return fn(x, ksize=[1, ph, pw, 1], strides=[1, sh, sw, 1], padding=pad)


def max_pooling2d(inputs: Any, pool_size: IntOrPair, strides: IntOrPair,
                  padding: str = "valid", data_format: str = "channels_last",
                  name: Optional[str] = None) -> Tensor:
    """Maximum over ``pool_size`` windows of an NHWC input.

    Raises:
      ValueError: for channels_first data, an unknown padding, bad sizes or an
        input that is not rank 4.
    """
    return _pool("max_pooling2d", inputs, pool_size, strides, padding, data_format, name)


def average_pooling2d(inputs: Any, pool_size: IntOrPair, strides: IntOrPair,
                      padding: str = "valid", data_format: str = "channels_last",
                      name: Optional[str] = None) -> Tensor:
    """Mean over ``pool_size`` windows of an NHWC input (padding is not counted).

    Raises:
      ValueError: for channels_first data, an unknown padding, bad sizes or an
        input that is not rank 4.
    """
    return _pool("average_pooling2d", inputs, pool_size, strides, padding, data_format, name)


def dropout(inputs: Any, rate: float = 0.5, noise_shape: Any = None,
            seed: Optional[int] = None, training: Any = False,
            name: Optional[str] = None) -> Tensor:
    """Zeroes a ``rate`` fraction of ``inputs`` in training and scales the rest by
    ``1 / (1 - rate)``; outside training it returns the inputs unchanged.

    ``training`` may be a Python bool or a scalar bool tensor (e.g. a
    placeholder); with a tensor the choice is made at run time.

    Raises:
      ValueError: for a Python ``rate`` outside [0, 1).
    """
    if isinstance(rate, numbers.Real) and not 0 <= rate < 1:
        raise ValueError(f"dropout: rate must be in [0, 1), got {rate}")
    x = _float_input(inputs, "dropout")
    with name_scope(name, default_name="dropout"):
        if training is False or (isinstance(rate, numbers.Real) and rate == 0):
            return A.identity(x)

        def dropped() -> Tensor:
            return N.dropout(x, rate=rate, noise_shape=noise_shape, seed=seed)

        if training is True:
            return dropped()
        pred = convert_to_tensor(training)
        if pred.dtype is not _dtypes.bool:
            raise TypeError(f"dropout: training must be a Python bool or a bool tensor, "
                            f"got {pred.dtype.name} ({pred.name})")
        return CF.cond(pred, dropped, lambda: A.identity(x))


def flatten(inputs: Any, name: Optional[str] = None) -> Tensor:
    """Reshapes [batch, d1, d2, ...] to [batch, d1 * d2 * ...].

    Raises:
      ValueError: for a scalar input.
    """
    x = convert_to_tensor(inputs)
    if x.shape.ndims == 0:
        raise ValueError(f"flatten: inputs must have rank >= 1, got a scalar ({x.name})")
    with name_scope(name, default_name="flatten"):
        rest = x.shape.as_list()[1:] if x.shape.ndims is not None else [None]
        n = 1
        for d in rest:
            n = n * d if d is not None and n is not None else None
        if n:
            return A.reshape(x, [-1, n])
        # Unknown (or zero-sized) trailing dims: take the batch size at run time so
        # the -1 is never ambiguous.
        return A.reshape(x, A.stack([A.shape(x)[0], -1]))

__all__ = ["dense", "conv2d", "batch_normalization", "max_pooling2d", "average_pooling2d",
           "dropout", "flatten", "BatchNormalization"]

from tensorfleet.nn_layers.objects import (  # noqa: E402,F401  (layer objects, more layers)
    AveragePooling2D, Conv1D, Conv2D, Conv2DTranspose, Dense, Dropout, Flatten, MaxPooling2D,
    SeparableConv2D, conv1d, conv2d_transpose, separable_conv2d)

__all__ += ["Layer", "Dense", "Conv1D", "Conv2D", "Conv2DTranspose", "SeparableConv2D",
            "MaxPooling2D", "AveragePooling2D", "Flatten", "Dropout", "conv1d",
            "conv2d_transpose", "separable_conv2d"]

from tensorfleet.nn_layers.objects import (  # noqa: E402,F401  (3-D convolution, 1-D/3-D pooling)
    AveragePooling1D, AveragePooling3D, Conv3D, MaxPooling1D, MaxPooling3D, average_pooling1d,
    average_pooling3d, conv3d, max_pooling1d, max_pooling3d)

__all__ += ["Conv3D", "MaxPooling1D", "AveragePooling1D", "MaxPooling3D", "AveragePooling3D",
            "conv3d", "max_pooling1d", "average_pooling1d", "max_pooling3d",
            "average_pooling3d"]
