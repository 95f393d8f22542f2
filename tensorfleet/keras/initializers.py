"""``tf.keras.initializers`` (TF 1.x names).

The classes are tensorfleet's initializers; the Keras variants differ only in
their defaults (``RandomNormal``/``TruncatedNormal`` with ``stddev=0.05``,
``RandomUniform`` in ``[-0.05, 0.05)``), as in TensorFlow 1.x.
"""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.ops import init_ops
from tensorfleet.ops.init_ops import Initializer  # noqa: F401  (re-exported)


class RandomNormal(init_ops.RandomNormal):
    """Normally distributed values, by default with standard deviation 0.05."""

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: Optional[int] = None,
                 dtype: Any = _dtypes.float32):
        super().__init__(mean, stddev, seed, dtype)


class RandomUniform(init_ops.RandomUniform):
    """Uniform values, by default in ``[-0.05, 0.05)``."""

    def __init__(self, minval: Any = -0.05, maxval: Any = 0.05, seed: Optional[int] = None,
                 dtype: Any = _dtypes.float32):
        super().__init__(minval, maxval, seed, dtype)


class TruncatedNormal(init_ops.TruncatedNormal):
    """Truncated normal values, by default with standard deviation 0.05."""

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: Optional[int] = None,
                 dtype: Any = _dtypes.float32):
        super().__init__(mean, stddev, seed, dtype)


_CLASSES = {
    "Zeros": init_ops.Zeros, "Ones": init_ops.Ones, "Constant": init_ops.Constant,
    "RandomNormal": RandomNormal, "RandomUniform": RandomUniform,
    "TruncatedNormal": TruncatedNormal, "VarianceScaling": init_ops.VarianceScaling,
    "Orthogonal": init_ops.Orthogonal, "Identity": init_ops.Identity,
    "GlorotNormal": init_ops.GlorotNormal, "GlorotUniform": init_ops.GlorotUniform,
}
_FUNCTIONS = {
    "zeros": init_ops.Zeros, "ones": init_ops.Ones, "constant": init_ops.Constant,
    "random_normal": RandomNormal, "random_uniform": RandomUniform,
    "normal": RandomNormal, "uniform": RandomUniform,
    "truncated_normal": TruncatedNormal, "variance_scaling": init_ops.VarianceScaling,
    "orthogonal": init_ops.Orthogonal, "identity": init_ops.Identity,
    "glorot_normal": init_ops.GlorotNormal, "glorot_uniform": init_ops.GlorotUniform,
    "he_normal": init_ops.he_normal, "he_uniform": init_ops.he_uniform,
    "lecun_normal": init_ops.lecun_normal, "lecun_uniform": init_ops.lecun_uniform,
}


zeros, ones, constant = init_ops.Zeros, init_ops.Ones, init_ops.Constant
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
normal, uniform = RandomNormal, RandomUniform
Zeros, Ones, Constant = init_ops.Zeros, init_ops.Ones, init_ops.Constant
VarianceScaling, Orthogonal = init_ops.VarianceScaling, init_ops.Orthogonal
Identity = init_ops.Identity
GlorotNormal, GlorotUniform = init_ops.GlorotNormal, init_ops.GlorotUniform
variance_scaling, orthogonal, identity = VarianceScaling, Orthogonal, Identity
glorot_normal, glorot_uniform = GlorotNormal, GlorotUniform
he_normal, he_uniform = init_ops.he_normal, init_ops.he_uniform
lecun_normal, lecun_uniform = init_ops.lecun_normal, init_ops.lecun_uniform


def get(identifier: Any) -> Any:
    """An initializer from a name (``"glorot_uniform"``, ``"Zeros"``), a config dict
    (``{"class_name": ..., "config": {...}}``), an initializer, or None.

    Raises:
      ValueError: an unknown name or identifier.
    """
    if identifier is None or callable(identifier) and not isinstance(identifier, str):
        return identifier
    if isinstance(identifier, dict):
        name, config = identifier.get("class_name"), identifier.get("config", {})
        cls = _CLASSES.get(name) or _FUNCTIONS.get(name)
        if cls is None:
            raise ValueError(f"Unknown initializer: {name!r}")
        return cls(**config)
    if isinstance(identifier, str):
        cls = _FUNCTIONS.get(identifier) or _CLASSES.get(identifier)
        if cls is None:
            raise ValueError(f"Unknown initializer: {identifier!r}")
        return cls()
    raise ValueError(f"Could not interpret initializer identifier: {identifier!r}")


def serialize(initializer: Any) -> dict:
    """``{"class_name": ..., "config": ...}`` of an initializer (``get`` reads it back)."""
    return {"class_name": type(initializer).__name__, "config": initializer.get_config()}


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    """The initializer a ``serialize`` result (or a name) describes; ``custom_objects``
    maps further class names to classes.

    Raises:
      ValueError: an unknown class name.
    """
    custom = custom_objects or {}
    if isinstance(config, dict) and config.get("class_name") in custom:
        return custom[config["class_name"]](**config.get("config", {}))
    if isinstance(config, str) and config in custom:
        return custom[config]()
    return get(config)


__all__ = sorted(_CLASSES) + sorted(_FUNCTIONS) + ["get", "serialize", "deserialize",
                                                   "Initializer"]
