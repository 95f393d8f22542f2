"""Gradients of the math ops.

Broadcasting binary ops sum their incoming gradient back down to each input's
shape. When static shapes settle which axes were broadcast (the usual case:
a bias of shape ``[n]`` added to a ``[None, n]`` batch) that is one reduce_sum
with constant axes, or nothing at all; otherwise the axes are computed at run
time with ``BroadcastGradientArgs``.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import numpy as np

from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops.complex_ops import conj
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.math_ops_reduce import broadcast_gradient_args, reduced_shape
from tensorfleet.ops.op_util import const_value
from tensorfleet.ops import array_ops
from tensorfleet.ops.array_ops import cast, reshape, shape, size, where, zeros_like

for _t in ["FloorDiv", "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
           "LogicalAnd", "LogicalOr", "LogicalNot", "ArgMax", "ArgMin", "All", "Any",
           "BroadcastGradientArgs", "ReducedShape", "Floor", "Ceil", "Round", "IsFinite",
           "IsNan", "IsInf"]:
    no_gradient(_t)


# -- broadcasting helpers ---------------------------------------------------------------------

def _static_sum_plan(x: TensorShape, other: TensorShape) -> Optional[Tuple[List[int], List[int]]]:
    """Axes to sum ``broadcast(x, other)`` over to get ``x``: (leading, size-1 axes).

    None when static shapes cannot tell, e.g. an unknown dim of ``x`` facing a
    dim of ``other`` that is not 1: ``x`` may be 1 there at run time.
    """
    if x.ndims is None or other.ndims is None:
        return None
    xd, od = x.as_list(), other.as_list()
    n = max(len(xd), len(od))
    lead = n - len(xd)
    po = [1] * (n - len(od)) + od
    keep = []
    for i, d in enumerate(xd):
        q = po[lead + i]
        if d == 1 and q != 1:
            keep.append(lead + i)
        elif d is None and q != 1:
            return None
    return list(range(lead)), keep


def sum_to(grad: Any, x: Any, other_shape: TensorShape) -> Any:
    """Sums ``grad`` (shaped like ``broadcast(x, other)``) down to the shape of ``x``."""
    plan = _static_sum_plan(x.shape, other_shape)
    if plan is not None:
        lead, keep = plan
        if keep:
            grad = M.reduce_sum(grad, keep, keepdims=True)
        if lead:
            grad = M.reduce_sum(grad, lead)
        return grad
    sx = shape(x)
    rx, _ = broadcast_gradient_args(sx, shape(grad))
    return reshape(M.reduce_sum(grad, rx), sx)


def _both(op: Any, gx: Any, gy: Any) -> List[Any]:
    x, y = op.inputs
    return [None if gx is None else sum_to(gx, x, y.shape),
            None if gy is None else sum_to(gy, y, x.shape)]


# -- binary ops -------------------------------------------------------------------------------

@register_gradient("Add")
def _add_grad(op: Any, grad: Any) -> List[Any]:
    return _both(op, grad, grad)


@register_gradient("Sub")
def _sub_grad(op: Any, grad: Any) -> List[Any]:
    x, y = op.inputs
    return [sum_to(grad, x, y.shape), M.negative(sum_to(grad, y, x.shape))]


@register_gradient("Mul")
def _mul_grad(op: Any, grad: Any) -> List[Any]:
    x, y = op.inputs
    # conj is the identity on real tensors; on complex ones it is TensorFlow's convention.
    return _both(op, M.multiply(grad, conj(y)), M.multiply(conj(x), grad))


@register_gradient("RealDiv")
def _realdiv_grad(op: Any, grad: Any) -> List[Any]:
    x, y = conj(op.inputs[0]), conj(op.inputs[1])
    gy = M.multiply(grad, M.realdiv(M.realdiv(M.negative(x), y), y))
    return _both(op, M.realdiv(grad, y), gy)


@register_gradient("FloorMod")
def _floormod_grad(op: Any, grad: Any) -> List[Any]:
    x, y = op.inputs
    return _both(op, grad, M.multiply(grad, M.negative(M.floordiv(x, y))))


@register_gradient("Pow")
def _pow_grad(op: Any, grad: Any) -> List[Any]:
    x, y = op.inputs
    z = op.outputs[0]
    gx = M.multiply(grad, M.multiply(y, M.pow(x, M.subtract(y, 1))))
    # d/dy x**y = x**y * log(x), taken as 0 where x <= 0 (log undefined there).
    log_x = where(M.greater(x, 0), M.log(x), zeros_like(x))
    gy = M.multiply(grad, M.multiply(z, log_x))
    return _both(op, gx, gy)


def _minmax_grad(op: Any, grad: Any, select: Any) -> List[Any]:
    x, y = op.inputs
    # Ties send the whole gradient to x, as TensorFlow does.
    gx = M.multiply(grad, cast(select(x, y), grad.dtype))
    return _both(op, gx, M.subtract(grad, gx))


@register_gradient("Maximum")
def _maximum_grad(op: Any, grad: Any) -> List[Any]:
    return _minmax_grad(op, grad, M.greater_equal)


@register_gradient("Minimum")
def _minimum_grad(op: Any, grad: Any) -> List[Any]:
    return _minmax_grad(op, grad, M.less_equal)


@register_gradient("SquaredDifference")
def _squared_difference_grad(op: Any, grad: Any) -> List[Any]:
    x, y = op.inputs
    gx = M.multiply(grad, M.multiply(M.subtract(x, y), 2))
    return [sum_to(gx, x, y.shape), M.negative(sum_to(gx, y, x.shape))]


@register_gradient("AddN")
def _add_n_grad(op: Any, grad: Any) -> list:
    return [grad] * len(op.inputs)


# -- unary ops --------------------------------------------------------------------------------

@register_gradient("Neg")
def _neg_grad(op: Any, grad: Any) -> Any:
    return M.negative(grad)


@register_gradient("Square")
def _square_grad(op: Any, grad: Any) -> Any:
    return M.multiply(grad, M.multiply(conj(op.inputs[0]), 2))


def _fused(op_type: str, grad_type: str) -> None:
    register_gradient(op_type)(lambda op, grad: M.unary_grad(grad_type, op.outputs[0], grad))


for _op, _g in [("Sqrt", "SqrtGrad"), ("Rsqrt", "RsqrtGrad"), ("Reciprocal", "ReciprocalGrad"),
                ("Sigmoid", "SigmoidGrad"), ("Tanh", "TanhGrad")]:
    _fused(_op, _g)


@register_gradient("SigmoidGrad")
def _sigmoid_grad_grad(op: Any, grad: Any) -> List[Any]:
    y, dy = op.inputs
    # d/dy [dy * y * (1 - y)] = dy * (1 - 2y)
    gy = M.multiply(grad, M.multiply(dy, M.subtract(1, M.multiply(y, 2))))
    return [gy, M.unary_grad("SigmoidGrad", y, grad)]


@register_gradient("TanhGrad")
def _tanh_grad_grad(op: Any, grad: Any) -> List[Any]:
    y, dy = op.inputs
    gy = M.multiply(grad, M.multiply(dy, M.multiply(y, -2)))
    return [gy, M.unary_grad("TanhGrad", y, grad)]


@register_gradient("Exp")
def _exp_grad(op: Any, grad: Any) -> Any:
    return M.multiply(grad, conj(op.outputs[0]))


@register_gradient("Expm1")
def _expm1_grad(op: Any, grad: Any) -> Any:
    return M.multiply(grad, M.exp(op.inputs[0]))


@register_gradient("Sin")
def _sin_grad(op: Any, grad: Any) -> Any:
    return M.multiply(grad, M.cos(op.inputs[0]))


@register_gradient("Cos")
def _cos_grad(op: Any, grad: Any) -> Any:
    return M.negative(M.multiply(grad, M.sin(op.inputs[0])))


@register_gradient("Log")
def _log_grad(op: Any, grad: Any) -> Any:
    return M.realdiv(grad, conj(op.inputs[0]))


@register_gradient("Log1p")
def _log1p_grad(op: Any, grad: Any) -> Any:
    return M.realdiv(grad, M.add(op.inputs[0], 1))


@register_gradient("Abs")
def _abs_grad(op: Any, grad: Any) -> Any:
    return M.multiply(grad, M.sign(op.inputs[0]))


@register_gradient("Sign")
def _sign_grad(op: Any, grad: Any) -> Any:
    return zeros_like(op.inputs[0])


# -- matrix products --------------------------------------------------------------------------

@register_gradient("MatMul")
def _matmul_grad(op: Any, grad: Any) -> List[Any]:
    a, b = conj(op.inputs[0]), conj(op.inputs[1])
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    mm = M.matmul
    if not ta and not tb:
        return [mm(grad, b, transpose_b=True), mm(a, grad, transpose_a=True)]
    if not ta and tb:
        return [mm(grad, b), mm(grad, a, transpose_a=True)]
    if ta and not tb:
        return [mm(b, grad, transpose_b=True), mm(a, grad)]
    return [mm(b, grad, transpose_a=True, transpose_b=True),
            mm(grad, a, transpose_a=True, transpose_b=True)]


@register_gradient("BatchMatMulV2")
def _batch_matmul_grad(op: Any, grad: Any) -> List[Any]:
    x, y = op.inputs
    ax, ay = op.attrs["adj_x"], op.attrs["adj_y"]
    mm = M.matmul
    if not ax and not ay:
        gx, gy = mm(grad, y, adjoint_b=True), mm(x, grad, adjoint_a=True)
    elif not ax and ay:
        gx, gy = mm(grad, y), mm(grad, x, adjoint_a=True)
    elif ax and not ay:
        gx, gy = mm(y, grad, adjoint_b=True), mm(x, grad)
    else:
        gx, gy = (mm(y, grad, adjoint_a=True, adjoint_b=True),
                  mm(grad, x, adjoint_a=True, adjoint_b=True))
    # Broadcast batch dims: sum each gradient back over the batch dims its input lacked.
    xs, ys = x.shape, y.shape
    if xs.ndims is None or ys.ndims is None:
        other_x = other_y = TensorShape(None)
    else:
        other_x = ys[:-2].concatenate(xs[-2:])
        other_y = xs[:-2].concatenate(ys[-2:])
    return [sum_to(gx, x, other_x), sum_to(gy, y, other_y)]


# -- reductions -------------------------------------------------------------------------------

def _static_axes(op: Any) -> Optional[List[int]]:
    """The reduced axes (non-negative) when known while building, else None."""
    rank = op.inputs[0].shape.ndims
    if len(op.inputs) == 1:
        return None if rank is None else list(range(rank))
    v = const_value(op.inputs[1])
    if v is None or rank is None:
        return None
    return sorted({int(a) % max(rank, 1) for a in np.asarray(v).reshape(-1)})


def _keep_dims_shape(op: Any) -> Any:
    """The reduction's output shape with reduced dims kept as 1 (a list or a tensor)."""
    x = op.inputs[0]
    axes = _static_axes(op)
    if axes is not None:
        dims = [1 if i in axes else d for i, d in enumerate(x.shape.as_list())]
        unknown = sum(d is None for d in dims)
        if unknown <= 1:
            return [-1 if d is None else d for d in dims]
    return reduced_shape(shape(x), None if len(op.inputs) == 1 else op.inputs[1])


