"""``tf.layers`` layer objects: ``Dense``, ``Conv2D``, ``Conv2DTranspose`` and friends.

A layer creates its variables the first time it is called, inside
``variable_scope(name, default_name=<snake-case class name>)``, so an unnamed
``Dense`` makes ``dense/kernel`` (then ``dense_1/kernel`` ...) exactly as the
functional ``tf.layers.dense`` does. Later calls re-enter that scope with
``reuse=True`` and share the variables. After the first call ``layer.name``
is the name of that scope (its last component). Only channels-last data is
supported, as in the functional layers. 3-D convolution and 3-D pooling run on the NDHWC
kernels of ``nn_conv_variant_ops``; 1-D pooling runs as 2-D pooling over a height of 1, as
in TensorFlow.
"""

from __future__ import annotations

import numbers
import re
from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import GraphKeys, Tensor, convert_to_tensor, get_default_graph
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import control_flow_ops as CF
from tensorfleet.ops import init_ops
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_conv_variant_ops as CM
from tensorfleet.ops import nn_ops as N
from tensorfleet.nn_layers.keras_style import keras_style_enabled
from tensorfleet.ops.variable_scope import AUTO_REUSE, get_variable, variable_scope


def _snake(name: str) -> str:
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def _tuple(value: Any, n: int, what: str, layer: str) -> tuple:
    if isinstance(value, numbers.Integral):
        out = (int(value),) * n
    else:
        try:
            out = tuple(int(v) for v in value)
        except TypeError:
            raise ValueError(f"{layer}: {what} must be an int or {n} ints, got {value!r}") \
                from None
        if len(out) != n:
            raise ValueError(f"{layer}: {what} must be an int or {n} ints, got {value!r}")
    if min(out) < 1:
        raise ValueError(f"{layer}: {what} must be positive, got {value!r}")
    return out


def _padding(padding: Any, layer: str) -> str:
    p = padding.upper() if isinstance(padding, str) else None
    if p not in ("SAME", "VALID"):
        raise ValueError(f"{layer}: padding must be 'same' or 'valid', got {padding!r}")
    return p  # type: ignore[return-value]


def _channels_last(data_format: str, layer: str) -> None:
    if data_format != "channels_last":
        raise ValueError(f"{layer}: only data_format='channels_last' is supported on this "
                         f"CPU backend, got {data_format!r}")


