"""``tf.contrib.training.HParams``: named hyperparameters with types, set from a string.

Each hyperparameter is an attribute whose type (int, float, bool, str or a list
of one of them) is fixed by its first value; ``parse("lr=0.1,layers=[64,32]")``
and ``override_from_dict`` convert new values to that type and refuse values
that do not fit, as TF 1.x does.
"""

from __future__ import annotations

import json
import numbers
import re
from typing import Any, Dict, Optional, Tuple

_ASSIGN = re.compile(r"\s*(?P<name>[A-Za-z_][\w]*)\s*=\s*"
                     r"(?:(?P<list>\[[^\]]*\])|(?P<value>[^,\[]*))\s*(?:,|$)")


def _param_type(value: Any) -> Tuple[type, bool]:
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError("HParams: a list hyperparameter needs at least one element to "
                             "fix its type")
        return type(value[0]), True
    return type(value), False


def _cast(name: str, kind: type, value: Any) -> Any:
    """``value`` as ``kind``: ints widen to floats; no other change of type (a
    number is not a bool, nor text a number)."""
    bad = ((issubclass(kind, str) and not isinstance(value, str))
           or (issubclass(kind, bool) != isinstance(value, bool))
           or (issubclass(kind, numbers.Integral) and not isinstance(value, numbers.Integral))
           or (issubclass(kind, numbers.Real) and not isinstance(value, numbers.Real)))
    if bad:
        raise ValueError(f"Could not cast hparam '{name}' of type '{kind.__name__}' from "
                         f"value {value!r}")
    return kind(value)


def _from_text(name: str, kind: type, text: str) -> Any:
    """A value of ``kind`` written as ``text`` in a ``parse`` string."""
    try:
        if kind is bool:
            if text.lower() in ("true", "1"):
                return True
            if text.lower() in ("false", "0"):
                return False
            raise ValueError(text)
        if kind is int:
            return int(text)
        if kind is float:
            return float(text)
    except ValueError:
        raise ValueError(f"Could not parse hparam '{name}' of type '{kind.__name__}' from "
                         f"{text!r}") from None
    return text


class HParams:
    """A set of named hyperparameters: ``HParams(learning_rate=0.1, layers=[64, 32])``."""

    _RESERVED = ("add_hparam", "set_hparam", "del_hparam", "parse", "override_from_dict",
                 "set_from_map", "values", "to_json", "parse_json", "get",
                 "get_model_structure", "set_model_structure")

    def __init__(self, hparam_def: Any = None, model_structure: Any = None, **kwargs: Any):
        if hparam_def is not None:
            raise ValueError("HParams: hparam_def (a protocol buffer) is not supported; pass "
                             "the hyperparameters as keyword arguments")
        self._hparam_types: Dict[str, Tuple[type, bool]] = {}
        self._model_structure = model_structure
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name: str, value: Any) -> None:
        """Adds hyperparameter ``name``; its type is ``value``'s.

        Raises:
          ValueError: if it exists already or shadows a method.
        """
        if name in self._hparam_types or name in self._RESERVED or name.startswith("_"):
            raise ValueError(f"Hyperparameter name is reserved or exists already: {name}")
        self._hparam_types[name] = _param_type(value)
        setattr(self, name, list(value) if isinstance(value, (list, tuple)) else value)

    def set_hparam(self, name: str, value: Any) -> None:
        """Sets ``name`` to ``value`` converted to its type.

        Raises:
          KeyError: for an unknown name. ValueError: for a value of another type.
        """
        if name not in self._hparam_types:
            raise KeyError(f"Unknown hyperparameter: {name}")
        kind, is_list = self._hparam_types[name]
        if is_list:
            if not isinstance(value, (list, tuple)):
                raise ValueError(f"Must not pass a scalar for list hyperparameter {name}")
            setattr(self, name, [_cast(name, kind, v) for v in value])
        else:
            if isinstance(value, (list, tuple)):
                raise ValueError(f"Must not pass a list for scalar hyperparameter {name}")
            setattr(self, name, _cast(name, kind, value))

    def del_hparam(self, name: str) -> None:
        """Removes ``name`` if it exists."""
        if name in self._hparam_types:
            del self._hparam_types[name]
            delattr(self, name)

    def parse(self, values: str) -> "HParams":
        """Sets hyperparameters from ``"name=value,other=[1,2]"``; returns self.

        Raises:
          ValueError: for malformed text, an unknown name or a value of another type.
        """
        updates: Dict[str, Any] = {}
        pos = 0
        text = values.strip()
        while pos < len(text):
            m = _ASSIGN.match(text, pos)
            if m is None or m.end() == pos:
                raise ValueError(f"Malformed hyperparameter value: {text[pos:]!r}")
            name = m.group("name")
            if name not in self._hparam_types:
                raise ValueError(f"Unknown hyperparameter type for {name}")
            kind, is_list = self._hparam_types[name]
            if m.group("list") is not None:
                if not is_list:
                    raise ValueError(f"Must not pass a list for scalar hyperparameter {name}")
                inner = m.group("list")[1:-1].strip()
                items = [v.strip() for v in inner.split(",")] if inner else []
                updates[name] = [_from_text(name, kind, v) for v in items]
            else:
                if is_list:
                    raise ValueError(f"Must pass a list for list hyperparameter {name}")
                updates[name] = _from_text(name, kind, m.group("value").strip())
            pos = m.end()
        return self.override_from_dict(updates)

    def override_from_dict(self, values_dict: Dict[str, Any]) -> "HParams":
        """Sets each ``name: value``; returns self."""
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    set_from_map = override_from_dict

    def values(self) -> Dict[str, Any]:
        """``{name: value}`` of every hyperparameter."""
        return {n: getattr(self, n) for n in self._hparam_types}

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, or ``default`` when there is none.

        Raises:
          ValueError: when ``default`` is not None and of another type.
        """
        if key not in self._hparam_types:
            return default
        if default is not None:
            kind, is_list = self._hparam_types[key]
            if is_list != isinstance(default, (list, tuple)):
                raise ValueError(f"Hparam {key} is {'a list' if is_list else 'a scalar'}; "
                                 f"the default {default!r} is not")
            for v in (default if is_list else [default]):
                _cast(key, kind, v)
        return getattr(self, key)

    def to_json(self, indent: Optional[int] = None, separators: Any = None,
                sort_keys: bool = False) -> str:
        """The values as JSON."""
        return json.dumps(self.values(), indent=indent, separators=separators,
                          sort_keys=sort_keys)

    def parse_json(self, values_json: str) -> "HParams":
        """Sets hyperparameters from a JSON object; returns self."""
        return self.override_from_dict(json.loads(values_json))

    def get_model_structure(self) -> Any:
        """The ``model_structure`` given at construction."""
        return self._model_structure

    def __contains__(self, key: str) -> bool:
        return key in self._hparam_types

    def __str__(self) -> str:
        return str(sorted(self.values().items()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self})"


__all__ = ["HParams"]