def _to_keep_dims(op: Any, t: Any) -> Any:
    if op.attrs["keep_dims"]:
        return t
    return reshape(t, _keep_dims_shape(op))


def _broadcast_like(g: Any, x: Any) -> Any:
    """``g`` (broadcastable to ``x``) expanded to the full shape of ``x``."""
    if x.shape.is_fully_defined() and g.shape == x.shape:
        return g
    return M.add(g, array_ops.zeros_like(x))


def _axis_grads(op: Any, gx: Any) -> List[Any]:
    return [gx] if len(op.inputs) == 1 else [gx, None]


def _spread(op: Any, g: Any) -> Any:
    """The reduction's (scaled) output gradient ``g`` copied back over the reduced axes."""
    x = op.inputs[0]
    axes = _static_axes(op)
    reduces_all = len(op.inputs) == 1 or (axes is not None and len(axes) == x.shape.ndims)
    if reduces_all and not op.attrs["keep_dims"]:
        # A scalar gradient: one Fill (of a constant shape when it is known).
        dims = x.shape.as_list() if x.shape.is_fully_defined() else array_ops.shape(x)
        return array_ops.fill(dims, g)
    return _broadcast_like(_to_keep_dims(op, g), x)


@register_gradient("Sum")
def _sum_grad(op: Any, grad: Any) -> List[Any]:
    return _axis_grads(op, _spread(op, grad))


