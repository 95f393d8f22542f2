"""``tf.contrib.layers.instance_norm`` (each example normalised per channel over its
spatial dimensions: style transfer, GAN generators) and ``group_norm`` (normalised per
group of channels, Wu and He), both then scaled and shifted."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

from tensorfleet.contrib.framework import add_arg_scope, model_variable
from tensorfleet.contrib.layer_utils import Activation, collect_outputs, collections_for
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import init_ops
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops.variable_scope import variable_scope


@add_arg_scope
def instance_norm(inputs: Any, center: bool = True, scale: bool = True, epsilon: float = 1e-6,
                  activation_fn: Activation = None,
                  param_initializers: Optional[Dict[str, Any]] = None, reuse: Any = None,
                  variables_collections: Any = None,
                  outputs_collections: Optional[Sequence[str]] = None, trainable: bool = True,
                  data_format: str = "NHWC", scope: Any = None) -> Tensor:
    """``(x - mean) / sqrt(var + epsilon) * gamma + beta``, the moments taken per
    example and channel over every other axis, ``beta`` and ``gamma`` one per channel
    (variable scope ``InstanceNorm``).

    Raises:
      ValueError: for an unknown data format, a rank unknown or below 3, an unknown
        channel dimension or an unknown ``param_initializers`` key.
    """
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"instance_norm: data_format must be 'NHWC' or 'NCHW', got "
                         f"{data_format!r}")
    x = convert_to_tensor(inputs)
    rank = x.shape.ndims
    if rank is None or rank < 3:
        raise ValueError(f"instance_norm: inputs {x.name} must have a known rank of at least "
                         f"3, got shape {x.shape}")
    inits = dict(param_initializers or {})
    unknown = sorted(set(inits) - {"beta", "gamma"})
    if unknown:
        raise ValueError(f"instance_norm: param_initializers keys must be 'beta' or 'gamma', "
                         f"got {unknown}")
    channel_axis = 1 if data_format == "NCHW" else rank - 1
    channels = x.shape.as_list()[channel_axis]
    if channels is None:
        raise ValueError(f"instance_norm: the channel dimension of {x.name} must be known, "
                         f"got shape {x.shape}")
    axes = [a for a in range(1, rank) if a != channel_axis]
    # Per-channel parameters broadcast against NCHW inputs as [C, 1, ..., 1].
    params_shape = [channels] + [1] * (rank - 2) if data_format == "NCHW" else [channels]
    with variable_scope(scope, "InstanceNorm", [x], reuse=reuse) as sc:
        beta = model_variable("beta", params_shape, dtype=x.dtype,
                              initializer=inits.get("beta", init_ops.zeros_initializer()),
                              trainable=trainable,
                              collections=collections_for(variables_collections, "beta")) \
            if center else None
        gamma = model_variable("gamma", params_shape, dtype=x.dtype,
                               initializer=inits.get("gamma", init_ops.ones_initializer()),
                               trainable=trainable,
                               collections=collections_for(variables_collections, "gamma")) \
            if scale else None
        mean, var = N.moments(x, axes, keep_dims=True)
        y = (x - mean) * M.rsqrt(var + epsilon)
        if gamma is not None:
            y = y * gamma
        if beta is not None:
            y = y + beta
        if activation_fn is not None:
            y = activation_fn(y)
        return collect_outputs(outputs_collections, sc.name, y)


@add_arg_scope
def group_norm(inputs: Any, groups: int = 32, channels_axis: int = -1,
               reduction_axes: Sequence[int] = (-3, -2), center: bool = True,
               scale: bool = True, epsilon: float = 1e-6, activation_fn: Activation = None,
               param_initializers: Optional[Dict[str, Any]] = None, reuse: Any = None,
               variables_collections: Any = None,
               outputs_collections: Optional[Sequence[str]] = None, trainable: bool = True,
               scope: Any = None, mean_close_to_zero: bool = False) -> Tensor:
    """Group normalisation: the channels split into ``groups`` groups; each example is
    normalised per group over ``reduction_axes`` and the group's channels, then
    ``* gamma + beta`` per channel (variable scope ``GroupNorm``).

    Raises:
      ValueError: unknown rank or channel count, channels not divisible by ``groups``
        (or fewer than ``groups``), reduction axes that include the channel axis or the
        batch axis, an unknown ``param_initializers`` key, or ``mean_close_to_zero``
        (a one-pass variance that tensorfleet does not provide).
    """
    if mean_close_to_zero:
        raise ValueError("group_norm: mean_close_to_zero=True is not supported; the "
                         "two-pass moments are always used")
    x = convert_to_tensor(inputs)
    rank = x.shape.ndims
    if rank is None or rank < 2:
        raise ValueError(f"group_norm: inputs {x.name} must have a known rank of at least 2, "
                         f"got shape {x.shape}")
    ch_axis = channels_axis % rank
    red = sorted({int(a) % rank for a in reduction_axes})
    if ch_axis in red or 0 in red or ch_axis == 0:
        raise ValueError(f"group_norm: reduction_axes {list(reduction_axes)} and channels_axis "
                         f"{channels_axis} must be distinct and leave the batch axis alone")
    channels = x.shape.as_list()[ch_axis]
    if channels is None:
        raise ValueError(f"group_norm: the channel dimension of {x.name} must be known, got "
                         f"shape {x.shape}")
    if channels < groups or channels % groups:
        raise ValueError(f"group_norm: {channels} channels cannot be split into {groups} "
                         f"groups of equal size")
    inits = dict(param_initializers or {})
    unknown = sorted(set(inits) - {"beta", "gamma"})
    if unknown:
        raise ValueError(f"group_norm: param_initializers keys must be 'beta' or 'gamma', "
                         f"got {unknown}")
    dyn = A.shape(x)
    # [..., C, ...] -> [..., groups, C / groups, ...]: the group axis stays, the rest of
    # the channels join the reduction.
    split_shape = A.concat([dyn[:ch_axis], A.constant([groups, channels // groups]),
                            dyn[ch_axis + 1:]], 0)
    moments_axes = [a + (1 if a > ch_axis else 0) for a in red] + [ch_axis + 1]
    params_shape = [groups, channels // groups] + [1] * (rank - 1 - ch_axis)
    with variable_scope(scope, "GroupNorm", [x], reuse=reuse) as sc:
        beta = model_variable("beta", [channels], dtype=x.dtype,
                              initializer=inits.get("beta", init_ops.zeros_initializer()),
                              trainable=trainable,
                              collections=collections_for(variables_collections, "beta")) \
            if center else None
        gamma = model_variable("gamma", [channels], dtype=x.dtype,
                               initializer=inits.get("gamma", init_ops.ones_initializer()),
                               trainable=trainable,
                               collections=collections_for(variables_collections, "gamma")) \
            if scale else None
        grouped = A.reshape(x, split_shape)
        mean, var = N.moments(grouped, moments_axes, keep_dims=True)
        y = (grouped - mean) * M.rsqrt(var + epsilon)
        if gamma is not None:
            y = y * A.reshape(gamma, params_shape)
        if beta is not None:
            y = y + A.reshape(beta, params_shape)
        y = A.reshape(y, dyn)
        y.set_shape(x.shape)
        if activation_fn is not None:
            y = activation_fn(y)
        return collect_outputs(outputs_collections, sc.name, y)


__all__ = ["instance_norm", "group_norm"]