class Layer:
    """Base of the layer objects: variable scoping, variable bookkeeping and ``__call__``."""

    def __init__(self, trainable: bool = True, name: Optional[str] = None, dtype: Any = None,
                 _reuse: Any = None, **kwargs: Any):
        if kwargs:
            raise TypeError(f"{type(self).__name__}: unexpected arguments {sorted(kwargs)}")
        self._keras_style = keras_style_enabled()
        if self._keras_style and _reuse:
            raise ValueError(f"reuse argument not allowed when keras style layers are "
                             f"enabled, but saw: {_reuse}")
        self.trainable = bool(trainable)
        self._base_name = _snake(type(self).__name__)
        self._name_arg = name
        self._name = name or self._base_name
        self.dtype = None if dtype is None else _dtypes.as_dtype(dtype)
        self._reuse = _reuse
        self._scope: Any = None
        self._trainable_weights: List[Any] = []
        self._non_trainable_weights: List[Any] = []
        self._losses: List[Tensor] = []
        self.built = False
        # An ``InputSpec`` (or a list of them) that every call's inputs must meet.
        self.input_spec: Any = None

    @property
    def name(self) -> str:
        """The layer's name: its scope's last component once built."""
        return self._name

    @property
    def scope_name(self) -> str:
        """The full name of the variable scope the layer's variables live in."""
        if self._scope is None:
            raise ValueError(f"No name available for layer scope because the layer "
                             f"{self._name!r} has not been used yet.")
        return self._scope.name

    @property
    def trainable_variables(self) -> List[Any]:
        """Variables trained by optimizers (empty when the layer is not trainable)."""
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_variables(self) -> List[Any]:
        """The other variables (all of them when the layer is not trainable)."""
        if self.trainable:
            return list(self._non_trainable_weights)
        return list(self._trainable_weights) + list(self._non_trainable_weights)

    @property
    def variables(self) -> List[Any]:
        """Every variable of the layer, trainable ones first."""
        return self.trainable_variables + self.non_trainable_variables

    trainable_weights = trainable_variables
    non_trainable_weights = non_trainable_variables
    weights = variables

    @property
    def losses(self) -> List[Tensor]:
        """Regularization losses added while building and calling the layer."""
        return list(self._losses)

    def add_weight(self, name: str, shape: Any, dtype: Any = None, initializer: Any = None,
                   regularizer: Any = None, trainable: bool = True,
                   constraint: Any = None) -> Any:
        """Creates (or, on reuse, finds) a variable of the layer with ``get_variable``."""
        trainable = trainable and self.trainable
        v = get_variable(name, shape, dtype=dtype or self.dtype, initializer=initializer,
                         regularizer=regularizer, trainable=trainable, constraint=constraint)
        (self._trainable_weights if trainable else self._non_trainable_weights).append(v)
        return v

    def build(self, input_shape: Any) -> None:
        """Creates the layer's variables; layers without variables need not override it."""
        self.built = True

    def call(self, inputs: Tensor, **kwargs: Any) -> Tensor:
        """The layer's computation on ``inputs``; the base layer passes them through."""
        return inputs

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """Builds the layer on first use, then applies it to ``inputs``."""
        x = convert_to_tensor(inputs)
        if self.input_spec is not None:
            specs = self.input_spec if isinstance(self.input_spec, (list, tuple)) else \
                [self.input_spec]
            for spec in specs[:1]:
                spec.assert_compatible(x, self._name)
        if self.dtype is None:
            self.dtype = x.dtype
        g = get_default_graph()
        before = len(g.get_collection(GraphKeys.REGULARIZATION_LOSSES))
        if self._scope is None and self._keras_style:
            # A scope of the layer's own, whatever the enclosing scope's reuse says.
            ctx = variable_scope(None, default_name=self._name_arg or self._base_name,
                                 reuse=AUTO_REUSE)
        elif self._scope is None:
            ctx = variable_scope(self._name_arg, default_name=self._base_name,
                                 reuse=self._reuse)
        else:
            ctx = variable_scope(self._scope, reuse=True)
        with ctx as scope:
            if self._scope is None:
                self._scope = scope
                if not (self._keras_style and self._name_arg):
                    self._name = scope.name.split("/")[-1]
            if not self.built:
                self.build(x.shape)
                self.built = True
            y = self.call(x, *args, **kwargs)
        self._losses.extend(g.get_collection(GraphKeys.REGULARIZATION_LOSSES)[before:])
        return y

    apply = __call__


