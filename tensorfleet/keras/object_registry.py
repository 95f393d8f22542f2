"""Keras's registry of custom objects.

``register_keras_serializable`` records a class or function under ``package>name``;
``custom_object_scope``/``CustomObjectScope`` adds objects for the duration of a
``with`` block (per thread); ``get_custom_objects`` is the global dictionary. The
serialization of objects to configs is in ``tensorfleet.keras.object_config``.
"""

from __future__ import annotations

import inspect
import threading
from typing import Any, Callable, Dict, Optional


_GLOBAL_CUSTOM_OBJECTS: Dict[str, Any] = {}
_GLOBAL_CUSTOM_NAMES: Dict[Any, str] = {}
_SCOPES = threading.local()


def _scope_stack() -> list:
    if not hasattr(_SCOPES, "stack"):
        _SCOPES.stack = []
    return _SCOPES.stack


class CustomObjectScope:
    """Within ``with CustomObjectScope({'name': obj}):`` the names resolve during
    deserialization (in this thread)."""

    def __init__(self, *args: Optional[Dict[str, Any]]):
        self.custom_objects: Dict[str, Any] = {}
        for objects in args:
            if objects is None:
                continue
            if not isinstance(objects, dict):
                raise TypeError(f"CustomObjectScope takes dictionaries of objects, got "
                                f"{type(objects).__name__}")
            self.custom_objects.update(objects)

    def __enter__(self) -> "CustomObjectScope":
        _scope_stack().append(self.custom_objects)
        return self

    def __exit__(self, *exc: Any) -> None:
        _scope_stack().pop()


custom_object_scope = CustomObjectScope


def get_custom_objects() -> Dict[str, Any]:
    """The global dictionary of custom objects (names to classes or functions); updating
    it registers objects for every later deserialization."""
    return _GLOBAL_CUSTOM_OBJECTS


def register_keras_serializable(package: str = "Custom",
                                name: Optional[str] = None) -> Callable[[Any], Any]:
    """A decorator registering a class or function as ``package>name`` (``name``
    defaulting to its ``__name__``).

    Raises:
      ValueError: ``package`` holds ``>``, a class without ``get_config``, or the name is
        registered already.
    """
    if ">" in package:
        raise ValueError(f"register_keras_serializable: package {package!r} may not hold "
                         f"'>'")

    def decorator(arg: Any) -> Any:
        registered = f"{package}>{name or arg.__name__}"
        if inspect.isclass(arg) and not hasattr(arg, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() "
                             "method.")
        if registered in _GLOBAL_CUSTOM_OBJECTS:
            raise ValueError(f"{registered} has already been registered to "
                             f"{_GLOBAL_CUSTOM_OBJECTS[registered]}")
        _GLOBAL_CUSTOM_OBJECTS[registered] = arg
        _GLOBAL_CUSTOM_NAMES[arg] = registered
        # layer configs (tensorfleet.keras.layers.base.config_value) read the name here
        arg._keras_registered_name = registered
        return arg

    return decorator


def get_registered_name(obj: Any) -> str:
    """The name ``obj`` is registered under, else its ``__name__``."""
    if obj in _GLOBAL_CUSTOM_NAMES:
        return _GLOBAL_CUSTOM_NAMES[obj]
    return getattr(obj, "_keras_registered_name", None) or obj.__name__


def get_registered_object(name: str, custom_objects: Optional[Dict[str, Any]] = None,
                          module_objects: Optional[Dict[str, Any]] = None) -> Any:
    """The object ``name`` stands for: from the open scopes (innermost first), the global
    custom objects, ``custom_objects``, then ``module_objects``; ``None`` if none has it."""
    for scope in reversed(_scope_stack()):
        if name in scope:
            return scope[name]
    for source in (_GLOBAL_CUSTOM_OBJECTS, custom_objects or {}, module_objects or {}):
        if name in source:
            return source[name]
    return None


def open_scopes() -> Dict[str, Any]:
    """The objects of the custom-object scopes open in this thread (inner ones win)."""
    return {k: v for scope in _scope_stack() for k, v in scope.items()}


__all__ = ["CustomObjectScope", "custom_object_scope", "get_custom_objects",
           "get_registered_name", "get_registered_object", "open_scopes",
           "register_keras_serializable"]
