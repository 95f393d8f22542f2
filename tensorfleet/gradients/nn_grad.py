"""Gradients of the nn ops.

Activations, bias, convolution and pooling map onto fused backward ops
(``ReluGrad``, ``BiasAddGrad``, ``Conv2DBackpropInput`` ...); softmax and the
cross entropies are composed from math ops around the ``backprop`` output that
the forward kernel already computed.
"""

from __future__ import annotations

from typing import Any, List

from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops import nn_conv_ops as C
from tensorfleet.ops.array_ops import expand_dims, shape, zeros_like

no_gradient("InTopK")
# The backward ops of conv/pool/bias have no gradients of their own (no second
# derivatives): gradients() then fails loudly rather than returning zeros.


# -- activations ---------------------------------------------------------------------------

@register_gradient("Relu")
def _relu_grad(op: Any, grad: Any) -> Any:
    return N.activation_grad("ReluGrad", grad, op.outputs[0])


@register_gradient("Relu6")
def _relu6_grad(op: Any, grad: Any) -> Any:
    return N.activation_grad("Relu6Grad", grad, op.inputs[0])


@register_gradient("Elu")
def _elu_grad(op: Any, grad: Any) -> Any:
    return N.activation_grad("EluGrad", grad, op.outputs[0])


@register_gradient("Selu")
def _selu_grad(op: Any, grad: Any) -> Any:
    return N.activation_grad("SeluGrad", grad, op.outputs[0])


@register_gradient("Softplus")
def _softplus_grad(op: Any, grad: Any) -> Any:
    return N.activation_grad("SoftplusGrad", grad, op.inputs[0])


@register_gradient("LeakyRelu")
def _leaky_relu_grad(op: Any, grad: Any) -> Any:
    return N.activation_grad("LeakyReluGrad", grad, op.inputs[0], alpha=op.attrs["alpha"])


@register_gradient("ReluGrad")
def _relu_grad_grad(op: Any, grad: Any) -> List[Any]:
    # ReluGrad is linear in its incoming gradient, with the same mask.
    return [N.activation_grad("ReluGrad", grad, op.inputs[1]), zeros_like(op.inputs[1])]


@register_gradient("Softmax")
def _softmax_grad(op: Any, grad: Any) -> Any:
    y = op.outputs[0]
    ax = op.attrs["axis"]
    inner = M.reduce_sum(M.multiply(grad, y), ax, keepdims=True)
    return M.multiply(M.subtract(grad, inner), y)


@register_gradient("LogSoftmax")
def _log_softmax_grad(op: Any, grad: Any) -> Any:
    ax = op.attrs["axis"]
    total = M.reduce_sum(grad, ax, keepdims=True)
    return M.subtract(grad, M.multiply(total, M.exp(op.outputs[0])))


# -- bias, l2 ------------------------------------------------------------------------------

@register_gradient("BiasAdd")
def _bias_add_grad(op: Any, grad: Any) -> List[Any]:
    return [grad, N.bias_add_grad(grad, data_format=op.attrs["data_format"])]


@register_gradient("L2Loss")
def _l2_loss_grad(op: Any, grad: Any) -> Any:
    return M.multiply(op.inputs[0], grad)


# -- losses --------------------------------------------------------------------------------

def _expand_last(grad: Any, axis: int) -> Any:
    return expand_dims(grad, axis)


@register_gradient("SigmoidCrossEntropyWithLogits")
def _sigmoid_xent_grad(op: Any, grad: Any) -> List[Any]:
    z, x = op.inputs
    g_logits = M.multiply(grad, M.subtract(M.sigmoid(x), z))
    g_labels = M.multiply(grad, M.negative(x))
    return [g_labels, g_logits]


@register_gradient("SoftmaxCrossEntropyWithLogits")
def _softmax_xent_grad(op: Any, grad_loss: Any, grad_backprop: Any) -> List[Any]:
    ax = op.attrs["axis"]
    g = _expand_last(grad_loss, ax)
    g_logits = M.multiply(g, op.outputs[1])
    g_labels = None
    if op.attrs["labels_grad"]:
        g_labels = M.multiply(g, M.negative(N.log_softmax(op.inputs[0], axis=ax)))
    return [g_logits, g_labels]


@register_gradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_xent_grad(op: Any, grad_loss: Any, grad_backprop: Any) -> List[Any]:
    g = _expand_last(grad_loss, -1)
    return [M.multiply(g, op.outputs[1]), None]


@register_gradient("Dropout")
def _dropout_grad(op: Any, grad: Any, grad_mask: Any) -> List[Any]:
    return [M.multiply(grad, op.outputs[1]), None]


# -- convolution and pooling ---------------------------------------------------------------

def _shape_of(t: Any) -> Any:
    """Static shape as a constant list when known (no op needed), else ``tf.shape``."""
    if t.shape.is_fully_defined():
        return t.shape.as_list()
    return shape(t)


@register_gradient("Conv2D")
def _conv2d_grad(op: Any, grad: Any) -> List[Any]:
    x, w = op.inputs
    a = op.attrs
    common = dict(strides=a["strides"], padding=a["padding"], dilations=a["dilations"])
    return [C.conv2d_backprop_input(_shape_of(x), w, grad, **common),
            C.conv2d_backprop_filter(x, _shape_of(w), grad, **common)]


@register_gradient("MaxPool")
def _max_pool_grad(op: Any, grad: Any) -> Any:
    a = op.attrs
    return C.max_pool_grad(op.inputs[0], op.outputs[0], grad, a["ksize"], a["strides"],
                           a["padding"])


@register_gradient("AvgPool")
def _avg_pool_grad(op: Any, grad: Any) -> Any:
    a = op.attrs
    return C.avg_pool_grad(_shape_of(op.inputs[0]), grad, a["ksize"], a["strides"],
                           a["padding"])
