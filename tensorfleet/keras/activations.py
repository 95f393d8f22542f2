"""``tf.keras.activations``: activation functions by name, and ``get``/``serialize``.

A layer's ``activation`` argument may be one of these names (``'relu'``), a
callable, or None (linear).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from tensorfleet.api import nn as _nn
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.keras import backend_math as K
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops.math_ops_special import erf as _erf


def softmax(x: Any, axis: int = -1) -> Tensor:
    """Softmax over ``axis`` (the last by default)."""
    x = convert_to_tensor(x)
    if x.shape.ndims is not None and x.shape.ndims < 2:
        raise ValueError(f"softmax: cannot apply softmax to a tensor of rank {x.shape.ndims}")
    return N.softmax(x, axis=axis)


def relu(x: Any, alpha: float = 0.0, max_value: Optional[float] = None,
         threshold: float = 0.0) -> Tensor:
    """Rectified linear unit (leaky with ``alpha``, capped at ``max_value``)."""
    return K.relu(x, alpha=alpha, max_value=max_value, threshold=threshold)


def elu(x: Any, alpha: float = 1.0) -> Tensor:
    """Exponential linear unit: ``x`` if positive else ``alpha * (exp(x) - 1)``."""
    y = N.elu(convert_to_tensor(x))
    return y if alpha == 1.0 else M.add(M.multiply(M.minimum(y, 0.0), alpha), M.maximum(y, 0.0))


def selu(x: Any) -> Tensor:
    """Scaled exponential linear unit."""
    return N.selu(convert_to_tensor(x))


def softplus(x: Any) -> Tensor:
    """``log(1 + exp(x))``."""
    return N.softplus(convert_to_tensor(x))


def softsign(x: Any) -> Tensor:
    """``x / (1 + |x|)``."""
    return _nn.softsign(convert_to_tensor(x))


def tanh(x: Any) -> Tensor:
    """Hyperbolic tangent."""
    return M.tanh(convert_to_tensor(x))


def sigmoid(x: Any) -> Tensor:
    """Logistic sigmoid."""
    return M.sigmoid(convert_to_tensor(x))


def hard_sigmoid(x: Any) -> Tensor:
    """``clip(0.2 * x + 0.5, 0, 1)``."""
    return K.hard_sigmoid(x)


def exponential(x: Any) -> Tensor:
    """``exp(x)``."""
    return M.exp(convert_to_tensor(x))


def gelu(x: Any, approximate: bool = False) -> Tensor:
    """Gaussian error linear unit: ``x * P(X <= x)`` for a standard normal ``X``
    (``0.5 * x * (1 + erf(x / sqrt(2)))``; its tanh approximation with ``approximate``)."""
    x = convert_to_tensor(x)
    if approximate:
        inner = M.multiply(0.7978845608028654,
                           M.add(x, M.multiply(0.044715, M.multiply(x, M.square(x)))))
        return M.multiply(M.multiply(0.5, x), M.add(1.0, M.tanh(inner)))
    return M.multiply(M.multiply(0.5, x), M.add(1.0, _erf(M.multiply(x, 0.7071067811865476))))


def linear(x: Any) -> Any:
    """The identity: ``x`` unchanged."""
    return x


def swish(x: Any) -> Tensor:
    """``x * sigmoid(x)`` (also called SiLU)."""
    x = convert_to_tensor(x)
    return M.multiply(x, M.sigmoid(x))


def mish(x: Any) -> Tensor:
    """``x * tanh(softplus(x))`` (Misra, 2019)."""
    x = convert_to_tensor(x)
    return M.multiply(x, M.tanh(N.softplus(x)))


_BY_NAME = {f.__name__: f for f in (softmax, relu, elu, selu, softplus, softsign, tanh,
                                    sigmoid, hard_sigmoid, exponential, linear, swish, gelu,
                                    mish)}


def get(identifier: Any) -> Callable[[Any], Any]:
    """The activation named ``identifier``, a callable as it is, or ``linear`` for None.

    Raises:
      ValueError: an unknown name or an identifier that is not callable.
    """
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        fn = _BY_NAME.get(identifier)
        if fn is None:
            raise ValueError(f"Unknown activation function: {identifier!r}; known: "
                             f"{sorted(_BY_NAME)}")
        return fn
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret activation function identifier: {identifier!r}")


def serialize(activation: Callable[[Any], Any]) -> str:
    """The name of ``activation`` (``get`` reads it back)."""
    return getattr(activation, "__name__", str(activation))


def deserialize(name: str, custom_objects: Any = None) -> Callable[[Any], Any]:
    """The activation ``serialize`` named (``custom_objects`` first).

    Raises:
      ValueError: an unknown name.
    """
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if isinstance(name, dict):
        raise ValueError(f"Unknown activation: {name!r} (activations are named by strings)")
    return get(name)


__all__ = sorted(_BY_NAME) + ["get", "serialize", "deserialize"]
