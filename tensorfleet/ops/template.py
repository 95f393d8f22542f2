"""``tf.make_template`` (functions that share their variables between calls) and the
pre-1.0 ``tf.op_scope``.

A template's first call creates its variables with ``tf.get_variable`` inside a variable
scope named after the template (made unique, as ``variable_scope(None, default_name=
name)`` does); every later call re-enters that scope with ``reuse=True``, so it finds
the same variables wherever it is called from. The ops of every call go in a fresh name
scope named after the template under the caller's current name scope. A later call that
would create a new trainable variable (``tf.Variable`` instead of ``tf.get_variable``)
is an error, as in TensorFlow.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, List, Optional

from tensorfleet.framework.graph import GraphKeys, get_collection, get_default_graph, name_scope
from tensorfleet.ops.variable_scope import VariableScope, variable_scope


class Template:
    """A function whose calls share variables (what ``make_template`` returns)."""

    def __init__(self, name: str, func: Callable[..., Any], create_scope_now: bool = False,
                 unique_name: Optional[str] = None, custom_getter: Any = None):
        if not name or not isinstance(name, str):
            raise ValueError(f"make_template: name_ must be a non-empty string, got {name!r}")
        if not callable(func):
            raise TypeError(f"make_template: func_ must be callable, got {func!r}")
        self._name = name
        self._func = func
        self._unique_name = unique_name
        self._custom_getter = custom_getter
        self._variable_scope: Optional[VariableScope] = None
        self._variables_created = False
        if create_scope_now:
            self._variable_scope = self._create_scope()

    def _create_scope(self) -> VariableScope:
        with variable_scope(self._unique_name, default_name=self._name,
                            custom_getter=self._custom_getter) as vs:
            return vs

    def _trainable(self) -> List[Any]:
        return list(get_collection(GraphKeys.TRAINABLE_VARIABLES))

    def _call(self, args: Any, kwargs: Any) -> Any:
        before = self._trainable()
        result = self._func(*args, **kwargs)
        if self._variables_created:
            known = {id(v) for v in before}
            new = [v for v in self._trainable() if id(v) not in known]
            if new:
                raise ValueError(
                    f"Trainable variable created when calling template {self._name!r} after "
                    f"the first time, perhaps tf.Variable was used where tf.get_variable was "
                    f"meant: {[v.name for v in new]}")
        self._variables_created = True
        return result

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._variable_scope is None:
            with variable_scope(self._unique_name, default_name=self._name,
                                custom_getter=self._custom_getter) as vs:
                self._variable_scope = vs
                return self._call(args, kwargs)
        reuse = True if self._variables_created else None
        with variable_scope(self._variable_scope, reuse=reuse, auxiliary_name_scope=False):
            with get_default_graph().name_scope(self._name):
                return self._call(args, kwargs)

    @property
    def name(self) -> str:
        """The name the template was made with."""
        return self._name

    @property
    def func(self) -> Callable[..., Any]:
        """The wrapped function (with the template's keyword arguments bound)."""
        return self._func

    @property
    def variable_scope(self) -> Optional[VariableScope]:
        """The template's variable scope (None before the first call unless the template
        was made with ``create_scope_now_``)."""
        return self._variable_scope

    @property
    def variable_scope_name(self) -> Optional[str]:
        """The variable scope's name with a trailing ``/`` (None before it exists)."""
        return None if self._variable_scope is None else self._variable_scope.name + "/"

    def _collection(self, key: str) -> List[Any]:
        if self._variable_scope is None:
            return []
        prefix = self._variable_scope.name + "/"
        return [v for v in get_collection(key) if v.name.startswith(prefix)]

    @property
    def variables(self) -> List[Any]:
        """The global and local variables in the template's scope."""
        return self.global_variables + self.local_variables

    @property
    def global_variables(self) -> List[Any]:
        """The global variables in the template's scope."""
        return self._collection(GraphKeys.GLOBAL_VARIABLES)

    @property
    def local_variables(self) -> List[Any]:
        """The local variables in the template's scope."""
        return self._collection(GraphKeys.LOCAL_VARIABLES)

    @property
    def trainable_variables(self) -> List[Any]:
        """The trainable variables in the template's scope."""
        return self._collection(GraphKeys.TRAINABLE_VARIABLES)

    @property
    def non_trainable_variables(self) -> List[Any]:
        """The global variables in the template's scope that are not trainable."""
        trainable = {id(v) for v in self.trainable_variables}
        return [v for v in self.global_variables if id(v) not in trainable]


def make_template(name_: str, func_: Callable[..., Any], create_scope_now_: bool = False,
                  unique_name_: Optional[str] = None, custom_getter_: Any = None,
                  **kwargs: Any) -> Template:
    """Wraps ``func_`` so that every call shares the variables of the first call.

    Args:
      name_: the template's name: its variable scope (made unique) and its calls' name
        scopes.
      func_: the function; it must create variables with ``tf.get_variable``.
      create_scope_now_: capture the variable scope now (under the current variable
        scope) rather than at the first call.
      unique_name_: a fixed variable scope name instead of a uniquified ``name_``.
      custom_getter_: a custom getter for the template's variable scope.
      **kwargs: keyword arguments bound into every call of ``func_``.
    """
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    return Template(name_, func_, create_scope_now=create_scope_now_, unique_name=unique_name_,
                    custom_getter=custom_getter_)


def op_scope(values: Any, name: Optional[str], default_name: Optional[str] = None) -> Any:
    """``tf.op_scope(values, name, default_name)``: the pre-1.0 argument order of
    ``tf.name_scope(name, default_name, values)``."""
    return name_scope(name, default_name, values)


__all__ = ["Template", "make_template", "op_scope"]
