"""How many floating-point operations one op of a graph costs, from its static shapes.

The counts follow the conventions of TensorFlow's model analyzer, so that the totals of
a model agree with what TensorFlow reports for the same ops: a multiply-add counts two,
an element-wise op one per output element (two for ``SquaredDifference``, four for
``RsqrtGrad``), a reduction one per input element, a convolution two per
multiply-accumulate. An op whose shapes are not fully known when the graph is built, or
whose type has no rule here, counts nothing (None), as in TensorFlow.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

_Rule = Callable[[Any], Optional[int]]


def _elements(tensor: Any) -> Optional[int]:
    shape = tensor.shape
    if not shape.is_fully_defined():
        return None
    return int(shape.num_elements())


def _dims(tensor: Any) -> Optional[list]:
    shape = tensor.shape
    return shape.as_list() if shape.is_fully_defined() else None


def _unary(per_element: int) -> _Rule:
    def rule(op: Any) -> Optional[int]:
        n = _elements(op.inputs[0])
        return None if n is None else n * per_element
    return rule


def _per_output(per_element: int) -> _Rule:
    def rule(op: Any) -> Optional[int]:
        n = _elements(op.outputs[0])
        return None if n is None else n * per_element
    return rule


def _reduction(finalize: int) -> _Rule:
    # One op per input element, less one per output element (the first value of each
    # reduced group is taken, not added), plus ``finalize`` per output (a mean's divide).
    def rule(op: Any) -> Optional[int]:
        n_in, n_out = _elements(op.inputs[0]), _elements(op.outputs[0])
        if n_in is None or n_out is None:
            return None
        return n_in + n_out * (finalize - 1)
    return rule


def _nhwc(op: Any) -> bool:
    fmt = op.attrs.get("data_format", "NHWC")
    fmt = fmt.decode() if isinstance(fmt, bytes) else fmt
    return fmt == "NHWC"


def _product(values: Any) -> int:
    out = 1
    for v in values:
        out *= int(v)
    return out


def _pool(op: Any) -> Optional[int]:
    n = _elements(op.outputs[0])
    if n is None or not _nhwc(op):
        return None
    return _product(op.get_attr("ksize")) * n


def _avg_pool_grad(op: Any) -> Optional[int]:
    n = _elements(op.inputs[1])
    if n is None or not _nhwc(op):
        return None
    return _product(op.get_attr("ksize")) * n * 2


def _max_pool_grad(op: Any) -> Optional[int]:
    n = _elements(op.inputs[1])
    if n is None or not _nhwc(op):
        return None
    return _product(op.get_attr("ksize")) * n + n


def _matmul(op: Any) -> Optional[int]:
    a, out = _dims(op.inputs[0]), _elements(op.outputs[0])
    if a is None or out is None:
        return None
    transposed = bool(op.attrs.get("transpose_a") or op.attrs.get("adj_x"))
    k = a[-2] if transposed else a[-1]
    return 2 * k * out


def _conv2d(op: Any) -> Optional[int]:
    kernel, out = _dims(op.inputs[1]), _elements(op.outputs[0])
    if kernel is None or out is None or not _nhwc(op):
        return None
    return 2 * out * kernel[0] * kernel[1] * kernel[2]


def _conv3d(op: Any) -> Optional[int]:
    kernel, out = _dims(op.inputs[1]), _elements(op.outputs[0])
    if kernel is None or out is None:
        return None
    return 2 * out * kernel[0] * kernel[1] * kernel[2] * kernel[3]


def _depthwise(op: Any) -> Optional[int]:
    kernel, out = _dims(op.inputs[1]), _elements(op.outputs[0])
    if kernel is None or out is None or not _nhwc(op):
        return None
    return 2 * out * kernel[0] * kernel[1]


def _conv_backprop(image_index: Optional[int]) -> _Rule:
    # Both backprops cost what the forward convolution did: 2 * (elements of the big
    # tensor) * (kernel elements) / (its channels * the stride area).
    def rule(op: Any) -> Optional[int]:
        big = op.outputs[0] if image_index is None else op.inputs[image_index]
        kernel = op.inputs[1] if image_index is None else op.outputs[0]
        dims, k = _dims(big), _elements(kernel)
        if dims is None or k is None or not _nhwc(op):
            return None
        strides = list(op.get_attr("strides"))
        return int(2 * _product(dims) * k / (dims[-1] * strides[1] * strides[2]))
    return rule


def _add_n(op: Any) -> Optional[int]:
    if not op.inputs:
        return 0
    n = _elements(op.inputs[0])
    return None if n is None else n * (len(op.inputs) - 1)


RULES: Dict[str, _Rule] = {
    **{t: _unary(1) for t in ("Reciprocal", "Square", "Log", "Neg", "AssignSub",
                              "AssignAdd", "BiasAdd")},
    "Rsqrt": _unary(2),
    "Softmax": _unary(5),
    "L2Loss": lambda op: None if _elements(op.inputs[0]) is None
    else _elements(op.inputs[0]) * 3 - 1,
    **{t: _per_output(1) for t in ("Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum",
                                   "Minimum", "Pow", "GreaterEqual", "Greater", "LessEqual",
                                   "Less", "Equal", "NotEqual")},
    "SquaredDifference": _per_output(2),
    "RsqrtGrad": _per_output(4),
    "Mean": _reduction(1),
    **{t: _reduction(0) for t in ("Sum", "ArgMax", "ArgMin", "BiasAddGrad")},
    "AvgPool": _pool,
    "MaxPool": _pool,
    "AvgPoolGrad": _avg_pool_grad,
    "MaxPoolGrad": _max_pool_grad,
    "Conv2DBackpropInput": _conv_backprop(None),
    "Conv2DBackpropFilter": _conv_backprop(0),
    "AddN": _add_n,
    "MatMul": _matmul,
    "BatchMatMul": _matmul,
    "BatchMatMulV2": _matmul,
    "BatchMatMulV3": _matmul,
    "Conv2D": _conv2d,
    "Conv3D": _conv3d,
    "DepthwiseConv2dNative": _depthwise,
}


def float_ops(op: Any) -> Optional[int]:
    """The float operations of ``op`` (a graph ``Operation``), or None when unknown."""
    rule = RULES.get(op.type)
    if rule is None:
        return None
    try:
        return rule(op)
    except (IndexError, KeyError, ValueError, TypeError):
        # Attributes or inputs of an unexpected form: unknown, as TensorFlow's
        # statistics are for an op they cannot evaluate.
        return None


__all__ = ["RULES", "float_ops"]
