"""Gradients of ``max_pool_with_argmax`` and fractional pooling (``ops/nn_pool_ops.py``).

A max-pooled gradient goes to the input position of its maximum (the argmax output
and the pooling sequences have none); an average-pooled one is spread evenly over
its region.
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet.framework.graph import Operation
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import array_ops
from tensorfleet.ops.nn_pool_ops import max_pool_grad_with_argmax
from tensorfleet.ops.op_util import make_tensor


@register_gradient("MaxPoolWithArgmax")
def _max_pool_with_argmax_grad(op: Operation, grad: Any, _grad_argmax: Any
                               ) -> List[Optional[Any]]:
    if grad is None:
        return [None]
    return [max_pool_grad_with_argmax(op.inputs[0], grad, op.outputs[1],
                                      op.attrs["include_batch_in_index"])]


@register_gradient("FractionalMaxPool")
def _fractional_max_pool_grad(op: Operation, grad: Any, _g_rows: Any, _g_cols: Any
                              ) -> List[Optional[Any]]:
    x = op.inputs[0]
    return [make_tensor("FractionalMaxPoolGrad",
                        [x, op.outputs[0], grad, op.outputs[1], op.outputs[2]], x.dtype,
                        {"overlapping": op.attrs["overlapping"]}, shape=x.shape)]


@register_gradient("FractionalAvgPool")
def _fractional_avg_pool_grad(op: Operation, grad: Any, _g_rows: Any, _g_cols: Any
                              ) -> List[Optional[Any]]:
    x = op.inputs[0]
    return [make_tensor("FractionalAvgPoolGrad",
                        [array_ops.shape(x), grad, op.outputs[1], op.outputs[2]], x.dtype,
                        {"overlapping": op.attrs["overlapping"]}, shape=x.shape)]


for _t in ("MaxPoolGradWithArgmax", "FractionalMaxPoolGrad", "FractionalAvgPoolGrad"):
    no_gradient(_t)
