"""``tf.test``'s test decorators."""

from __future__ import annotations

import functools
import unittest
from typing import Any, Callable, Optional


def disable_with_predicate(pred: Callable[[], bool], skip_message: str) -> Callable:
    """Decorates a test method (or class) to be skipped with ``skip_message`` when
    ``pred()`` is true at the time the test runs."""
    if not callable(pred):
        raise TypeError(f"disable_with_predicate: pred must be callable, got {pred!r}")

    def decorator(func: Any) -> Any:
        if isinstance(func, type):
            return unittest.skipIf(pred(), skip_message)(func)

        @functools.wraps(func)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            if pred():
                self.skipTest(skip_message)
            return func(self, *args, **kwargs)
        return wrapper
    return decorator


def with_eager_op_as_function(cls: Optional[type] = None,
                              only_as_function: bool = False) -> Any:
    """TensorFlow runs the decorated test class once more with eager ops wrapped as
    functions. tensorfleet runs ops one way only (in graphs, through ``Session.run``), so
    the class's tests run once, as written, either way ``only_as_function`` is set."""
    if not isinstance(only_as_function, bool):
        raise TypeError(f"only_as_function must be a bool, got {only_as_function!r}")

    def decorator(c: type) -> type:
        if not isinstance(c, type):
            raise TypeError(f"with_eager_op_as_function decorates a test class, got {c!r}")
        return c
    return decorator if cls is None else decorator(cls)


__all__ = ["disable_with_predicate", "with_eager_op_as_function"]
