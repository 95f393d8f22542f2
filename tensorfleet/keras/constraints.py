"""``tf.keras.constraints``: projections applied to a weight after each training step
(a layer's ``kernel_constraint`` ...): ``MaxNorm``, ``MinMaxNorm``, ``NonNeg``,
``UnitNorm`` and ``RadialConstraint``. A constraint is called on the weight and returns
its projected value."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M

_EPS = 1e-7


class Constraint:
    """Base class: ``constraint(w)`` returns the projected ``w`` (unchanged here)."""

    def __call__(self, w: Any) -> Tensor:
        return convert_to_tensor(w)

    def get_config(self) -> Dict[str, Any]:
        """The constructor arguments."""
        return {}

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "Constraint":
        """The constraint made from ``get_config()``'s dict."""
        return cls(**config)


def _norms(w: Tensor, axis: Any) -> Tensor:
    return M.sqrt(M.reduce_sum(M.square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Rescales the weights along ``axis`` (per unit) whose L2 norm exceeds
    ``max_value`` down to it."""

    def __init__(self, max_value: float = 2, axis: Any = 0):
        self.max_value, self.axis = float(max_value), axis

    def __call__(self, w: Any) -> Tensor:
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = M.clip_by_value(norms, 0.0, self.max_value)
        return M.multiply(w, M.divide(desired, M.add(norms, _EPS)))

    def get_config(self) -> Dict[str, Any]:
        """``max_value`` and ``axis``."""
        return {"max_value": self.max_value, "axis": self.axis}


class MinMaxNorm(Constraint):
    """Moves each norm along ``axis`` toward ``[min_value, max_value]`` by ``rate``
    (1 projects fully)."""

    def __init__(self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0,
                 axis: Any = 0):
        self.min_value, self.max_value = float(min_value), float(max_value)
        self.rate, self.axis = float(rate), axis

    def __call__(self, w: Any) -> Tensor:
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        clipped = M.clip_by_value(norms, self.min_value, self.max_value)
        desired = M.add(M.multiply(self.rate, clipped), M.multiply(1.0 - self.rate, norms))
        return M.multiply(w, M.divide(desired, M.add(norms, _EPS)))

    def get_config(self) -> Dict[str, Any]:
        """The bounds, rate and axis."""
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


class NonNeg(Constraint):
    """Sets negative weights to zero."""

    def __call__(self, w: Any) -> Tensor:
        w = convert_to_tensor(w)
        return M.multiply(w, A.cast(M.greater_equal(w, 0.0), w.dtype))


class UnitNorm(Constraint):
    """Scales the weights along ``axis`` to unit L2 norm."""

    def __init__(self, axis: Any = 0):
        self.axis = axis

    def __call__(self, w: Any) -> Tensor:
        w = convert_to_tensor(w)
        return M.divide(w, M.add(_norms(w, self.axis), _EPS))

    def get_config(self) -> Dict[str, Any]:
        """The axis."""
        return {"axis": self.axis}


def _radial_source(k: int) -> List[int]:
    """For each entry of a k x k kernel (row-major), the diagonal entry whose value it
    takes: Keras fills rings about the centre outward from the centre block, ring ``d``
    with ``kernel[c - 1 + d, c - 1 + d]`` (odd ``k``, ``c = k // 2``) or, for even ``k``,
    the 2 x 2 centre with ``kernel[c - 1, c - 1]`` and ring ``d`` with ``kernel[c + d]``."""
    c = k // 2
    out = []
    for i in range(k):
        for j in range(k):
            if k % 2:
                d = max(abs(i - c), abs(j - c))
                out.append(c - 1 + d if c else 0)
            else:
                di = (c - 1 - i) if i < c else (i - c)
                dj = (c - 1 - j) if j < c else (j - c)
                d = max(di, dj)
                out.append(c - 1 if d == 0 else c + d)
    return out


class RadialConstraint(Constraint):
    """Makes each 2-D kernel [k, k] of a [k, k, in, out] weight radially symmetric:
    each ring about the centre takes one value from the kernel's diagonal, as Keras
    builds it (``_radial_source``)."""

    def __call__(self, w: Any) -> Tensor:
        w = convert_to_tensor(w)
        shape = w.shape.as_list()
        if len(shape) != 4 or shape[0] != shape[1] or shape[0] is None or shape[0] < 2:
            raise ValueError(f"RadialConstraint: the weight must be [k, k, in, out] with "
                             f"k >= 2, got shape {shape}")
        k = shape[0]
        diag = A.stack([w[t, t] for t in range(k)])  # [k, in, out]
        picked = A.gather(diag, _radial_source(k))
        return A.reshape(picked, [k, k, shape[2], shape[3]])


max_norm, min_max_norm, non_neg, unit_norm = MaxNorm, MinMaxNorm, NonNeg, UnitNorm
radial_constraint = RadialConstraint

_CLASSES = {"Constraint": Constraint, "MaxNorm": MaxNorm, "MinMaxNorm": MinMaxNorm,
            "NonNeg": NonNeg, "UnitNorm": UnitNorm, "RadialConstraint": RadialConstraint}
_NAMES = {"max_norm": MaxNorm, "min_max_norm": MinMaxNorm, "non_neg": NonNeg,
          "unit_norm": UnitNorm, "radial_constraint": RadialConstraint}


def serialize(constraint: Any) -> Dict[str, Any]:
    """``{"class_name": ..., "config": ...}`` of a constraint."""
    return {"class_name": type(constraint).__name__, "config": constraint.get_config()}


def deserialize(config: Any, custom_objects: Optional[Dict[str, Any]] = None) -> Any:
    """The constraint a ``serialize`` result (or a name) describes.

    Raises:
      ValueError: an unknown name.
    """
    custom = custom_objects or {}
    if isinstance(config, str):
        cls = custom.get(config) or _NAMES.get(config) or _CLASSES.get(config)
        if cls is None:
            raise ValueError(f"Unknown constraint: {config!r}")
        return cls()
    name = config.get("class_name")
    cls = custom.get(name) or _CLASSES.get(name) or _NAMES.get(name)
    if cls is None:
        raise ValueError(f"Unknown constraint: {name!r}")
    return cls(**config.get("config", {}))


def get(identifier: Any) -> Any:
    """A constraint from None, a callable, a name (``'non_neg'``) or a config dict.

    Raises:
      ValueError: an identifier that is none of these.
    """
    if identifier is None or (callable(identifier) and not isinstance(identifier, str)):
        return identifier
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    raise ValueError(f"Could not interpret constraint identifier: {identifier!r}")


__all__ = ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "RadialConstraint",
           "max_norm", "min_max_norm", "non_neg", "unit_norm", "radial_constraint", "get",
           "serialize", "deserialize"]