@register_gradient("Mean")
def _mean_grad(op: Any, grad: Any) -> List[Any]:
    x, y = op.inputs[0], op.outputs[0]
    axes = _static_axes(op)
    dims = None if axes is None else [x.shape[i] for i in axes]
    if dims is not None and all(d is not None for d in dims):
        count = int(np.prod(dims, dtype=np.int64))
        scaled = M.multiply(grad, 1.0 / max(count, 1))
    else:
        count_t = cast(size(x), grad.dtype)
        if y.shape.is_fully_defined():
            # The output size is static (1 for a full reduction): one division less.
            out_size = max(int(np.prod(y.shape.as_list(), dtype=np.int64)), 1)
            if out_size != 1:
                count_t = M.multiply(count_t, 1.0 / out_size)
        else:
            count_t = M.realdiv(count_t, M.maximum(cast(size(y), grad.dtype), 1))
        scaled = M.realdiv(grad, count_t)
    return _axis_grads(op, _spread(op, scaled))


def _extremum_grad(op: Any, grad: Any) -> List[Any]:
    x = op.inputs[0]
    y = _to_keep_dims(op, op.outputs[0])
    g = _to_keep_dims(op, grad)
    hits = cast(M.equal(x, y), grad.dtype)
    axes = None if len(op.inputs) == 1 else op.inputs[1]
    # Tied maxima share the gradient equally.
    count = M.reduce_sum(hits, axes, keepdims=True)
    return _axis_grads(op, M.multiply(M.realdiv(hits, count), g))


