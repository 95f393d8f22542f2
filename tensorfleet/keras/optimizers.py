"""``tf.keras.optimizers``: SGD, Adam, RMSprop and Adagrad with Keras's arguments.

Each is a ``tf.train`` optimizer (so ``minimize`` and the fused update ops are
shared) with Keras's defaults and extras: the learning rate lives in a
variable (``optimizer.lr``, changed with ``backend.set_value``), ``decay``
shrinks it as ``lr / (1 + decay * iterations)``, and ``clipnorm``/``clipvalue``
clip each gradient. ``get`` accepts these names (``'adam'``), Keras optimizers
and any ``tf.train`` optimizer.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

from tensorfleet.keras import learning_rate_schedules as schedules
from tensorfleet.keras import optimizers_legacy as legacy
from tensorfleet.keras.optimizer_base import _KerasOptimizer
from tensorfleet.keras.optimizer_classes import SGD, Adagrad, Adam, RMSprop
from tensorfleet.keras.optimizer_variants import Adadelta, Adamax, Ftrl, Nadam
from tensorfleet.training.optimizer import Optimizer


_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop, "adagrad": Adagrad,
            "adadelta": Adadelta, "adamax": Adamax, "ftrl": Ftrl, "nadam": Nadam}


def serialize(optimizer: Any) -> Dict[str, Any]:
    """``{"class_name": ..., "config": ...}`` of a Keras optimizer."""
    if not isinstance(optimizer, _KerasOptimizer):
        raise ValueError(f"Cannot serialize {optimizer!r}: not a Keras optimizer")
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}


def deserialize(config: Any, custom_objects: Optional[Dict[str, Any]] = None) -> Any:
    """The optimizer a ``serialize`` result (or a name) describes.

    Raises:
      ValueError: an unknown class name.
    """
    if isinstance(config, str):
        return get(config)
    name = config.get("class_name", "")
    cls = (custom_objects or {}).get(name) or _BY_NAME.get(name.lower())
    if cls is None:
        raise ValueError(f"Unknown optimizer: {name!r}")
    cfg = dict(config.get("config") or {})
    lr = cfg.get("learning_rate")
    if isinstance(lr, dict):
        cfg["learning_rate"] = schedules.deserialize(lr)
    return cls(**cfg)


def get(identifier: Any) -> Any:
    """An optimizer from a name (``'adam'``), a Keras optimizer or a ``tf.train`` one.

    Raises:
      ValueError: an unknown name or object.
    """
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier.lower())
        if cls is None:
            raise ValueError(f"Unknown optimizer: {identifier!r}; known: {sorted(_BY_NAME)}")
        return cls()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier!r}")


__all__ = ["Optimizer", "SGD", "Adam", "RMSprop", "Adagrad", "Adadelta", "Adamax", "Ftrl",
           "Nadam", "get", "serialize", "deserialize", "legacy", "schedules"]
