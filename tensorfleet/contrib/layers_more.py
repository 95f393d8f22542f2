"""More ``tf.contrib.layers``: ``separable_conv2d``, ``softmax``, ``bias_add``,
``unit_norm``, and ``stack`` / ``repeat`` that compose a layer several times."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence

from tensorfleet.contrib.framework import add_arg_scope, model_variable
from tensorfleet.contrib.layer_helpers import xavier_initializer
from tensorfleet.contrib.layer_utils import (
    Activation, IntOrPair, check_padding, collect_outputs, collections_for, finish, int_pair,
    last_dim, nhwc_only)
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import init_ops
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops.nn_conv_variant_ops import depthwise_conv2d, separable_conv2d as _nn_separable
from tensorfleet.ops.variable_scope import variable_scope


@add_arg_scope
def separable_conv2d(inputs: Any, num_outputs: Optional[int], kernel_size: IntOrPair,
                     depth_multiplier: int = 1, stride: IntOrPair = 1, padding: str = "SAME",
                     data_format: str = "NHWC", rate: IntOrPair = 1,
                     activation_fn: Activation = N.relu, normalizer_fn: Any = None,
                     normalizer_params: Optional[Dict[str, Any]] = None,
                     weights_initializer: Any = xavier_initializer(),
                     pointwise_initializer: Any = None, weights_regularizer: Any = None,
                     biases_initializer: Any = init_ops.zeros_initializer(),
                     biases_regularizer: Any = None, reuse: Any = None,
                     variables_collections: Any = None,
                     outputs_collections: Optional[Sequence[str]] = None,
                     trainable: bool = True, scope: Any = None) -> Tensor:
    """Depthwise convolution (``depthwise_weights`` [kh, kw, in, depth_multiplier]) then,
    unless ``num_outputs`` is None, a 1x1 convolution (``pointwise_weights``
    [1, 1, in * depth_multiplier, num_outputs]); variable scope ``SeparableConv2d``.

    Raises:
      ValueError: for NCHW data, a bad padding/size, a rate above 1 with a stride
        above 1, or an input that is not rank 4.
    """
    nhwc_only(data_format, "separable_conv2d")
    pad = check_padding(padding, "separable_conv2d")
    kh, kw = int_pair(kernel_size, "kernel_size", "separable_conv2d")
    sh, sw = int_pair(stride, "stride", "separable_conv2d")
    rh, rw = int_pair(rate, "rate", "separable_conv2d")
    x = convert_to_tensor(inputs)
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"separable_conv2d: inputs must be rank 4 (NHWC), got {x.shape}")
    c_in = last_dim(x, "separable_conv2d")
    dm = int(depth_multiplier)
    with variable_scope(scope, "SeparableConv2d", [x], reuse=reuse) as sc:
        colls = collections_for(variables_collections, "weights")
        depthwise = model_variable("depthwise_weights", [kh, kw, c_in, dm], dtype=x.dtype,
                                   initializer=weights_initializer,
                                   regularizer=weights_regularizer, trainable=trainable,
                                   collections=colls)
        strides, rates = [1, sh, sw, 1], [rh, rw]
        if num_outputs is not None:
            pointwise = model_variable("pointwise_weights", [1, 1, c_in * dm, int(num_outputs)],
                                       dtype=x.dtype,
                                       initializer=pointwise_initializer or weights_initializer,
                                       regularizer=weights_regularizer, trainable=trainable,
                                       collections=colls)
            y = _nn_separable(x, depthwise, pointwise, strides, pad, rate=rates)
            n_out = int(num_outputs)
        else:
            y = depthwise_conv2d(x, depthwise, strides, pad, rate=rates)
            n_out = c_in * dm
        y = finish(y, biases_initializer, biases_regularizer, normalizer_fn, normalizer_params,
                   activation_fn, n_out, x.dtype, variables_collections, trainable)
        return collect_outputs(outputs_collections, sc.name, y)


@add_arg_scope
def bias_add(inputs: Any, activation_fn: Activation = None,
             initializer: Any = init_ops.zeros_initializer(), regularizer: Any = None,
             reuse: Any = None, variables_collections: Any = None,
             outputs_collections: Optional[Sequence[str]] = None, trainable: bool = True,
             data_format: str = "NHWC", scope: Any = None) -> Tensor:
    """Adds a ``biases`` variable over the last dimension (variable scope ``BiasAdd``).

    Raises:
      ValueError: for NCHW data or an unknown last dimension.
    """
    nhwc_only(data_format, "bias_add")
    x = convert_to_tensor(inputs)
    n = last_dim(x, "bias_add")
    with variable_scope(scope, "BiasAdd", [x], reuse=reuse) as sc:
        biases = model_variable("biases", [n], dtype=x.dtype, initializer=initializer,
                                regularizer=regularizer, trainable=trainable,
                                collections=collections_for(variables_collections, "biases"))
        y = N.bias_add(x, biases)
        if activation_fn is not None:
            y = activation_fn(y)
        return collect_outputs(outputs_collections, sc.name, y)


@add_arg_scope
def softmax(logits: Any, scope: Optional[str] = None) -> Tensor:
    """Softmax over the last dimension of ``logits`` of any rank >= 2 (name scope
    ``softmax``).

    Raises:
      ValueError: for an unknown last dimension.
    """
    x = convert_to_tensor(logits)
    n = last_dim(x, "softmax")
    with name_scope(scope, "softmax", [x]):
        flat = A.reshape(x, [-1, n])
        return A.reshape(N.softmax(flat), A.shape(x))


@add_arg_scope
def unit_norm(inputs: Any, dim: int, epsilon: float = 1e-7,
              scope: Optional[str] = None) -> Tensor:
    """``inputs / sqrt(sum(inputs ** 2, dim) + epsilon)``, name scope ``UnitNorm``.

    Raises:
      ValueError: for an unknown rank or a ``dim`` out of range.
    """
    x = convert_to_tensor(inputs)
    rank = x.shape.ndims
    if rank is None:
        raise ValueError("Inputs must have a known rank (unit_norm).")
    if not 0 <= dim < rank:
        raise ValueError(f"dim must be positive but smaller than the input rank ({rank}), "
                         f"got {dim}")
    with name_scope(scope, "UnitNorm", [x]):
        lengths = M.sqrt(M.add(M.reduce_sum(M.square(x), dim, keepdims=True), epsilon))
        return M.truediv(x, lengths)


def _layer_name(layer: Any) -> str:
    if hasattr(layer, "__name__"):
        return layer.__name__
    if hasattr(layer, "func"):
        return layer.func.__name__
    return "stack"


def stack(inputs: Any, layer: Callable[..., Tensor], stack_args: Sequence[Any],
          **kwargs: Any) -> Tensor:
    """Applies ``layer`` once per entry of ``stack_args`` (its extra positional args),
    each call under scope ``<name>_<i>`` inside scope ``Stack`` (or ``scope``).

    Raises:
      ValueError: when stack_args is not a list or tuple.
    """
    scope = kwargs.pop("scope", None)
    if not isinstance(stack_args, (list, tuple)):
        raise ValueError("stack_args need to be a list or tuple")
    with variable_scope(scope, "Stack", [inputs]):
        outputs = convert_to_tensor(inputs)
        prefix = scope or _layer_name(layer)
        for i, args in enumerate(stack_args):
            kwargs["scope"] = f"{prefix}_{i + 1}"
            args = args if isinstance(args, (list, tuple)) else [args]
            outputs = layer(outputs, *args, **kwargs)
        return outputs


def repeat(inputs: Any, repetitions: int, layer: Callable[..., Tensor], *args: Any,
           **kwargs: Any) -> Tensor:
    """Applies ``layer(outputs, *args, **kwargs)`` ``repetitions`` times, each call under
    scope ``<name>_<i>`` inside scope ``Repeat`` (or ``scope``)."""
    scope = kwargs.pop("scope", None)
    with variable_scope(scope, "Repeat", [inputs]):
        outputs = convert_to_tensor(inputs)
        prefix = scope or _layer_name(layer)
        for i in range(int(repetitions)):
            kwargs["scope"] = f"{prefix}_{i + 1}"
            outputs = layer(outputs, *args, **kwargs)
        return outputs


__all__ = ["separable_conv2d", "bias_add", "softmax", "unit_norm", "stack", "repeat"]
