"""Gradient tools: ``tf.identity_n`` (one ``IdentityN`` op), ``tf.custom_gradient`` and
``tf.hessians``.

``custom_gradient`` works as TensorFlow's graph mode does: the results of the decorated
function and its inputs pass through one ``IdentityN`` op created under
``Graph.gradient_override_map``, so the gradient of that op is the user's function (the
gradient registered under a fresh name for each call).
"""

from __future__ import annotations

import builtins
import functools
import inspect
import itertools
from typing import Any, List, Optional, Sequence

from tensorfleet.framework.graph import (GraphKeys, Tensor, convert_to_tensor, get_default_graph,
                                         name_scope)
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.gradients.gradients_impl import gradients
from tensorfleet.gradients.registry import register_gradient
from tensorfleet.ops import variables as _variables
from tensorfleet.ops.array_ops_core import reshape, stack, zeros
from tensorfleet.ops.op_util import make_op

__all__ = ["identity_n", "custom_gradient", "hessians"]


def _identity_n_shapes(op: Any) -> List[TensorShape]:
    return [t.shape for t in op.inputs]


register_op("IdentityN", _identity_n_shapes)


def identity_n(input: Sequence[Any], name: Optional[str] = None) -> List[Tensor]:  # noqa: A002
    """The tensors of a list, unchanged, as the outputs of one ``IdentityN`` op."""
    xs = [convert_to_tensor(x) for x in input]
    if not xs:
        return []
    op = make_op("IdentityN", xs, [x.dtype for x in xs], name=name or "IdentityN")
    return list(op.outputs)


def hessians(ys: Any, xs: Any, name: str = "hessians", colocate_gradients_with_ops: bool = False,
             gate_gradients: bool = False, aggregation_method: Any = None) -> List[Any]:
    """For each of ``xs`` (of fully known shape S), the Hessian of ``sum(ys)``: shape S + S."""
    xs_list = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    with name_scope(name):
        grads = gradients(ys, xs_list, colocate_gradients_with_ops=colocate_gradients_with_ops,
                          gate_gradients=gate_gradients, aggregation_method=aggregation_method)
        out: List[Any] = []
        for g, x in zip(grads, xs_list):
            if g is None:
                out.append(None)
                continue
            xs_shape = x.shape
            if not xs_shape.is_fully_defined():
                raise ValueError(f"hessians needs the shape of {x.name} to be fully known, "
                                 f"got {xs_shape}")
            n = 1
            for d in xs_shape.as_list():
                n *= d
            flat = reshape(g, [-1])
            rows = []
            for i in builtins.range(n):
                r = gradients(flat[i], x, colocate_gradients_with_ops=colocate_gradients_with_ops,
                              gate_gradients=gate_gradients,
                              aggregation_method=aggregation_method)[0]
                rows.append(_zeros_flat(x) if r is None else reshape(r, [-1]))
            out.append(reshape(stack(rows), xs_shape.as_list() * 2))
        return out


def _zeros_flat(x: Any) -> Tensor:
    """Zeros of the (known) number of elements of ``x``, flat."""
    n = 1
    for d in x.shape.as_list():
        n *= d
    return zeros([n], x.dtype)


_CUSTOM_GRADIENT_IDS = itertools.count(1)


def custom_gradient(f: Any) -> Any:
    """Decorator: ``f(*tensors)`` returns ``(result, grad_fn)``; the gradient of ``result``
    with respect to the tensors is ``grad_fn(*result_grads)`` instead of the gradient
    through ``f``'s ops. A ``grad_fn`` taking ``variables=`` also gets the variables ``f``
    read and returns ``(input_grads, variable_grads)``."""
    @functools.wraps(f)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise ValueError("The custom_gradient decorator currently supports keywords "
                             "arguments only when eager execution is enabled.")
        g = get_default_graph()
        args_t = [convert_to_tensor(a) for a in args]
        first_new = len(g.get_operations())
        result, grad_fn = f(*args_t)
        flat = list(result) if isinstance(result, (list, tuple)) else [result]
        flat_t = [convert_to_tensor(r) for r in flat]
        try:
            params = inspect.signature(grad_fn).parameters
            takes_vars = "variables" in params or any(
                p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        except (TypeError, ValueError):
            takes_vars = False
        used: List[Any] = []
        if takes_vars:
            read = {id(t) for op in g.get_operations()[first_new:] for t in op.inputs}
            for v in (g.get_collection(GraphKeys.GLOBAL_VARIABLES)
                      + g.get_collection(GraphKeys.LOCAL_VARIABLES)):
                if isinstance(v, _variables.Variable) and id(v.value()) in read \
                        and v not in used:
                    used.append(v)
        n_res = len(flat_t)
        gname = f"CustomGradient-{next(_CUSTOM_GRADIENT_IDS)}"

        @register_gradient(gname)
        def _grad(op: Any, *grads: Any) -> List[Any]:
            res_grads = list(grads[:n_res])
            if takes_vars:
                input_grads, var_grads = grad_fn(*res_grads, variables=used)
                var_grads = list(var_grads or [])
                if len(var_grads) != len(used):
                    raise ValueError("Must return gradient for each variable from "
                                     "@custom_gradient grad_fn.")
            else:
                input_grads, var_grads = grad_fn(*res_grads), []
            input_grads = (list(input_grads) if isinstance(input_grads, (list, tuple))
                           else [input_grads])
            if len(input_grads) != len(args_t):
                raise ValueError(f"custom_gradient grad_fn returned {len(input_grads)} "
                                 f"gradients for {len(args_t)} inputs")
            return [None] * n_res + input_grads + var_grads

        with g.gradient_override_map({"IdentityN": gname}):
            outs = identity_n(flat_t + args_t + [v.value() for v in used])
        outs = outs[:n_res]
        if isinstance(result, (list, tuple)):
            return type(result)(outs) if isinstance(result, tuple) else outs
        return outs[0]

    return decorated
