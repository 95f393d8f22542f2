"""``tf.Module``: a named container of variables and other modules, found by walking its
attributes, so a model built from modules lists its variables without collections."""

from __future__ import annotations

import functools
import re
from typing import Any, Callable, List, Optional, Set, Tuple

from tensorfleet.framework.graph import name_scope
from tensorfleet.ops.variables import Variable


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


class Module:
    """Args:
      name: the module's name (default: its class name in snake case); also the name
        scope its ops and variables are created under through ``name_scope``.

    Raises:
      ValueError: a name that is not a valid scope name.
    """

    def __init__(self, name: Optional[str] = None):
        name = _snake(type(self).__name__) if name is None else name
        if not isinstance(name, str) or not _VALID_NAME.match(name):
            raise ValueError(f"{name!r} is not a valid module name: it must start with a "
                             f"letter or underscore and hold only letters, digits, '_', "
                             f"'.' and '-'")
        self._name = name
        with name_scope(name) as scope:
            self._scope_name = scope

    @property
    def name(self) -> str:
        return self._name

    @property
    def name_scope(self) -> Any:
        """A context entering this module's (unique, absolute) name scope."""
        return name_scope(self._scope_name)

    def _walk(self, predicate: Callable[[Any], bool], recurse: bool = True) -> List[Any]:
        out: List[Any] = []
        seen: Set[int] = {id(self)}

        def visit(value: Any) -> None:
            if isinstance(value, (list, tuple)):
                for v in value:
                    visit(v)
                return
            if isinstance(value, dict):
                for k in sorted(value, key=str):
                    visit(value[k])
                return
            if id(value) in seen:
                return
            seen.add(id(value))
            if predicate(value):
                out.append(value)
            if recurse and isinstance(value, Module):
                for k in sorted(vars(value)):
                    visit(vars(value)[k])

        for key in sorted(vars(self)):
            visit(vars(self)[key])
        return out

    @property
    def variables(self) -> Tuple[Any, ...]:
        """Every variable held by this module and its submodules (each once)."""
        return tuple(self._walk(lambda v: isinstance(v, Variable)))

    @property
    def trainable_variables(self) -> Tuple[Any, ...]:
        """The trainable ones among ``variables``."""
        return tuple(v for v in self.variables if getattr(v, "trainable", True))

    @property
    def submodules(self) -> Tuple["Module", ...]:
        """Every module held by this module, directly or through its submodules."""
        return tuple(self._walk(lambda v: isinstance(v, Module)))

    @classmethod
    def with_name_scope(cls, method: Callable[..., Any]) -> Callable[..., Any]:
        """Decorates a method to run inside its module's name scope."""
        @functools.wraps(method)
        def wrapper(self: "Module", *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)
        return wrapper

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._name!r}>"


__all__ = ["Module"]
