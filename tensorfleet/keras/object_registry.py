"""Keras's registry of custom objects: classes and functions a config names that are not
Keras's own. ``register_keras_serializable`` adds one under ``"package>name"``;
``custom_object_scope`` adds some for a block; ``get_custom_objects`` is the global dict.
``serialize_keras_object``/``deserialize_keras_object`` turn an object into its
``{"class_name", "config"}`` form and back."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, List, Optional

from tensorfleet.keras.layers.base import config_value

_GLOBAL: Dict[str, Any] = {}
_SCOPES: List[Dict[str, Any]] = []


def get_custom_objects() -> Dict[str, Any]:
    """The global dict of custom objects (name -> class or function); edits take effect."""
    return _GLOBAL


class CustomObjectScope:
    """A block in which the given dicts' objects are known by name to deserialization."""

    def __init__(self, *custom_objects: Optional[Dict[str, Any]]):
        self._objects: Dict[str, Any] = {}
        for d in custom_objects:
            self._objects.update(d or {})

    def __enter__(self) -> "CustomObjectScope":
        _SCOPES.append(self._objects)
        return self

    def __exit__(self, *exc: Any) -> None:
        _SCOPES.remove(self._objects)


custom_object_scope = CustomObjectScope


def register_keras_serializable(package: str = "Custom",
                                name: Optional[str] = None) -> Callable[[Any], Any]:
    """A decorator registering a class or function as ``"package>name"`` (``name``
    defaults to its own); classes must have ``get_config``.

    Raises:
      ValueError: a class without ``get_config`` or a name already registered.
    """
    def decorate(obj: Any) -> Any:
        key = f"{package}>{name or obj.__name__}"
        if inspect.isclass(obj) and not hasattr(obj, "get_config"):
            raise ValueError(f"Cannot register {obj.__name__}: it has no get_config method")
        if key in _GLOBAL:
            raise ValueError(f"{key} has already been registered to {_GLOBAL[key]}")
        _GLOBAL[key] = obj
        obj._keras_registered_name = key
        return obj
    return decorate


def get_registered_name(obj: Any) -> str:
    """The name ``obj`` is registered under, else its own name."""
    return getattr(obj, "_keras_registered_name", None) or obj.__name__


def get_registered_object(name: str, custom_objects: Optional[Dict[str, Any]] = None,
                          module_objects: Optional[Dict[str, Any]] = None) -> Any:
    """The object known as ``name``: in a custom-object scope, the global registry,
    ``custom_objects``, then ``module_objects`` (None if nowhere)."""
    for scope in reversed(_SCOPES):
        if name in scope:
            return scope[name]
    if name in _GLOBAL:
        return _GLOBAL[name]
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if module_objects and name in module_objects:
        return module_objects[name]
    return None


def serialize_keras_object(instance: Any) -> Any:
    """A Keras object as ``{"class_name", "config"}``, a function as its (registered)
    name; None stays None.

    Raises:
      ValueError: an object with neither form.
    """
    if instance is None:
        return None
    return config_value(instance, "serialize_keras_object")


def deserialize_keras_object(identifier: Any, module_objects: Optional[Dict[str, Any]] = None,
                             custom_objects: Optional[Dict[str, Any]] = None,
                             printable_module_name: str = "object") -> Any:
    """The object a ``serialize_keras_object`` result names: a class built by its
    ``from_config`` (or constructor) from the config, or a function by name.

    Raises:
      ValueError: a name found nowhere, or a malformed config.
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        if "class_name" not in identifier or not isinstance(identifier.get("config", {}),
                                                             dict):
            raise ValueError(f"Improper config format for {printable_module_name}: "
                             f"{identifier!r}")
        name = identifier["class_name"]
        cls = get_registered_object(name, custom_objects, module_objects)
        if cls is None:
            raise ValueError(f"Unknown {printable_module_name}: {name!r}. Please ensure it "
                             f"is registered or passed in custom_objects.")
        cfg = dict(identifier.get("config") or {})
        if hasattr(cls, "from_config"):
            return cls.from_config(cfg)
        return cls(**cfg)
    if isinstance(identifier, str):
        obj = get_registered_object(identifier, custom_objects, module_objects)
        if obj is None:
            raise ValueError(f"Unknown {printable_module_name}: {identifier!r}")
        return obj
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret serialized {printable_module_name}: "
                     f"{identifier!r}")


__all__ = ["get_custom_objects", "CustomObjectScope", "custom_object_scope",
           "register_keras_serializable", "get_registered_name", "get_registered_object",
           "serialize_keras_object", "deserialize_keras_object"]
