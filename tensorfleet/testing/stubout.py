"""``tf.test.StubOutForTesting``: replace attributes of modules or classes for a test and
put them back afterwards."""

from __future__ import annotations

import inspect
from typing import Any, List, Tuple

_ABSENT = object()


class StubOutForTesting:
    """Records each replaced attribute so ``UnsetAll``/``SmartUnsetAll`` restore it (most
    recent first); ``CleanUp`` restores everything."""

    def __init__(self) -> None:
        self.cache: List[Tuple[Any, Any, str]] = []
        self.stubs: List[Tuple[Any, str, Any]] = []

    def Set(self, parent: Any, child_name: str, new_child: Any) -> None:  # noqa: N802
        """Replaces ``parent.child_name`` by ``new_child``; ``UnsetAll`` undoes it. A static
        or class method of a class stays one."""
        old = parent.__dict__.get(child_name, _ABSENT) if inspect.isclass(parent) \
            else getattr(parent, child_name, _ABSENT)
        if isinstance(old, staticmethod):
            new_child = staticmethod(new_child)
        elif isinstance(old, classmethod):
            new_child = classmethod(new_child)
        self.cache.append((parent, old, child_name))
        setattr(parent, child_name, new_child)

    def SmartSet(self, obj: Any, attr_name: str, new_attr: Any) -> None:  # noqa: N802
        """Replaces ``obj.attr_name`` by ``new_attr``, remembering the value found on ``obj``
        or the nearest class that defines it; ``SmartUnsetAll`` undoes it.

        Raises:
          AttributeError: ``obj`` has no attribute ``attr_name``.
        """
        if not hasattr(obj, attr_name):
            raise AttributeError(f"SmartSet: {obj!r} has no attribute {attr_name!r}")
        old = getattr(obj, attr_name)
        if inspect.isclass(obj):
            for cls in inspect.getmro(obj):
                if attr_name in cls.__dict__:
                    old = cls.__dict__[attr_name]
                    break
        self.stubs.append((obj, attr_name, old))
        setattr(obj, attr_name, new_attr)

    def SmartUnsetAll(self) -> None:  # noqa: N802
        """Restores what ``SmartSet`` replaced, most recent first."""
        for obj, attr_name, old in reversed(self.stubs):
            setattr(obj, attr_name, old)
        self.stubs = []

    def UnsetAll(self) -> None:  # noqa: N802
        """Restores what ``Set`` replaced, most recent first (an attribute that did not
        exist before is removed)."""
        for parent, old, child_name in reversed(self.cache):
            if old is _ABSENT:
                delattr(parent, child_name)
            else:
                setattr(parent, child_name, old)
        self.cache = []

    def CleanUp(self) -> None:  # noqa: N802
        """Restores everything replaced by either method."""
        self.SmartUnsetAll()
        self.UnsetAll()

    def __enter__(self) -> "StubOutForTesting":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.CleanUp()


__all__ = ["StubOutForTesting"]
