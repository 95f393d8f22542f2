"""``tf.keras.regularizers``: L1/L2 weight penalties (``l1``, ``l2``, ``l1_l2``).

A regularizer is called on a weight and returns a scalar loss; layers collect
those losses in ``layer.losses`` and a compiled model adds them to its loss.
"""

from __future__ import annotations

from typing import Any, Dict

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M


class Regularizer:
    """Base class: ``regularizer(weight)`` returns a scalar penalty."""

    def __call__(self, x: Any) -> Any:
        return A.constant(0.0)

    def get_config(self) -> Dict[str, Any]:
        """The constructor arguments."""
        return {}


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x ** 2)``."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0):
        self.l1 = float(l1)
        self.l2 = float(l2)

    def __call__(self, x: Any) -> Tensor:
        """The penalty for weight ``x``."""
        x = convert_to_tensor(x)
        total: Any = A.constant(0.0, dtype=x.dtype)
        if self.l1:
            total = M.add(total, M.multiply(M.reduce_sum(M.abs(x)), self.l1))
        if self.l2:
            total = M.add(total, M.multiply(M.reduce_sum(M.square(x)), self.l2))
        return total

    def get_config(self) -> Dict[str, Any]:
        """``{'l1': ..., 'l2': ...}``."""
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    """``l1 * sum(|x|)``."""

    def __init__(self, l1: float = 0.01, **kwargs: Any):  # noqa: F811
        l1 = kwargs.pop("l", l1)
        if kwargs:
            raise ValueError(f"L1: unsupported arguments {sorted(kwargs)}")
        super().__init__(l1=l1)

    def get_config(self) -> Dict[str, Any]:
        """``{'l1': ...}``."""
        return {"l1": self.l1}


class L2(L1L2):
    """``l2 * sum(x ** 2)``."""

    def __init__(self, l2: float = 0.01, **kwargs: Any):  # noqa: F811
        l2 = kwargs.pop("l", l2)
        if kwargs:
            raise ValueError(f"L2: unsupported arguments {sorted(kwargs)}")
        super().__init__(l2=l2)

    def get_config(self) -> Dict[str, Any]:
        """``{'l2': ...}``."""
        return {"l2": self.l2}


def l1(l: float = 0.01) -> L1L2:  # noqa: E741  (the Keras argument name)
    """An L1 penalty ``l * sum(|x|)``."""
    return L1L2(l1=l)


def l2(l: float = 0.01) -> L1L2:  # noqa: E741
    """An L2 penalty ``l * sum(x ** 2)``."""
    return L1L2(l2=l)


def l1_l2(l1: float = 0.01, l2: float = 0.01) -> L1L2:  # noqa: F811
    """Both penalties."""
    return L1L2(l1=l1, l2=l2)


def get(identifier: Any) -> Any:
    """A regularizer from None, a callable, a name (``'l2'``) or a config dict.

    Raises:
      ValueError: an unknown identifier.
    """
    if identifier is None or (callable(identifier) and not isinstance(identifier, str)):
        return identifier
    if isinstance(identifier, str):
        named = {"l1": l1, "l2": l2, "l1_l2": l1_l2}.get(identifier)
        if named is None:
            raise ValueError(f"Unknown regularizer: {identifier!r}")
        return named()
    if isinstance(identifier, dict):
        return deserialize(identifier)
    raise ValueError(f"Could not interpret regularizer identifier: {identifier!r}")


_CLASSES = {"L1L2": L1L2, "L1": L1, "L2": L2}


def serialize(regularizer: Any) -> Dict[str, Any]:
    """``{"class_name": ..., "config": ...}`` of a regularizer (``deserialize`` reads it)."""
    return {"class_name": type(regularizer).__name__, "config": regularizer.get_config()}


def deserialize(config: Dict[str, Any], custom_objects: Any = None) -> Any:
    """The regularizer a ``serialize`` result describes (``custom_objects`` first).

    Raises:
      ValueError: an unknown class name.
    """
    if isinstance(config, str):
        return get(config)
    name = config.get("class_name")
    cls = (custom_objects or {}).get(name) or _CLASSES.get(name)
    if cls is None:
        raise ValueError(f"Unknown regularizer: {name!r}")
    return cls(**config.get("config", {}))


__all__ = ["Regularizer", "L1L2", "L1", "L2", "l1", "l2", "l1_l2", "get", "serialize",
           "deserialize"]
