"""``tf.variable_creator_scope`` and the enums variables carry
(``tf.VariableSynchronization``, ``tf.VariableAggregation``).

Inside ``variable_creator_scope(creator)`` every ``tf.Variable(...)`` (and so every
variable ``tf.get_variable`` makes) calls ``creator(next_creator, **kwargs)``;
``next_creator(**kwargs)`` is the enclosing scope's creator, the innermost scope's
``creator`` running first, and at the bottom the plain constructor. Scopes are per
thread and per graph, as in TensorFlow.
"""

from __future__ import annotations

import contextlib
import enum
import inspect
from typing import Any, Callable, Iterator

from tensorfleet.framework.graph import get_default_graph


class VariableSynchronization(enum.Enum):
    """When a distributed variable's replicas are synchronized (kept on the variable;
    tensorfleet's replicated training decides its own synchronization)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How per-replica updates of a distributed variable combine (kept on the
    variable)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3

    def __hash__(self) -> int:
        return hash(self.value)


def check_enum(value: Any, kind: Any, what: str) -> Any:
    """``value`` as a member of ``kind``; ValueError naming ``what`` otherwise."""
    if isinstance(value, kind):
        return value
    raise ValueError(f"Invalid variable {what} mode: {value!r}; use a tf.{kind.__name__} "
                     f"member")


_STACK = "variable_creators"


@contextlib.contextmanager
def variable_creator_scope(variable_creator: Callable[..., Any]) -> Iterator[None]:
    """Makes ``variable_creator(next_creator, **kwargs)`` create the variables of this
    thread in the default graph for the duration of the block."""
    if not callable(variable_creator):
        raise TypeError(f"variable_creator must be callable, got {variable_creator!r}")
    with get_default_graph()._pushed(_STACK, variable_creator):
        yield


class VariableMeta(type):
    """Routes ``Variable(...)`` through the creators of the enclosing
    ``variable_creator_scope`` blocks."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        creators = list(get_default_graph()._stack(_STACK))
        if not creators or kwargs.get("variable_def") is not None:
            return super().__call__(*args, **kwargs)
        bound = inspect.signature(cls.__init__).bind(None, *args, **kwargs)
        bound.apply_defaults()
        params = dict(bound.arguments)
        params.pop("self", None)
        construct = super().__call__

        def base(**kw: Any) -> Any:
            return construct(**kw)

        def chain(level: int) -> Callable[..., Any]:
            if level < 0:
                return base
            inner = chain(level - 1)
            return lambda **kw: creators[level](inner, **kw)

        # The creator of the innermost scope runs first.
        return chain(len(creators) - 1)(**params)


__all__ = ["variable_creator_scope", "VariableSynchronization", "VariableAggregation",
           "VariableMeta", "check_enum"]
