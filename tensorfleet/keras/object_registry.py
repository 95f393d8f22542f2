"""Keras's registry of custom objects and the serialization of objects to configs.

``register_keras_serializable`` records a class or function under ``package>name``;
``custom_object_scope``/``CustomObjectScope`` adds objects for the duration of a
``with`` block (per thread); ``get_custom_objects`` is the global dictionary.
``serialize_keras_object``/``deserialize_keras_object`` write and read the current
config format (``module``, ``class_name``, ``config``, ``registered_name``); the
``legacy`` pair writes and reads the TF 1.x format (``class_name``, ``config``). Classes
named in a config are looked up in the registries and the Keras namespaces only: a config
never makes the program import a module.
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


def _keras_namespaces() -> list:
    # the namespaces whose classes and functions configs may name; imported here, not at
    # the top, as the model and saving modules import this registry
    from tensorfleet.keras import (activations, callbacks, initializers, layers, losses,
                                   metrics, models, optimizers, regularizers)
    return [layers, initializers, regularizers, activations, losses, metrics, optimizers,
            callbacks, models]


def _lookup(name: str, custom_objects: Optional[Dict[str, Any]],
            module_objects: Optional[Dict[str, Any]], printable: str) -> Any:
    obj = get_registered_object(name, custom_objects, module_objects)
    if obj is None:
        short = name.rpartition(">")[2]
        for ns in _keras_namespaces():
            obj = getattr(ns, short, None)
            if obj is not None and (inspect.isclass(obj) or callable(obj)):
                break
            obj = None
    if obj is None:
        raise ValueError(f"Unknown {printable}: {name!r}. Please ensure you are using a "
                         f"`keras.utils.custom_object_scope` and that this object is "
                         f"included in the scope, or registered with "
                         f"register_keras_serializable.")
    return obj


def _from_config(cls: Any, config: Any, custom_objects: Optional[Dict[str, Any]]) -> Any:
    if not hasattr(cls, "from_config"):
        if not isinstance(config, dict):
            raise ValueError(f"{cls.__name__}: a config must be a dict, got {config!r}")
        return cls(**config)
    params = inspect.signature(cls.from_config).parameters
    if "custom_objects" in params:
        scopes = {k: v for s in _scope_stack() for k, v in s.items()}
        return cls.from_config(config, custom_objects={**_GLOBAL_CUSTOM_OBJECTS, **scopes,
                                                       **(custom_objects or {})})
    with CustomObjectScope(custom_objects):
        return cls.from_config(config)


def _plain(value: Any, legacy: bool) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v, legacy) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v, legacy) for k, v in value.items()}
    if hasattr(value, "tolist") and hasattr(value, "dtype"):  # numpy scalars and arrays
        return value.tolist()
    if hasattr(value, "as_numpy_dtype") or hasattr(value, "base_dtype"):  # dtypes
        return value.name
    return (legacy_serialize_keras_object if legacy else serialize_keras_object)(value)


def serialize_keras_object(obj: Any) -> Any:
    """``obj`` as a config: plain values as they are; an object with ``get_config`` as
    ``{"module", "class_name", "config", "registered_name"}``; a function or class by
    its (registered) name.

    Raises:
      ValueError: an object that can be none of these.
    """
    if obj is None or isinstance(obj, (bool, int, float, str, list, tuple, dict)):
        return _plain(obj, legacy=False)
    if hasattr(obj, "get_config") and not inspect.isclass(obj):
        cls = type(obj)
        registered = _GLOBAL_CUSTOM_NAMES.get(cls)
        return {"module": cls.__module__, "class_name": cls.__name__,
                "config": _plain(obj.get_config(), legacy=False),
                "registered_name": registered}
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or inspect.isclass(obj):
        return {"module": obj.__module__,
                "class_name": "function" if not inspect.isclass(obj) else "class",
                "config": get_registered_name(obj),
                "registered_name": "function" if not inspect.isclass(obj) else "class"}
    raise ValueError(f"Cannot serialize {obj!r}: it has no get_config() and is not a "
                     f"function or class")


def deserialize_keras_object(config: Any, custom_objects: Optional[Dict[str, Any]] = None,
                             safe_mode: bool = True, module_objects: Any = None,
                             printable_module_name: str = "object", **kwargs: Any) -> Any:
    """The object a config of ``serialize_keras_object`` (or of its legacy form, or a
    name) describes, with classes and functions looked up in the scopes, the registry,
    ``custom_objects``, ``module_objects`` and the Keras namespaces.

    Raises:
      ValueError: an unknown name, a malformed config, or ``safe_mode=False`` (lambdas
        are never deserialized here) or unknown keyword arguments.
    """
    if kwargs:
        raise ValueError(f"deserialize_keras_object: unknown arguments {sorted(kwargs)}")
    if not safe_mode:
        raise ValueError("deserialize_keras_object: safe_mode=False (deserializing lambdas "
                         "from bytecode) is not supported")
    if config is None or isinstance(config, (bool, int, float)):
        return config
    if isinstance(config, str):
        obj = _lookup(config, custom_objects, module_objects, printable_module_name)
        return obj
    if isinstance(config, (list, tuple)):
        return [deserialize_keras_object(c, custom_objects, module_objects=module_objects)
                for c in config]
    if not isinstance(config, dict) or "class_name" not in config:
        if isinstance(config, dict):
            return config
        raise ValueError(f"Could not interpret serialized {printable_module_name}: "
                         f"{config!r}")
    class_name = config["class_name"]
    inner = config.get("config")
    if class_name in ("function", "class") and isinstance(inner, str):
        return _lookup(inner, custom_objects, module_objects, printable_module_name)
    name = config.get("registered_name") or class_name
    if name in ("function", "class"):
        name = class_name
    cls = _lookup(name if get_registered_object(name, custom_objects, module_objects)
                  else class_name, custom_objects, module_objects, printable_module_name)
    return _from_config(cls, inner if inner is not None else {}, custom_objects)


def legacy_serialize_keras_object(instance: Any) -> Any:
    """``instance`` in the TF 1.x format: ``{"class_name", "config"}`` for an object with
    ``get_config``, the (registered) name of a function or class.

    Raises:
      ValueError: an object that is neither.
    """
    if instance is None:
        return None
    if hasattr(instance, "get_config") and not inspect.isclass(instance):
        return {"class_name": get_registered_name(type(instance)),
                "config": _plain(instance.get_config(), legacy=True)}
    if hasattr(instance, "__name__"):
        return get_registered_name(instance)
    raise ValueError(f"Cannot serialize {instance!r}: it has no get_config() and no name")


def legacy_deserialize_keras_object(identifier: Any, module_objects: Any = None,
                                    custom_objects: Optional[Dict[str, Any]] = None,
                                    printable_module_name: str = "object") -> Any:
    """The object a TF 1.x config or name describes; a class named alone is
    instantiated with no arguments, a function is returned as it is.

    Raises:
      ValueError: an unknown name or a config without ``class_name``/``config``.
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        if "class_name" not in identifier or "config" not in identifier:
            raise ValueError(f"Improper config format for {identifier!r}: it needs "
                             f"'class_name' and 'config'")
        cls = _lookup(identifier["class_name"], custom_objects, module_objects,
                      printable_module_name)
        return _from_config(cls, identifier["config"], custom_objects)
    if isinstance(identifier, str):
        obj = _lookup(identifier, custom_objects, module_objects, printable_module_name)
        return obj() if inspect.isclass(obj) else obj
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret serialized {printable_module_name}: "
                     f"{identifier!r}")


__all__ = ["CustomObjectScope", "custom_object_scope", "deserialize_keras_object",
           "get_custom_objects", "get_registered_name", "get_registered_object",
           "legacy_deserialize_keras_object", "legacy_serialize_keras_object",
           "register_keras_serializable", "serialize_keras_object"]
