"""Core Keras layers: Dense, Activation, Dropout, Flatten, Reshape, Lambda, Embedding,
BatchNormalization, LeakyReLU, and the merge layers (Concatenate, Add ...).

``Dense``, ``Dropout``, ``Flatten`` and ``BatchNormalization`` are the
``tf.layers`` classes behind the Keras base (Keras defaults, names given at
construction, string activations/initializers/regularizers).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

from tensorfleet.nn_layers import functional as _tf_layers
from tensorfleet.nn_layers import objects as _tfl
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.keras import activations as _acts
from tensorfleet.keras import backend as K
from tensorfleet.keras import initializers as _inits
from tensorfleet.keras import regularizers as _regs
from tensorfleet.keras.layers.base import Layer, WrappingLayer, to_list
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import embedding_ops as E
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N


class Dense(Layer, _tfl.Dense):
    """``activation(inputs @ kernel + bias)``; weights ``<name>/kernel`` and ``<name>/bias``."""

    def __init__(self, units: int, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any):
        rest = self._keras_kwargs(kwargs)
        _tfl.Dense.__init__(self, units, activation=_acts.get(activation), use_bias=use_bias,
                            kernel_initializer=_inits.get(kernel_initializer),
                            bias_initializer=_inits.get(bias_initializer),
                            kernel_regularizer=_regs.get(kernel_regularizer),
                            bias_regularizer=_regs.get(bias_regularizer),
                            activity_regularizer=_regs.get(activity_regularizer),
                            kernel_constraint=kernel_constraint,
                            bias_constraint=bias_constraint, **rest)
        self._keras_name(rest.get("name"))


class Activation(Layer):
    """Applies an activation function (a name or a callable)."""

    def __init__(self, activation: Any, **kwargs: Any):
        super().__init__(**kwargs)
        self.activation = _acts.get(activation)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """``activation(inputs)``."""
        out = self.activation(inputs)
        # a layer's output must be a tensor of its own (``linear`` returns its input)
        return A.identity(out) if out is inputs else out


class Dropout(Layer, _tfl.Dropout):
    """Zeroes a ``rate`` fraction of the inputs while training (learning phase 1),
    scaling the rest by ``1 / (1 - rate)``; the identity otherwise."""

    def __init__(self, rate: float, noise_shape: Any = None, seed: Optional[int] = None,
                 **kwargs: Any):
        rest = self._keras_kwargs(kwargs)
        _tfl.Dropout.__init__(self, rate, noise_shape=noise_shape, seed=seed, **rest)
        self._keras_name(rest.get("name"))


class Flatten(Layer, _tfl.Flatten):
    """Reshapes [batch, d1, d2, ...] to [batch, d1 * d2 * ...]."""

    def __init__(self, data_format: Optional[str] = None, **kwargs: Any):
        rest = self._keras_kwargs(kwargs)
        if data_format not in (None, "channels_last"):
            raise ValueError(f"Flatten: only data_format='channels_last' is supported, got "
                             f"{data_format!r}")
        _tfl.Flatten.__init__(self, **rest)
        self._keras_name(rest.get("name"))


class Reshape(Layer):
    """Reshapes each sample to ``target_shape`` (one entry may be -1)."""

    def __init__(self, target_shape: Sequence[int], **kwargs: Any):
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)
        if sum(1 for d in self.target_shape if d == -1) > 1:
            raise ValueError(f"Reshape: at most one -1 is allowed in target_shape, got "
                             f"{self.target_shape}")

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """``inputs`` reshaped to ``[batch] + target_shape``."""
        if -1 not in self.target_shape:
            return A.reshape(inputs, [-1, *self.target_shape])
        return A.reshape(inputs, A.stack([A.shape(inputs)[0], *self.target_shape]))


class Lambda(Layer):
    """Wraps a function of tensors as a layer: ``Lambda(lambda x: x ** 2)``.

    ``output_shape`` is kept for reference only: in graph mode the output's
    shape is that of the tensor the function returns.
    """

    def __init__(self, function: Callable[..., Any], output_shape: Any = None,
                 mask: Any = None, arguments: Optional[Dict[str, Any]] = None, **kwargs: Any):
        super().__init__(**kwargs)
        if mask is not None:
            raise ValueError("Lambda: masks are not supported")
        self.function = function
        self.arguments = dict(arguments or {})
        self._output_shape = output_shape

    def call(self, inputs: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """``function(inputs, **arguments)``."""
        return self.function(inputs, **self.arguments, **kwargs)


class Embedding(Layer):
    """Maps integer ids to rows of a trainable ``[input_dim, output_dim]`` matrix
    (``<name>/embeddings``)."""

    def __init__(self, input_dim: int, output_dim: int,
                 embeddings_initializer: Any = "uniform", embeddings_regularizer: Any = None,
                 activity_regularizer: Any = None, embeddings_constraint: Any = None,
                 mask_zero: bool = False, input_length: Optional[int] = None, **kwargs: Any):
        if input_length is not None and "input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,)
        super().__init__(**kwargs)
        if mask_zero:
            raise ValueError("Embedding: mask_zero=True is not supported (the layers here "
                             "do not propagate masks)")
        if int(input_dim) < 1 or int(output_dim) < 1:
            raise ValueError(f"Embedding: input_dim and output_dim must be positive, got "
                             f"{input_dim}, {output_dim}")
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.embeddings_initializer = _inits.get(embeddings_initializer)
        self.embeddings_regularizer = _regs.get(embeddings_regularizer)
        self.activity_regularizer = _regs.get(activity_regularizer)
        self.embeddings_constraint = embeddings_constraint
        self.input_length = input_length
        self.embeddings: Any = None

    def build(self, input_shape: Any) -> None:
        """Makes ``embeddings``."""
        self.embeddings = self.add_weight("embeddings", [self.input_dim, self.output_dim],
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint)
        self.built = True

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The rows of ``embeddings`` for the ids in ``inputs``."""
        ids = inputs if inputs.dtype.is_integer else A.cast(inputs, "int32")
        y = E.embedding_lookup(self.embeddings, ids)
        if self.activity_regularizer is not None:
            self._keras_losses.append(self.activity_regularizer(y))
        return y


