"""Wrappers of Python functions as graph computations: ``tf.py_function``,
``tf.vectorized_map``, ``tf.recompute_grad`` and ``tf.grad_pass_through``."""

from __future__ import annotations

import functools
from typing import Any, Callable, Optional, Sequence

import numpy as np

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.ops.custom_gradient import custom_gradient
from tensorfleet.ops.functional_ops import map_fn
from tensorfleet.ops.script_ops import py_func


class _EagerValue(np.ndarray):
    """A numpy array that also answers ``.numpy()``, as the eager tensors a
    ``py_function`` receives in TensorFlow do."""

    def numpy(self) -> np.ndarray:
        return np.asarray(self)


def py_function(func: Callable[..., Any], inp: Sequence[Any], Tout: Any,  # noqa: N803
                name: Optional[str] = None) -> Any:
    """``func`` run as an op on the values of ``inp``; it receives arrays that also have
    ``.numpy()`` (as eager tensors do) and returns values of dtypes ``Tout``. Gradients do
    not flow through it (as with ``tf.py_func``)."""
    def call(*args: Any) -> Any:
        out = func(*[np.asarray(a).view(_EagerValue) for a in args])
        if isinstance(out, (list, tuple)):
            return type(out)(np.asarray(o) for o in out)
        return None if out is None else np.asarray(out)
    return py_func(call, list(inp), Tout, stateful=True, name=name)


def vectorized_map(fn: Callable[..., Any], elems: Any,
                   fallback_to_while_loop: bool = True, warn: bool = True) -> Any:
    """``fn`` applied to each slice of ``elems`` along the first dimension, the results
    stacked: ``map_fn``'s result. TensorFlow vectorizes the loop where it can; the values
    are the same."""
    if not fallback_to_while_loop:
        raise ValueError("vectorized_map: tensorfleet runs the loop (map_fn); "
                         "fallback_to_while_loop=False asks for vectorization only")
    return map_fn(fn, elems)


def recompute_grad(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` with its gradient computed through its ops. TensorFlow recomputes ``f``'s
    forward pass in the backward pass to save memory; the values and gradients are the
    same."""
    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return f(*args, **kwargs)
    return wrapper


def grad_pass_through(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` in the forward pass, the identity in the backward pass: the gradient with
    respect to each input is the gradient of the matching output (so each output must
    have its input's shape).

    Raises:
      ValueError: (when called) a number of outputs other than of inputs.
    """
    @functools.wraps(f)
    def wrapper(*args: Any) -> Any:
        xs = [convert_to_tensor(a) for a in args]

        @custom_gradient
        def through(*inputs: Tensor) -> Any:
            out = f(*inputs)
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            if len(outs) != len(inputs):
                raise ValueError(f"grad_pass_through: f returned {len(outs)} outputs for "
                                 f"{len(inputs)} inputs")

            def grad(*dys: Any) -> Any:
                return list(dys) if len(dys) > 1 else dys[0]
            return out, grad
        return through(*xs)
    return wrapper


__all__ = ["py_function", "vectorized_map", "recompute_grad", "grad_pass_through"]
