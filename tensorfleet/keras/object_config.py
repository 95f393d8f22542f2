"""Objects as configs and back: ``serialize_keras_object``/``deserialize_keras_object``
write and read the current format (``module``, ``class_name``, ``config``,
``registered_name``); the ``legacy`` pair writes and reads the TF 1.x format
(``class_name``, ``config``). Classes and functions named in a config are looked up in
the custom-object scopes, the registry (``tensorfleet.keras.object_registry``), the
objects the caller gives and the Keras namespaces only: a config never makes the program
import a module.
"""

from __future__ import annotations

import inspect
from typing import Any, Dict, Optional

from tensorfleet.keras import (activations, callbacks, initializers, layers, losses, metrics,
                               models, optimizers, regularizers)
from tensorfleet.keras.object_registry import (CustomObjectScope, get_custom_objects,
                                               get_registered_name, get_registered_object,
                                               open_scopes)


def _keras_namespaces() -> list:
    # the namespaces whose classes and functions configs may name
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
        return cls.from_config(config, custom_objects={**get_custom_objects(), **open_scopes(),
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
        registered = (get_registered_name(cls) if get_registered_name(cls) != cls.__name__ else None)
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



__all__ = ["deserialize_keras_object", "legacy_deserialize_keras_object",
           "legacy_serialize_keras_object", "serialize_keras_object"]