class BatchNormalization(Layer, _tf_layers.BatchNormalization):
    """Batch normalization: batch statistics while training (their moving averages
    are updated by the model's training step), moving statistics otherwise."""

    def __init__(self, axis: int = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", moving_mean_initializer: Any = "zeros",
                 moving_variance_initializer: Any = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, renorm: bool = False,
                 fused: Optional[bool] = None, **kwargs: Any):
        rest = self._keras_kwargs(kwargs)
        _tf_layers.BatchNormalization.__init__(
            self, axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
            beta_initializer=_inits.get(beta_initializer),
            gamma_initializer=_inits.get(gamma_initializer),
            moving_mean_initializer=_inits.get(moving_mean_initializer),
            moving_variance_initializer=_inits.get(moving_variance_initializer),
            beta_regularizer=_regs.get(beta_regularizer),
            gamma_regularizer=_regs.get(gamma_regularizer), beta_constraint=beta_constraint,
            gamma_constraint=gamma_constraint, renorm=renorm, fused=fused, **rest)
        self._keras_name(rest.get("name"))


class LeakyReLU(Layer):
    """``x`` if positive else ``alpha * x``."""

    def __init__(self, alpha: float = 0.3, **kwargs: Any):
        super().__init__(**kwargs)
        self.alpha = float(alpha)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The leaky rectifier of ``inputs``."""
        return N.leaky_relu(inputs, alpha=self.alpha)


class ReLU(Layer):
    """Rectified linear unit, optionally capped (``max_value``) and leaky (``negative_slope``)."""

    def __init__(self, max_value: Optional[float] = None, negative_slope: float = 0.0,
                 threshold: float = 0.0, **kwargs: Any):
        super().__init__(**kwargs)
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, \
            threshold

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The rectifier of ``inputs``."""
        return K.relu(inputs, alpha=self.negative_slope, max_value=self.max_value,
                      threshold=self.threshold)


class Softmax(Layer):
    """Softmax over ``axis``."""

    def __init__(self, axis: int = -1, **kwargs: Any):
        super().__init__(**kwargs)
        self.axis = int(axis)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The softmax of ``inputs``."""
        return N.softmax(inputs, axis=self.axis)


class RepeatVector(Layer):
    """Repeats [batch, features] ``n`` times: [batch, n, features]."""

    def __init__(self, n: int, **kwargs: Any):
        super().__init__(**kwargs)
        self.n = int(n)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """``inputs`` repeated along a new axis 1."""
        if inputs.shape.ndims is not None and inputs.shape.ndims != 2:
            raise ValueError(f"RepeatVector: inputs must be rank 2, got shape {inputs.shape}")
        return A.tile(A.expand_dims(inputs, 1), [1, self.n, 1])


class Permute(Layer):
    """Permutes the non-batch axes: ``dims`` is a permutation of 1..rank-1."""

    def __init__(self, dims: Sequence[int], **kwargs: Any):
        super().__init__(**kwargs)
        self.dims = tuple(int(d) for d in dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Invalid permutation `dims` for Permute Layer: {dims}. The set "
                             f"of indices in `dims` must be consecutive and start from 1.")

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """``inputs`` with its axes permuted."""
        return A.transpose(inputs, [0, *self.dims])


class TimeDistributed(WrappingLayer):
    """Applies ``layer`` to every time step of [batch, time, ...] inputs (one set of
    weights for all steps), by folding time into the batch."""

    def __init__(self, layer: Layer, **kwargs: Any):
        if not isinstance(layer, Layer):
            raise ValueError(f"Please initialize `TimeDistributed` layer with a Keras layer "
                             f"instance. You passed: {layer!r}")
        super().__init__(**kwargs)
        self.layer = layer

    def _wrapped(self) -> List[Any]:
        return [self.layer]

    @property
    def losses(self) -> List[Any]:  # type: ignore[override]
        """The wrapped layer's losses."""
        return self.layer.losses + list(self._keras_losses)

    @property
    def updates(self) -> List[Any]:
        """The wrapped layer's update ops."""
        return self.layer.updates

    def call(self, inputs: Tensor, training: Any = None) -> Tensor:  # type: ignore[override]
        """``layer`` on each step of ``inputs``."""
        shape = inputs.shape
        if shape.ndims is None or shape.ndims < 3:
            raise ValueError(f"TimeDistributed: inputs must be at least rank 3 [batch, time, "
                             f"...], got shape {shape}")
        inner = shape.as_list()[2:]
        if None in inner:
            raise ValueError(f"TimeDistributed: the dimensions after time must be known, got "
                             f"shape {shape}")
        dyn = A.shape(inputs)
        flat = A.reshape(inputs, [-1, *inner])
        kwargs = {"training": training} if training is not None and \
            self.layer._wants_training() else {}
        y = self.layer(flat, **kwargs)
        out_inner = y.shape.as_list()[1:]
        out = A.reshape(y, A.concat([dyn[:2], A.shape(y)[1:]], 0))
        out.set_shape(shape.as_list()[:2] + out_inner)
        return out