register_gradient("Max")(_extremum_grad)
register_gradient("Min")(_extremum_grad)


def _exclusive_prod(x: Any, axes: List[int]) -> Any:
    """For each element, the product of the others in its reduction window."""
    a = axes[0]
    out = M.multiply(M.cumprod(x, a, exclusive=True),
                     M.cumprod(x, a, exclusive=True, reverse=True))
    if len(axes) > 1:
        # The rest of the window: whole rows along ``a``, excluding this element's row.
        out = M.multiply(out, _exclusive_prod(M.reduce_prod(x, a, keepdims=True), axes[1:]))
    return out


@register_gradient("Prod")
def _prod_grad(op: Any, grad: Any) -> List[Any]:
    axes = _static_axes(op)
    if axes is None:
        raise ValueError(f"Gradient of reduce_prod ({op.name}) needs reduction axes "
                           "and input rank known while building the graph")
    x = op.inputs[0]
    g = _to_keep_dims(op, grad)
    if not axes:
        return _axis_grads(op, g)
    return _axis_grads(op, M.multiply(_exclusive_prod(x, axes), g))


@register_gradient("Cumsum")
def _cumsum_grad(op: Any, grad: Any) -> Any:
    a = op.attrs
    return M.cumsum(grad, a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])


@register_gradient("Cumprod")
def _cumprod_grad(op: Any, grad: Any) -> Any:
    a = op.attrs
    x, prod = op.inputs[0], op.outputs[0]
    out = M.cumsum(M.multiply(prod, grad), a["axis"], exclusive=a["exclusive"],
                   reverse=not a["reverse"])
    return M.realdiv(out, x)