class _WithActivity(Layer):
    def __init__(self, activity_regularizer: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.activity_regularizer = activity_regularizer

    def _activity(self, y: Tensor) -> Tensor:
        if self.activity_regularizer is not None:
            loss = self.activity_regularizer(y)
            if loss is not None:
                y.graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
        return y


class Dense(_WithActivity):
    """Fully connected layer: ``activation(inputs @ kernel + bias)`` over the last axis."""

    def __init__(self, units: int, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = init_ops.Zeros(),
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True,
                 name: Optional[str] = None, **kwargs: Any):
        super().__init__(activity_regularizer=activity_regularizer, trainable=trainable,
                         name=name, **kwargs)
        if int(units) < 1:
            raise ValueError(f"Dense: units must be a positive integer, got {units!r}")
        self.units = int(units)
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        self.kernel: Any = None
        self.bias: Any = None

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel`` [last input dim, units] and ``bias`` [units]."""
        if input_shape.ndims is not None and input_shape.ndims < 2:
            raise ValueError(f"Dense: inputs must have rank >= 2, got shape {input_shape}")
        n_in = input_shape[-1] if input_shape.ndims else None
        if n_in is None:
            raise ValueError(f"Dense: the last dimension of the inputs must be known, got "
                             f"shape {input_shape}")
        self.kernel = self.add_weight("kernel", [int(n_in), self.units],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.units], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        self.built = True

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """``inputs @ kernel (+ bias)``, then the activation."""
        if not inputs.dtype.is_floating:
            raise TypeError(f"Dense: inputs must be floating point, got {inputs.dtype.name}")
        if inputs.shape.ndims == 2:
            y = M.matmul(inputs, self.kernel)
        else:
            y = self._flat_matmul(inputs)
        if self.bias is not None:
            y = N.bias_add(y, self.bias)
        if self.activation is not None:
            y = self.activation(y)
        return self._activity(y)

    def _flat_matmul(self, x: Tensor) -> Tensor:
        n_in = int(self.kernel.get_shape()[0])
        y = M.matmul(A.reshape(x, [-1, n_in]), self.kernel)
        out = A.reshape(y, A.concat([A.shape(x)[:-1], [self.units]], 0))
        if x.shape.ndims is not None:
            out.set_shape(x.shape.as_list()[:-1] + [self.units])
        return out


class _Conv(_WithActivity):
    """Shared argument handling of the convolution layers."""

    _rank = 2

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", data_format: str = "channels_last",
                 dilation_rate: Any = 1, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = init_ops.Zeros(),
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True,
                 name: Optional[str] = None, **kwargs: Any):
        super().__init__(activity_regularizer=activity_regularizer, trainable=trainable,
                         name=name, **kwargs)
        layer = type(self).__name__
        if int(filters) < 1:
            raise ValueError(f"{layer}: filters must be a positive integer, got {filters!r}")
        _channels_last(data_format, layer)
        self.filters = int(filters)
        self.kernel_size = _tuple(kernel_size, self._rank, "kernel_size", layer)
        self.strides = _tuple(strides, self._rank, "strides", layer)
        self.dilation_rate = _tuple(dilation_rate, self._rank, "dilation_rate", layer)
        self.padding = _padding(padding, layer)
        self.data_format = data_format
        self.activation, self.use_bias = activation, use_bias
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        self.kernel: Any = None
        self.bias: Any = None

    def _in_channels(self, input_shape: Any) -> int:
        want = self._rank + 2
        if input_shape.ndims is not None and input_shape.ndims != want:
            raise ValueError(f"{type(self).__name__}: inputs must be rank {want}, got shape "
                             f"{input_shape}")
        c = input_shape[-1] if input_shape.ndims else None
        if c is None:
            raise ValueError(f"{type(self).__name__}: the channel dimension of the inputs "
                             f"must be known, got shape {input_shape}")
        return int(c)

    def _make(self, kernel_shape: List[int]) -> None:
        self.kernel = self.add_weight("kernel", kernel_shape,
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        self.built = True

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel`` [*kernel_size, in_channels, filters] and ``bias``."""
        self._make(list(self.kernel_size) + [self._in_channels(input_shape), self.filters])

    def _finish(self, y: Tensor) -> Tensor:
        if self.bias is not None:
            y = N.bias_add(y, self.bias)
        if self.activation is not None:
            y = self.activation(y)
        return self._activity(y)


class Conv2D(_Conv):
    """2-D convolution layer over NHWC inputs."""

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """Convolves ``inputs`` with ``kernel``, adds ``bias``, applies the activation."""
        y = N.conv2d(inputs, self.kernel, strides=[1, *self.strides, 1], padding=self.padding,
                     dilations=[1, *self.dilation_rate, 1])
        return self._finish(y)


class Conv1D(_Conv):
    """1-D convolution layer over [batch, width, channels] inputs."""

    _rank = 1

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """Convolves ``inputs`` with ``kernel``, adds ``bias``, applies the activation."""
        y = CM.conv1d(inputs, self.kernel, self.strides[0], self.padding,
                      dilations=self.dilation_rate[0])
        return self._finish(y)


def deconv_output_length(size: Optional[int], k: int, stride: int, padding: str,
                         dilation: int = 1) -> Optional[int]:
    """Spatial length a transposed convolution produces from ``size``."""
    if size is None:
        return None
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        return size * stride
    return size * stride + max(eff - stride, 0)


class Conv2DTranspose(_Conv):
    """Transposed 2-D convolution layer; ``kernel`` is [kh, kw, filters, in_channels]."""

    # The transposed convolution of the layer's rank (a subclass of another rank sets both).
    _transpose = staticmethod(CM.conv2d_transpose)

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel`` [*kernel_size, filters, in_channels] and ``bias``."""
        self._make(list(self.kernel_size) + [self.filters, self._in_channels(input_shape)])

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """Transposed convolution of ``inputs`` with ``kernel``, then bias and activation."""
        shp = inputs.shape.as_list()
        dims = [deconv_output_length(shp[i + 1], self.kernel_size[i], self.strides[i],
                                     self.padding, self.dilation_rate[i]) for i in range(self._rank)]
        static = [shp[0]] + dims + [self.filters]
        if None in static:
            # Unknown sizes are taken from the input at run time.
            dyn = A.shape(inputs)
            parts: List[Any] = [dyn[0] if static[0] is None else static[0]]
            for i in range(self._rank):
                if dims[i] is not None:
                    parts.append(dims[i])
                    continue
                eff = (self.kernel_size[i] - 1) * self.dilation_rate[i] + 1
                extra = max(eff - self.strides[i], 0) if self.padding == "VALID" else 0
                parts.append(M.add(M.multiply(dyn[i + 1], self.strides[i]), extra))
            out_shape: Any = A.stack(parts + [self.filters])
        else:
            out_shape = static
        y = self._transpose(inputs, self.kernel, out_shape, [1, *self.strides, 1],
                            padding=self.padding, dilations=[1, *self.dilation_rate, 1])
        y.set_shape(static)
        return self._finish(y)


class SeparableConv2D(_Conv):
    """Depthwise convolution then a pointwise (1x1) one mixing channels."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", data_format: str = "channels_last",
                 dilation_rate: Any = (1, 1), depth_multiplier: int = 1,
                 activation: Any = None, use_bias: bool = True,
                 depthwise_initializer: Any = None, pointwise_initializer: Any = None,
                 bias_initializer: Any = init_ops.Zeros(), depthwise_regularizer: Any = None,
                 pointwise_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, depthwise_constraint: Any = None,
                 pointwise_constraint: Any = None, bias_constraint: Any = None,
                 trainable: bool = True, name: Optional[str] = None, **kwargs: Any):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, trainable=trainable, name=name,
                         **kwargs)
        if int(depth_multiplier) < 1:
            raise ValueError(f"SeparableConv2D: depth_multiplier must be >= 1, got "
                             f"{depth_multiplier!r}")
        self.depth_multiplier = int(depth_multiplier)
        self.depthwise = (depthwise_initializer, depthwise_regularizer, depthwise_constraint)
        self.pointwise = (pointwise_initializer, pointwise_regularizer, pointwise_constraint)
        self.depthwise_kernel: Any = None
        self.pointwise_kernel: Any = None

    def _kernel_shapes(self, c: int, m: int) -> tuple:
        """The shapes of the depthwise and pointwise kernels for ``c`` input channels."""
        return [*self.kernel_size, c, m], [1, 1, c * m, self.filters]

    def build(self, input_shape: Any) -> None:
        """Creates ``depthwise_kernel``, ``pointwise_kernel`` and ``bias``."""
        c = self._in_channels(input_shape)
        m = self.depth_multiplier
        di, dr, dc = self.depthwise
        pi, pr, pc = self.pointwise
        depthwise_shape, pointwise_shape = self._kernel_shapes(c, m)
        self.depthwise_kernel = self.add_weight("depthwise_kernel", depthwise_shape,
                                                initializer=di, regularizer=dr, constraint=dc)
        self.pointwise_kernel = self.add_weight("pointwise_kernel", pointwise_shape,
                                                initializer=pi, regularizer=pr, constraint=pc)
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        self.built = True

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """Separable convolution of ``inputs``, then bias and activation."""
        y = CM.separable_conv2d(inputs, self.depthwise_kernel, self.pointwise_kernel,
                                [1, *self.strides, 1], self.padding,
                                rate=list(self.dilation_rate))
        return self._finish(y)


