"""``tf.contrib.layers``: layers, regularizers, initializers and summaries of TF 1.x, and
``stack``/``repeat``, which apply one layer several times in nested variable scopes.

Each layer with variables opens ``variable_scope(scope, default_name)``:
``fully_connected/weights``, ``Conv/weights``, ``BatchNorm/moving_mean``... as
TF 1.x names them. Their variables are model variables (``MODEL_VARIABLES``)
and may be put in more collections through ``variables_collections`` (a list,
or a dict from ``weights``/``biases``/``beta``... to a list). Every layer is
decorated with ``add_arg_scope``, so ``arg_scope`` can set its defaults. Only
the channels-last layout (``NHWC``) is computed, except ``batch_norm`` which
also normalizes ``NCHW`` inputs.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, Dict, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.nn_layers import functional as core_layers
from tensorfleet.contrib.framework import add_arg_scope, model_variable
from tensorfleet.contrib.layer_utils import (
    Activation, IntOrPair, check_padding, collect_outputs, collections_for, finish, int_pair,
    last_dim, nhwc_only)
from tensorfleet.contrib.layer_helpers import (  # noqa: F401
    apply_regularization, l1_l2_regularizer, l1_regularizer, l2_regularizer, sum_regularizer,
    summarize_activation, summarize_activations, summarize_biases, summarize_collection,
    summarize_tensor, summarize_tensors, summarize_variables, summarize_weights,
    variance_scaling_initializer, xavier_initializer, xavier_initializer_conv2d)
from tensorfleet.contrib.optimize_loss import (  # noqa: F401
    OPTIMIZER_CLS_NAMES, OPTIMIZER_SUMMARIES, optimize_loss)
from tensorfleet.contrib.layers_norm import group_norm, instance_norm  # noqa: F401
from tensorfleet.framework.graph import GraphKeys, Tensor, add_to_collections, \
    control_dependencies, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import control_flow_ops as CF
from tensorfleet.ops import init_ops
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops import state_ops as S
from tensorfleet.ops.embedding_ops import embedding_lookup
from tensorfleet.ops.embedding_ops import safe_embedding_lookup_sparse  # noqa: F401
from tensorfleet.ops.nn_conv_variant_ops import conv2d_transpose as _nn_conv2d_transpose
from tensorfleet.ops.nn_conv_variant_ops import depthwise_conv2d as _nn_depthwise
from tensorfleet.ops.nn_conv_variant_ops import separable_conv2d as _nn_separable
from tensorfleet.ops.sparse_ops import unique as _unique_op
from tensorfleet.ops.variable_scope import variable_scope

# -- layers with variables -------------------------------------------------------------------

@add_arg_scope
def fully_connected(inputs: Any, num_outputs: int, activation_fn: Activation = N.relu,
                    normalizer_fn: Any = None, normalizer_params: Optional[Dict[str, Any]] = None,
                    weights_initializer: Any = xavier_initializer(),
                    weights_regularizer: Any = None,
                    biases_initializer: Any = init_ops.zeros_initializer(),
                    biases_regularizer: Any = None, reuse: Any = None,
                    variables_collections: Any = None,
                    outputs_collections: Optional[Sequence[str]] = None, trainable: bool = True,
                    scope: Any = None) -> Tensor:
    """``activation_fn(inputs @ weights + biases)`` with ``weights`` [in, num_outputs].

    Inputs of rank > 2 are multiplied over their last axis. With ``normalizer_fn``
    no biases are made and the normalizer runs before the activation.

    Raises:
      ValueError: for a non-integer ``num_outputs``, rank < 2 or unknown last dimension.
    """
    if not isinstance(num_outputs, numbers.Integral) or isinstance(num_outputs, bool):
        raise ValueError(f"num_outputs type should be one of (int, long), got "
                         f"{type(num_outputs).__name__}.")
    x = convert_to_tensor(inputs)
    if x.shape.ndims is not None and x.shape.ndims < 2:
        raise ValueError(f"fully_connected: inputs must have rank >= 2, got shape {x.shape}")
    n_in = last_dim(x, "fully_connected")
    with variable_scope(scope, "fully_connected", [x], reuse=reuse) as sc:
        weights = model_variable("weights", [n_in, int(num_outputs)], dtype=x.dtype,
                                 initializer=weights_initializer,
                                 regularizer=weights_regularizer, trainable=trainable,
                                 collections=collections_for(variables_collections, "weights"))
        if x.shape.ndims == 2:
            y = M.matmul(x, weights)
        else:
            y = M.tensordot(x, weights, [[x.shape.ndims - 1], [0]])
        y = finish(y, biases_initializer, biases_regularizer, normalizer_fn,
                    normalizer_params, activation_fn, int(num_outputs), x.dtype,
                    variables_collections, trainable)
        return collect_outputs(outputs_collections, sc.name, y)


@add_arg_scope
def conv2d(inputs: Any, num_outputs: int, kernel_size: IntOrPair, stride: IntOrPair = 1,
           padding: str = "SAME", data_format: Optional[str] = None, rate: IntOrPair = 1,
           activation_fn: Activation = N.relu, normalizer_fn: Any = None,
           normalizer_params: Optional[Dict[str, Any]] = None,
           weights_initializer: Any = xavier_initializer(), weights_regularizer: Any = None,
           biases_initializer: Any = init_ops.zeros_initializer(),
           biases_regularizer: Any = None, reuse: Any = None, variables_collections: Any = None,
           outputs_collections: Optional[Sequence[str]] = None, trainable: bool = True,
           scope: Any = None) -> Tensor:
    """2-D convolution of an NHWC input with ``weights`` [kh, kw, in, num_outputs]
    (variable scope ``Conv``), ``rate`` > 1 giving an atrous convolution.

    Raises:
      ValueError: for NCHW data, a bad padding/size, or an input that is not rank 4.
    """
    nhwc_only(data_format, "conv2d")
    pad = check_padding(padding, "conv2d")
    kh, kw = int_pair(kernel_size, "kernel_size", "conv2d")
    sh, sw = int_pair(stride, "stride", "conv2d")
    rh, rw = int_pair(rate, "rate", "conv2d")
    x = convert_to_tensor(inputs)
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"conv2d: inputs must be rank 4 (NHWC), got shape {x.shape}")
    c_in = last_dim(x, "conv2d")
    with variable_scope(scope, "Conv", [x], reuse=reuse) as sc:
        weights = model_variable("weights", [kh, kw, c_in, int(num_outputs)], dtype=x.dtype,
                                 initializer=weights_initializer,
                                 regularizer=weights_regularizer, trainable=trainable,
                                 collections=collections_for(variables_collections, "weights"))
        y = N.conv2d(x, weights, strides=[1, sh, sw, 1], padding=pad,
                     dilations=[1, rh, rw, 1])
        y = finish(y, biases_initializer, biases_regularizer, normalizer_fn,
                    normalizer_params, activation_fn, int(num_outputs), x.dtype,
                    variables_collections, trainable)
        return collect_outputs(outputs_collections, sc.name, y)


convolution2d = conv2d


@add_arg_scope
def conv2d_transpose(inputs: Any, num_outputs: int, kernel_size: IntOrPair,
                     stride: IntOrPair = 1, padding: str = "SAME", data_format: str = "NHWC",
                     activation_fn: Activation = N.relu, normalizer_fn: Any = None,
                     normalizer_params: Optional[Dict[str, Any]] = None,
                     weights_initializer: Any = xavier_initializer(),
                     weights_regularizer: Any = None,
                     biases_initializer: Any = init_ops.zeros_initializer(),
                     biases_regularizer: Any = None, reuse: Any = None,
                     variables_collections: Any = None,
                     outputs_collections: Optional[Sequence[str]] = None,
                     trainable: bool = True, scope: Any = None) -> Tensor:
    """Transposed convolution (scope ``Conv2d_transpose``) with ``weights``
    [kh, kw, num_outputs, in]; the output is ``in * stride`` (SAME) or
    ``in * stride + max(k - stride, 0)`` (VALID) along each spatial axis.

    Raises:
      ValueError: for NCHW data, a bad padding/size, or an input that is not rank 4.
    """
    nhwc_only(data_format, "conv2d_transpose")
    pad = check_padding(padding, "conv2d_transpose")
    kh, kw = int_pair(kernel_size, "kernel_size", "conv2d_transpose")
    sh, sw = int_pair(stride, "stride", "conv2d_transpose")
    x = convert_to_tensor(inputs)
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"conv2d_transpose: inputs must be rank 4 (NHWC), got {x.shape}")
    c_in = last_dim(x, "conv2d_transpose")
    with variable_scope(scope, "Conv2d_transpose", [x], reuse=reuse) as sc:
        weights = model_variable("weights", [kh, kw, int(num_outputs), c_in], dtype=x.dtype,
                                 initializer=weights_initializer,
                                 regularizer=weights_regularizer, trainable=trainable,
                                 collections=collections_for(variables_collections, "weights"))
        static = x.shape.as_list()
        dyn = A.shape(x)
        dims: List[Any] = [dyn[0]]
        for i, k, s in ((1, kh, sh), (2, kw, sw)):
            d = static[i] if static[i] is not None else dyn[i]
            dims.append(d * s if pad == "SAME" else d * s + max(k - s, 0))
        dims.append(int(num_outputs))
        y = _nn_conv2d_transpose(x, weights, A.stack(dims), strides=[1, sh, sw, 1],
                                 padding=pad)
        y.set_shape([static[0]] + [d if isinstance(d, int) else None for d in dims[1:]])
        y = finish(y, biases_initializer, biases_regularizer, normalizer_fn,
                    normalizer_params, activation_fn, int(num_outputs), x.dtype,
                    variables_collections, trainable)
        return collect_outputs(outputs_collections, sc.name, y)


convolution2d_transpose = conv2d_transpose


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
            y = _nn_depthwise(x, depthwise, strides, pad, rate=rates)
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


def _bn_unbiased(rank: Optional[int], fused: Optional[bool]) -> bool:
    # TF 1.x's fused kernel (its default for rank 2 and 4 inputs) feeds the moving
    # variance with the Bessel-corrected batch variance; the other path uses the
    # plain batch variance.
    return rank in (2, 4) and fused is not False


@add_arg_scope
def batch_norm(inputs: Any, decay: float = 0.999, center: bool = True, scale: bool = False,
               epsilon: float = 0.001, activation_fn: Activation = None,
               param_initializers: Optional[Dict[str, Any]] = None,
               param_regularizers: Optional[Dict[str, Any]] = None,
               updates_collections: Optional[str] = GraphKeys.UPDATE_OPS,
               is_training: Any = True, reuse: Any = None, variables_collections: Any = None,
               outputs_collections: Optional[Sequence[str]] = None, trainable: bool = True,
               batch_weights: Any = None, fused: Optional[bool] = None,
               data_format: str = "NHWC", zero_debias_moving_mean: bool = False,
               scope: Any = None, renorm: bool = False, renorm_clipping: Any = None,
               renorm_decay: float = 0.99, adjustment: Any = None) -> Tensor:
    """Batch normalization (variable scope ``BatchNorm``: ``beta``, ``gamma`` when
    ``scale``, ``moving_mean``, ``moving_variance``).

    In training (``is_training`` True, or a bool tensor that is true at run time)
    the batch statistics over every axis but the channel axis normalize the
    input and the moving averages move by ``(1 - decay)`` towards them; the
    update ops go to ``updates_collections``, or run with the layer when it is
    None. Otherwise the moving averages normalize. For rank 2 and 4 inputs
    (unless ``fused=False``) the moving variance is fed the Bessel-corrected
    batch variance, as TF 1.x's fused kernel does.

    Raises:
      ValueError: for ``batch_weights``, ``renorm``, ``adjustment`` or
        ``zero_debias_moving_mean`` (not supported), an unknown data_format, or an
        unknown channel dimension.
    """
    for flag, what in ((batch_weights is not None, "batch_weights"), (renorm, "renorm"),
                       (adjustment is not None, "adjustment"),
                       (zero_debias_moving_mean, "zero_debias_moving_mean")):
        if flag:
            raise ValueError(f"batch_norm: {what} is not supported")
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"batch_norm: data_format must be 'NHWC' or 'NCHW', got "
                         f"{data_format!r}")
    x = convert_to_tensor(inputs)
    rank = x.shape.ndims
    if rank is None:
        raise ValueError(f"batch_norm: inputs {x.name} have undefined rank")
    axis = 1 if data_format == "NCHW" and rank > 2 else rank - 1
    depth = x.shape[axis]
    if depth is None:
        raise ValueError(f"batch_norm: the channel dimension of {x.name} must be known, got "
                         f"shape {x.shape}")
    reduce_axes = [i for i in range(rank) if i != axis]
    inits = param_initializers or {}
    regs = param_regularizers or {}
    with variable_scope(scope, "BatchNorm", [x], reuse=reuse) as sc:
        shape, dt = [int(depth)], x.dtype

        def param(name: str, default_init: Any, train: bool) -> Any:
            return model_variable(name, shape, dtype=dt,
                                  initializer=inits.get(name, default_init),
                                  regularizer=regs.get(name), trainable=train,
                                  collections=collections_for(variables_collections, name))

        beta = param("beta", init_ops.zeros_initializer(), trainable) if center else None
        gamma = param("gamma", init_ops.ones_initializer(), trainable) if scale else None
        moving_mean = param("moving_mean", init_ops.zeros_initializer(), False)
        moving_var = param("moving_variance", init_ops.ones_initializer(), False)
        y = _normalize(x, axis, reduce_axes, is_training, decay, epsilon, beta, gamma,
                       moving_mean, moving_var, updates_collections,
                       _bn_unbiased(rank, fused))
        if activation_fn is not None:
            y = activation_fn(y)
        return collect_outputs(outputs_collections, sc.name, y)


def _normalize(x: Tensor, axis: int, reduce_axes: List[int], is_training: Any, decay: float,
               epsilon: float, beta: Any, gamma: Any, moving_mean: Any, moving_var: Any,
               updates_collections: Optional[str], unbiased: bool) -> Tensor:
    rank = x.shape.ndims
    bshape = [1] * rank
    bshape[axis] = -1

    def bcast(v: Any) -> Any:
        return v if axis == rank - 1 else A.reshape(v, bshape)

    training = is_training
    if not isinstance(training, bool):
        pred = convert_to_tensor(training)
        if pred.dtype is not _dtypes.bool:
            raise TypeError(f"batch_norm: is_training must be a Python bool or a bool "
                            f"tensor, got {pred.dtype.name}")
    if training is False:
        mean, var = moving_mean.value(), moving_var.value()
    else:
        batch_mean, batch_var = N.moments(x, reduce_axes)
        feed_var = batch_var
        if unbiased:
            n = A.cast(M.reduce_prod(A.gather(A.shape(x), reduce_axes)), x.dtype)
            feed_var = batch_var * n / M.maximum(n - 1.0, 1.0)
        if training is True:
            mean, var = batch_mean, batch_var
            new_mean, new_var = batch_mean, feed_var
        else:
            mean = CF.cond(pred, lambda: batch_mean, lambda: moving_mean.value())
            var = CF.cond(pred, lambda: batch_var, lambda: moving_var.value())
            # When not training the averages move towards themselves: a no-op update.
            new_mean = CF.cond(pred, lambda: batch_mean, lambda: moving_mean.value())
            new_var = CF.cond(pred, lambda: feed_var, lambda: moving_var.value())
        with name_scope("AssignMovingAvg"):
            upd_m = S.assign_sub(moving_mean, (moving_mean - new_mean) * (1.0 - decay))
        with name_scope("AssignMovingAvg_1"):
            upd_v = S.assign_sub(moving_var, (moving_var - new_var) * (1.0 - decay))
        if updates_collections is None:
            with control_dependencies([upd_m, upd_v]):
                mean, var = A.identity(mean), A.identity(var)
        else:
            add_to_collections(updates_collections, upd_m)
            add_to_collections(updates_collections, upd_v)
    inv = M.rsqrt(var + epsilon)
    if gamma is not None:
        inv = inv * gamma
    shift = -mean * inv
    if beta is not None:
        shift = shift + beta
    return x * bcast(inv) + bcast(shift)


@add_arg_scope
def layer_norm(inputs: Any, center: bool = True, scale: bool = True,
               activation_fn: Activation = None, reuse: Any = None,
               variables_collections: Any = None,
               outputs_collections: Optional[Sequence[str]] = None, trainable: bool = True,
               begin_norm_axis: int = 1, begin_params_axis: int = -1,
               scope: Any = None) -> Tensor:
    """Normalizes each example over axes ``begin_norm_axis..`` (variance epsilon 1e-12),
    then scales by ``gamma`` and shifts by ``beta`` of shape ``inputs.shape[begin_params_axis:]``
    (variable scope ``LayerNorm``).

    Raises:
      ValueError: for an unknown rank, axes out of range, or unknown parameter dims.
    """
    x = convert_to_tensor(inputs)
    rank = x.shape.ndims
    if rank is None:
        raise ValueError(f"layer_norm: inputs {x.name} have undefined rank")
    bna = begin_norm_axis + rank if begin_norm_axis < 0 else begin_norm_axis
    bpa = begin_params_axis + rank if begin_params_axis < 0 else begin_params_axis
    if not 0 <= bna < rank or not 0 <= bpa < rank:
        raise ValueError(f"layer_norm: begin_norm_axis ({begin_norm_axis}) and "
                         f"begin_params_axis ({begin_params_axis}) must be < rank ({rank})")
    params_shape = x.shape.as_list()[bpa:]
    if None in params_shape:
        raise ValueError(f"layer_norm: inputs {x.name} has undefined dimensions in "
                         f"{params_shape}")
    with variable_scope(scope, "LayerNorm", [x], reuse=reuse) as sc:
        beta = model_variable("beta", params_shape, dtype=x.dtype,
                              initializer=init_ops.zeros_initializer(), trainable=trainable,
                              collections=collections_for(variables_collections, "beta")) \
            if center else None
        gamma = model_variable("gamma", params_shape, dtype=x.dtype,
                               initializer=init_ops.ones_initializer(), trainable=trainable,
                               collections=collections_for(variables_collections, "gamma")) \
            if scale else None
        mean, var = N.moments(x, list(range(bna, rank)), keep_dims=True)
        y = (x - mean) * M.rsqrt(var + 1e-12)
        if gamma is not None:
            y = y * gamma
        if beta is not None:
            y = y + beta
        if activation_fn is not None:
            y = activation_fn(y)
        return collect_outputs(outputs_collections, sc.name, y)


@add_arg_scope
def embed_sequence(ids: Any, vocab_size: Optional[int] = None, embed_dim: Optional[int] = None,
                   unique: bool = False, initializer: Any = None, regularizer: Any = None,
                   trainable: bool = True, scope: Any = None, reuse: Any = None) -> Tensor:
    """Looks up ``ids`` [batch, length] in an ``embeddings`` [vocab_size, embed_dim] model
    variable (scope ``EmbedSequence``), giving [batch, length, embed_dim].

    Raises:
      ValueError: when vocab_size or embed_dim is missing.
    """
    if not (reuse or (vocab_size and embed_dim)):
        raise ValueError("Must specify vocab size and embedding dimension when not reusing. "
                         f"Got vocab_size={vocab_size} and embed_dim={embed_dim}")
    ids_t = convert_to_tensor(ids)
    with variable_scope(scope, "EmbedSequence", [ids_t], reuse=reuse):
        shape = [vocab_size, embed_dim] if vocab_size and embed_dim else None
        embeddings = model_variable("embeddings", shape=shape, initializer=initializer,
                                    regularizer=regularizer, trainable=trainable)
        if unique:
            # Each distinct id is read once; the rows are then spread back by index.
            flat = A.reshape(ids_t, [-1])
            uniq, idx = _unique_op(flat)
            rows = embedding_lookup(embeddings, uniq)
            out = A.gather(rows, idx)
            return A.reshape(out, A.concat([A.shape(ids_t), A.shape(rows)[1:]], 0))
        return embedding_lookup(embeddings, ids_t)


# -- layers without variables ----------------------------------------------------------------

def _pool(kind: str, default: str, inputs: Any, kernel_size: IntOrPair, stride: IntOrPair,
          padding: str, data_format: str, outputs_collections: Any, scope: Any) -> Tensor:
    nhwc_only(data_format, kind)
    pad = check_padding(padding, kind)
    kh, kw = int_pair(kernel_size, "kernel_size", kind)
    sh, sw = int_pair(stride, "stride", kind)
    x = convert_to_tensor(inputs)
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"{kind}: inputs must be rank 4 (NHWC), got shape {x.shape}")
    fn = N.max_pool if kind == "max_pool2d" else N.avg_pool
    with name_scope(scope, default, [x]) as sc:
        y = fn(x, ksize=[1, kh, kw, 1], strides=[1, sh, sw, 1], padding=pad)
        return collect_outputs(outputs_collections, sc.rstrip("/"), y)


@add_arg_scope
def max_pool2d(inputs: Any, kernel_size: IntOrPair, stride: IntOrPair = 2,
               padding: str = "VALID", data_format: str = "NHWC",
               outputs_collections: Optional[Sequence[str]] = None,
               scope: Optional[str] = None) -> Tensor:
    """Maximum over ``kernel_size`` windows of an NHWC input (name scope ``MaxPool2D``).

    Raises:
      ValueError: for NCHW data, a bad padding or size, or an input that is not rank 4.
    """
    return _pool("max_pool2d", "MaxPool2D", inputs, kernel_size, stride, padding,
                 data_format, outputs_collections, scope)


@add_arg_scope
def avg_pool2d(inputs: Any, kernel_size: IntOrPair, stride: IntOrPair = 2,
               padding: str = "VALID", data_format: str = "NHWC",
               outputs_collections: Optional[Sequence[str]] = None,
               scope: Optional[str] = None) -> Tensor:
    """Mean over ``kernel_size`` windows of an NHWC input (name scope ``AvgPool2D``).

    Raises:
      ValueError: for NCHW data, a bad padding or size, or an input that is not rank 4.
    """
    return _pool("avg_pool2d", "AvgPool2D", inputs, kernel_size, stride, padding,
                 data_format, outputs_collections, scope)


@add_arg_scope
def flatten(inputs: Any, outputs_collections: Optional[Sequence[str]] = None,
            scope: Optional[str] = None) -> Tensor:
    """Reshapes [batch, d1, d2, ...] to [batch, d1 * d2 * ...] (name scope ``Flatten``).

    Raises:
      ValueError: for inputs of unknown rank or rank < 2.
    """
    x = convert_to_tensor(inputs)
    if x.shape.ndims is None or x.shape.ndims < 2:
        raise ValueError("Inputs must have a least 2 dimensions.")
    with name_scope(scope, "Flatten", [x]) as sc:
        return collect_outputs(outputs_collections, sc.rstrip("/"), core_layers.flatten(x))


@add_arg_scope
def dropout(inputs: Any, keep_prob: Any = 0.5, noise_shape: Any = None, is_training: Any = True,
            outputs_collections: Optional[Sequence[str]] = None, scope: Optional[str] = None,
            seed: Optional[int] = None) -> Tensor:
    """Keeps each element with probability ``keep_prob`` (scaled by ``1 / keep_prob``)
    when ``is_training`` (a bool or bool tensor); the identity otherwise.

    Raises:
      ValueError: for a Python ``keep_prob`` outside (0, 1].
    """
    if isinstance(keep_prob, numbers.Real) and not 0 < keep_prob <= 1:
        raise ValueError(f"dropout: keep_prob must be in (0, 1], got {keep_prob}")
    x = convert_to_tensor(inputs)
    rate = 1.0 - keep_prob
    with name_scope(scope, "Dropout", [x]) as sc:
        y = core_layers.dropout(x, rate=rate, noise_shape=noise_shape, seed=seed,
                                training=is_training)
        return collect_outputs(outputs_collections, sc.rstrip("/"), y)


@add_arg_scope
def one_hot_encoding(labels: Any, num_classes: int, on_value: float = 1.0,
                     off_value: float = 0.0,
                     outputs_collections: Optional[Sequence[str]] = None,
                     scope: Optional[str] = None) -> Tensor:
    """One-hot float vectors of depth ``num_classes`` for integer ``labels``
    (name scope ``OneHotEncoding``)."""
    with name_scope(scope, "OneHotEncoding", [labels]) as sc:
        lab = convert_to_tensor(labels)
        if lab.dtype is _dtypes.int32:
            lab = A.cast(lab, _dtypes.int64)
        y = A.one_hot(lab, num_classes, on_value=on_value, off_value=off_value)
        return collect_outputs(outputs_collections, sc.rstrip("/"), y)


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


# -- composing layers ------------------------------------------------------------------------

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


__all__ = ["fully_connected", "conv2d", "convolution2d", "conv2d_transpose", "separable_conv2d",
           "bias_add", "softmax", "unit_norm",
           "convolution2d_transpose", "batch_norm", "layer_norm", "embed_sequence",
           "max_pool2d", "avg_pool2d", "flatten", "dropout", "one_hot_encoding", "stack",
           "repeat", "safe_embedding_lookup_sparse", "optimize_loss", "OPTIMIZER_CLS_NAMES",
           "OPTIMIZER_SUMMARIES", "apply_regularization", "l1_regularizer", "l2_regularizer",
           "l1_l2_regularizer", "sum_regularizer", "variance_scaling_initializer",
           "xavier_initializer", "xavier_initializer_conv2d", "summarize_activation",
           "summarize_activations", "summarize_biases", "summarize_collection",
           "summarize_tensor", "summarize_tensors", "summarize_variables", "summarize_weights"]
__all__ += ["instance_norm", "group_norm"]