# -- merge layers ------------------------------------------------------------------------

class _Merge(Layer):
    """Elementwise merge of a list of same-shaped tensors, folded pairwise by ``_fold``."""

    _fold: Callable[[Any, Any], Tensor] = staticmethod(M.add)

    def _merge(self, xs: List[Tensor]) -> Tensor:
        y = xs[0]
        for x in xs[1:]:
            y = type(self)._fold(y, x)
        return y

    def call(self, inputs: Any) -> Tensor:  # type: ignore[override]
        """The merged inputs."""
        xs = to_list(inputs)
        if len(xs) < 2:
            raise ValueError(f"A merge layer ({type(self).__name__}) should be called on a "
                             f"list of at least 2 inputs. Got {len(xs)} inputs.")
        return self._merge([convert_to_tensor(x) for x in xs])


class Add(_Merge):
    """Sum of the inputs."""


class Subtract(_Merge):
    """First input minus the second."""

    _fold = staticmethod(M.subtract)

    def _merge(self, xs: List[Tensor]) -> Tensor:
        if len(xs) != 2:
            raise ValueError("A `Subtract` layer should be called on exactly 2 inputs")
        return M.subtract(xs[0], xs[1])


class Multiply(_Merge):
    """Elementwise product of the inputs."""

    _fold = staticmethod(M.multiply)


class Average(_Merge):
    """Elementwise mean of the inputs."""

    def _merge(self, xs: List[Tensor]) -> Tensor:
        return M.divide(super()._merge(xs), float(len(xs)))


class Maximum(_Merge):
    """Elementwise maximum of the inputs."""

    _fold = staticmethod(M.maximum)


class Minimum(_Merge):
    """Elementwise minimum of the inputs."""

    _fold = staticmethod(M.minimum)


class Concatenate(_Merge):
    """The inputs joined along ``axis``."""

    def __init__(self, axis: int = -1, **kwargs: Any):
        super().__init__(**kwargs)
        self.axis = int(axis)

    def _merge(self, xs: List[Tensor]) -> Tensor:
        return K.concatenate(xs, axis=self.axis)


def _merge_fn(cls: type, doc: str) -> Callable[..., Tensor]:
    def fn(inputs: Sequence[Any], **kwargs: Any) -> Tensor:
        return cls(**kwargs)(list(inputs))
    fn.__doc__ = doc
    return fn


add = _merge_fn(Add, "Functional form of ``Add``: the sum of ``inputs``.")
subtract = _merge_fn(Subtract, "Functional form of ``Subtract``.")
multiply = _merge_fn(Multiply, "Functional form of ``Multiply``.")
average = _merge_fn(Average, "Functional form of ``Average``.")
maximum = _merge_fn(Maximum, "Functional form of ``Maximum``.")
minimum = _merge_fn(Minimum, "Functional form of ``Minimum``.")


def concatenate(inputs: Sequence[Any], axis: int = -1, **kwargs: Any) -> Tensor:
    """Functional form of ``Concatenate``: ``inputs`` joined along ``axis``."""
    return Concatenate(axis=axis, **kwargs)(list(inputs))


__all__ = ["Dense", "Activation", "Dropout", "Flatten", "Reshape", "Lambda", "Embedding",
           "RepeatVector", "Permute", "TimeDistributed",
           "BatchNormalization", "LeakyReLU", "ReLU", "Softmax", "Add", "Subtract",
           "Multiply", "Average", "Maximum", "Minimum", "Concatenate", "add", "subtract",
           "multiply", "average", "maximum", "minimum", "concatenate"]