class _Pooling2D(Layer):
    _fn: Any = None

    def __init__(self, pool_size: Any, strides: Any, padding: str = "valid",
                 data_format: str = "channels_last", name: Optional[str] = None,
                 **kwargs: Any):
        super().__init__(name=name, **kwargs)
        layer = type(self).__name__
        _channels_last(data_format, layer)
        self.pool_size = _tuple(pool_size, 2, "pool_size", layer)
        self.strides = _tuple(strides, 2, "strides", layer)
        self.padding = _padding(padding, layer)
        self.data_format = data_format

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """Pools ``inputs`` [N,H,W,C] over ``pool_size`` windows."""
        if inputs.shape.ndims is not None and inputs.shape.ndims != 4:
            raise ValueError(f"{type(self).__name__}: inputs must be rank 4, got shape "
                             f"{inputs.shape}")
        return type(self)._fn(inputs, ksize=[1, *self.pool_size, 1],
                              strides=[1, *self.strides, 1], padding=self.padding)


class MaxPooling2D(_Pooling2D):
    """Max pooling over NHWC inputs."""

    _fn = staticmethod(N.max_pool)


class AveragePooling2D(_Pooling2D):
    """Average pooling over NHWC inputs (padding is not counted)."""

    _fn = staticmethod(N.avg_pool)


class Flatten(Layer):
    """Reshapes [batch, d1, d2, ...] to [batch, d1 * d2 * ...]."""

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The flattened inputs."""
        if inputs.shape.ndims == 0:
            raise ValueError("Flatten: inputs must have rank >= 1, got a scalar")
        rest = inputs.shape.as_list()[1:] if inputs.shape.ndims is not None else [None]
        if None not in rest and rest:
            n = 1
            for d in rest:
                n *= d
            if n:
                return A.reshape(inputs, [-1, n])
        return A.reshape(inputs, A.stack([A.shape(inputs)[0], -1]))


class Dropout(Layer):
    """Dropout: in training zeroes a ``rate`` fraction and scales the rest by 1/(1-rate)."""

    def __init__(self, rate: float = 0.5, noise_shape: Any = None, seed: Optional[int] = None,
                 name: Optional[str] = None, **kwargs: Any):
        super().__init__(name=name, **kwargs)
        if isinstance(rate, numbers.Real) and not 0 <= rate < 1:
            raise ValueError(f"Dropout: rate must be in [0, 1), got {rate}")
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed

    def call(self, inputs: Tensor, training: Any = False) -> Tensor:  # type: ignore[override]
        """``inputs`` with dropout applied when ``training`` (bool or bool tensor)."""
        if training is False or (isinstance(self.rate, numbers.Real) and self.rate == 0):
            return A.identity(inputs)

        def dropped() -> Tensor:
            return N.dropout(inputs, rate=self.rate, noise_shape=self.noise_shape,
                             seed=self.seed)

        if training is True:
            return dropped()
        pred = convert_to_tensor(training)
        if pred.dtype is not _dtypes.bool:
            raise TypeError(f"Dropout: training must be a Python bool or a bool tensor, got "
                            f"{pred.dtype.name}")
        return CF.cond(pred, dropped, lambda: A.identity(inputs))


# -- functional forms of the layers above that tensorfleet.nn_layers.functional does not define ------------

def conv2d_transpose(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1),
                     padding: str = "valid", data_format: str = "channels_last",
                     activation: Any = None, use_bias: bool = True,
                     kernel_initializer: Any = None, bias_initializer: Any = init_ops.Zeros(),
                     kernel_regularizer: Any = None, bias_regularizer: Any = None,
                     activity_regularizer: Any = None, kernel_constraint: Any = None,
                     bias_constraint: Any = None, trainable: bool = True,
                     name: Optional[str] = None, reuse: Any = None) -> Tensor:
    """Transposed 2-D convolution layer (``Conv2DTranspose``) applied to ``inputs``."""
    return Conv2DTranspose(filters, kernel_size, strides=strides, padding=padding,
                           data_format=data_format, activation=activation, use_bias=use_bias,
                           kernel_initializer=kernel_initializer,
                           bias_initializer=bias_initializer,
                           kernel_regularizer=kernel_regularizer,
                           bias_regularizer=bias_regularizer,
                           activity_regularizer=activity_regularizer,
                           kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                           trainable=trainable, name=name, _reuse=reuse)(inputs)


def conv1d(inputs: Any, filters: int, kernel_size: Any, strides: Any = 1,
           padding: str = "valid", data_format: str = "channels_last", dilation_rate: Any = 1,
           activation: Any = None, use_bias: bool = True, kernel_initializer: Any = None,
           bias_initializer: Any = init_ops.Zeros(), kernel_regularizer: Any = None,
           bias_regularizer: Any = None, activity_regularizer: Any = None,
           kernel_constraint: Any = None, bias_constraint: Any = None, trainable: bool = True,
           name: Optional[str] = None, reuse: Any = None) -> Tensor:
    """1-D convolution layer (``Conv1D``) applied to ``inputs`` [batch, width, channels]."""
    return Conv1D(filters, kernel_size, strides=strides, padding=padding,
                  data_format=data_format, dilation_rate=dilation_rate, activation=activation,
                  use_bias=use_bias, kernel_initializer=kernel_initializer,
                  bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                  bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                  trainable=trainable, name=name, _reuse=reuse)(inputs)


def separable_conv2d(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1),
                     padding: str = "valid", data_format: str = "channels_last",
                     dilation_rate: Any = (1, 1), depth_multiplier: int = 1,
                     activation: Any = None, use_bias: bool = True,
                     depthwise_initializer: Any = None, pointwise_initializer: Any = None,
                     bias_initializer: Any = init_ops.Zeros(),
                     depthwise_regularizer: Any = None, pointwise_regularizer: Any = None,
                     bias_regularizer: Any = None, activity_regularizer: Any = None,
                     depthwise_constraint: Any = None, pointwise_constraint: Any = None,
                     bias_constraint: Any = None, trainable: bool = True,
                     name: Optional[str] = None, reuse: Any = None) -> Tensor:
    """Depthwise-separable 2-D convolution layer (``SeparableConv2D``) on ``inputs``."""
    return SeparableConv2D(
        filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
        dilation_rate=dilation_rate, depth_multiplier=depth_multiplier, activation=activation,
        use_bias=use_bias, depthwise_initializer=depthwise_initializer,
        pointwise_initializer=pointwise_initializer, bias_initializer=bias_initializer,
        depthwise_regularizer=depthwise_regularizer,
        pointwise_regularizer=pointwise_regularizer, bias_regularizer=bias_regularizer,
        activity_regularizer=activity_regularizer, depthwise_constraint=depthwise_constraint,
        pointwise_constraint=pointwise_constraint, bias_constraint=bias_constraint,
        trainable=trainable, name=name, _reuse=reuse)(inputs)

class Conv3D(_Conv):
    """3-D convolution layer over [batch, depth, height, width, channels] inputs."""

    _rank = 3

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """Convolves ``inputs`` with ``kernel``, adds ``bias``, applies the activation."""
        y = CM.conv3d(inputs, self.kernel, [1, *self.strides, 1], self.padding,
                      dilations=[1, *self.dilation_rate, 1])
        return self._finish(y)


class _Pooling(Layer):
    """Shared argument handling of the 1-D and 3-D pooling layers."""

    _rank = 1
    _max = True

    def __init__(self, pool_size: Any, strides: Any, padding: str = "valid",
                 data_format: str = "channels_last", name: Optional[str] = None,
                 **kwargs: Any):
        super().__init__(name=name, **kwargs)
        layer = type(self).__name__
        _channels_last(data_format, layer)
        self.pool_size = _tuple(pool_size, self._rank, "pool_size", layer)
        self.strides = _tuple(strides, self._rank, "strides", layer)
        self.padding = _padding(padding, layer)
        self.data_format = data_format

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """Pools ``inputs`` over ``pool_size`` windows."""
        want = self._rank + 2
        if inputs.shape.ndims is not None and inputs.shape.ndims != want:
            raise ValueError(f"{type(self).__name__}: inputs must be rank {want}, got shape "
                             f"{inputs.shape}")
        if self._rank == 3:
            fn = CM.max_pool3d if self._max else CM.avg_pool3d
            return fn(inputs, [1, *self.pool_size, 1], [1, *self.strides, 1], self.padding)
        fn = N.max_pool if self._max else N.avg_pool
        y = fn(A.expand_dims(inputs, 1), ksize=[1, 1, self.pool_size[0], 1],
               strides=[1, 1, self.strides[0], 1], padding=self.padding)
        return A.squeeze(y, [1])


class MaxPooling1D(_Pooling):
    """Max pooling over [batch, width, channels] inputs."""


class AveragePooling1D(_Pooling):
    """Average pooling over [batch, width, channels] inputs (padding is not counted)."""

    _max = False


class MaxPooling3D(_Pooling):
    """Max pooling over [batch, depth, height, width, channels] inputs."""

    _rank = 3


class AveragePooling3D(_Pooling):
    """Average pooling over NDHWC inputs (padding is not counted)."""

    _rank = 3
    _max = False


def conv3d(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1, 1),
           padding: str = "valid", data_format: str = "channels_last",
           dilation_rate: Any = (1, 1, 1), activation: Any = None, use_bias: bool = True,
           kernel_initializer: Any = None, bias_initializer: Any = init_ops.Zeros(),
           kernel_regularizer: Any = None, bias_regularizer: Any = None,
           activity_regularizer: Any = None, kernel_constraint: Any = None,
           bias_constraint: Any = None, trainable: bool = True, name: Optional[str] = None,
           reuse: Any = None) -> Tensor:
    """3-D convolution layer (``Conv3D``) applied to ``inputs``."""
    return Conv3D(filters, kernel_size, strides=strides, padding=padding,
                  data_format=data_format, dilation_rate=dilation_rate, activation=activation,
                  use_bias=use_bias, kernel_initializer=kernel_initializer,
                  bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                  bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                  trainable=trainable, name=name, _reuse=reuse)(inputs)


def max_pooling1d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                  data_format: str = "channels_last", name: Optional[str] = None) -> Tensor:
    """Max pooling over [batch, width, channels] inputs."""
    return MaxPooling1D(pool_size, strides, padding, data_format, name=name)(inputs)


def average_pooling1d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                      data_format: str = "channels_last",
                      name: Optional[str] = None) -> Tensor:
    """Average pooling over [batch, width, channels] inputs."""
    return AveragePooling1D(pool_size, strides, padding, data_format, name=name)(inputs)


def max_pooling3d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                  data_format: str = "channels_last", name: Optional[str] = None) -> Tensor:
    """Max pooling over [batch, depth, height, width, channels] inputs."""
    return MaxPooling3D(pool_size, strides, padding, data_format, name=name)(inputs)


def average_pooling3d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                      data_format: str = "channels_last",
                      name: Optional[str] = None) -> Tensor:
    """Average pooling over NDHWC inputs."""
    return AveragePooling3D(pool_size, strides, padding, data_format, name=name)(inputs)


__all__ = ["Layer", "Dense", "Conv1D", "Conv2D", "Conv2DTranspose", "SeparableConv2D",
           "MaxPooling2D", "AveragePooling2D", "Flatten", "Dropout", "deconv_output_length",
           "conv2d_transpose", "conv1d", "separable_conv2d", "Conv3D", "MaxPooling1D",
           "AveragePooling1D", "MaxPooling3D", "AveragePooling3D", "conv3d", "max_pooling1d",
           "average_pooling1d", "max_pooling3d", "average_pooling3d"]
