"""``tf.contrib.framework``: argument scopes, variable helpers and checkpoint helpers.

``arg_scope`` sets default keyword arguments for the functions decorated with
``add_arg_scope`` (the ``tf.contrib.layers`` functions and ``variable`` /
``model_variable``), so a model sets ``padding='SAME'`` once for all its
convolutions. The variable helpers select variables by scope regular
expression and name suffix, the way checkpoint-restoring code picks what to
restore; ``get_or_create_global_step`` is ``tf.train.get_or_create_global_step``.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from tensorfleet.framework.graph import GraphKeys, device as _device, get_collection, \
    get_default_graph
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import state_ops as S
from tensorfleet.ops.control_flow_ops import group
from tensorfleet.framework import nest  # noqa: F401
from tensorfleet.ops.variable_scope import VariableScope, get_variable
from tensorfleet.ops.variables import Variable
from tensorfleet.training.checkpoint_management import (  # noqa: F401
    list_variables, load_checkpoint, load_variable)
from tensorfleet.training.saver import Saver
from tensorfleet.training.training_util import (  # noqa: F401
    assert_global_step, create_global_step, get_global_step, get_or_create_global_step)
from tensorfleet.estimator.init_from_checkpoint import init_from_checkpoint  # noqa: F401,E402

logger = logging.getLogger(__name__)

ArgScope = Dict[str, Dict[str, Any]]

_local = threading.local()


# -- arg_scope -------------------------------------------------------------------------------

def _scope_stack() -> List[ArgScope]:
    if not hasattr(_local, "stack"):
        _local.stack = [{}]
    return _local.stack


def _key(func: Callable[..., Any]) -> str:
    return getattr(func, "_arg_scope_key", f"{func.__module__}.{func.__name__}")


def current_arg_scope() -> ArgScope:
    """The argument scope in effect: decorated-function key -> default kwargs."""
    return _scope_stack()[-1]


def has_arg_scope(func: Callable[..., Any]) -> bool:
    """Whether ``func`` was decorated with ``add_arg_scope``."""
    return getattr(func, "_arg_scope_key", None) is not None


def arg_scoped_arguments(func: Callable[..., Any]) -> List[str]:
    """The argument names of a function decorated with ``add_arg_scope``."""
    if not has_arg_scope(func):
        raise ValueError(f"{func!r} is not decorated with @add_arg_scope")
    return list(getattr(func, "_arg_scope_args"))


def add_arg_scope(func: Callable[..., Any]) -> Callable[..., Any]:
    """Decorates ``func`` so that ``arg_scope`` can set defaults for its keyword arguments.

    Arguments passed explicitly at the call always win over the scope's.
    """
    key = f"{func.__module__}.{func.__qualname__}"

    @functools.wraps(func)
    def scoped(*args: Any, **kwargs: Any) -> Any:
        defaults = current_arg_scope().get(key)
        if defaults:
            kwargs = {**defaults, **kwargs}
        return func(*args, **kwargs)

    code = func.__code__
    n_args = code.co_argcount + code.co_kwonlyargcount
    scoped._arg_scope_key = key  # type: ignore[attr-defined]
    scoped._arg_scope_args = code.co_varnames[:n_args]  # type: ignore[attr-defined]
    return scoped


@contextlib.contextmanager
def arg_scope(list_ops_or_scope: Union[Sequence[Callable[..., Any]], ArgScope, Callable[..., Any]],
              **kwargs: Any) -> Iterator[ArgScope]:
    """Sets default keyword arguments for the listed ``add_arg_scope`` functions.

    ``list_ops_or_scope`` is a list (or tuple) of decorated functions, or a scope
    yielded by an earlier ``arg_scope`` (then ``kwargs`` must be empty) to
    re-enter it. Nested scopes add to (and override) the enclosing ones.

    Raises:
      ValueError: for an undecorated function, or kwargs given with a scope dict.
      TypeError: for anything else as ``list_ops_or_scope``.
    """
    stack = _scope_stack()
    if isinstance(list_ops_or_scope, dict):
        if kwargs:
            raise ValueError("arg_scope: when re-entering a saved scope (a dict), no keyword "
                             "arguments may be given")
        new_scope: ArgScope = dict(list_ops_or_scope)
    else:
        ops = list_ops_or_scope
        if callable(ops) and not isinstance(ops, (list, tuple)):
            ops = [ops]
        if not isinstance(ops, (list, tuple)):
            raise TypeError(f"arg_scope: list_ops_or_scope must be a list/tuple of functions "
                            f"or a scope dict, got {type(list_ops_or_scope).__name__}")
        new_scope = dict(stack[-1])
        for op in ops:
            if not has_arg_scope(op):
                raise ValueError(f"arg_scope: {getattr(op, '__name__', op)!r} is not "
                                 f"decorated with @add_arg_scope")
            k = _key(op)
            new_scope[k] = {**new_scope.get(k, {}), **kwargs}
    stack.append(new_scope)
    try:
        yield new_scope
    finally:
        stack.pop()


# -- variables -------------------------------------------------------------------------------

def _scope_name(scope: Any) -> Optional[str]:
    return scope.name if isinstance(scope, VariableScope) else scope


def get_variables(scope: Any = None, suffix: Optional[str] = None,
                  collection: str = GraphKeys.GLOBAL_VARIABLES) -> List[Any]:
    """Variables of ``collection`` whose name matches the regex ``scope`` from its start and
    (if given) whose op name ends with ``suffix``."""
    scope = _scope_name(scope)
    if suffix is not None:
        suffix = suffix if ":" in suffix else suffix + ":"
        scope = (scope or "") + ".*" + suffix
    return get_collection(collection, scope)


def get_model_variables(scope: Any = None, suffix: Optional[str] = None) -> List[Any]:
    """``get_variables`` over ``MODEL_VARIABLES``."""
    return get_variables(scope, suffix, GraphKeys.MODEL_VARIABLES)


def get_local_variables(scope: Any = None, suffix: Optional[str] = None) -> List[Any]:
    """``get_variables`` over ``LOCAL_VARIABLES``."""
    return get_variables(scope, suffix, GraphKeys.LOCAL_VARIABLES)


def get_trainable_variables(scope: Any = None, suffix: Optional[str] = None) -> List[Any]:
    """``get_variables`` over ``TRAINABLE_VARIABLES``."""
    return get_variables(scope, suffix, GraphKeys.TRAINABLE_VARIABLES)


def get_variables_by_name(given_name: str, scope: Any = None) -> List[Any]:
    """Global variables whose op name ends with ``given_name``."""
    return get_variables(scope=scope, suffix=given_name)


def get_variables_by_suffix(suffix: str, scope: Any = None) -> List[Any]:
    """Global variables whose op name ends with ``suffix``."""
    return get_variables(scope=scope, suffix=suffix)


def get_variable_full_name(var: Any) -> str:
    """The name a variable is saved under in a checkpoint (its op name)."""
    return var.op.name


def get_variables_to_restore(include: Optional[Sequence[Any]] = None,
                             exclude: Optional[Sequence[Any]] = None) -> List[Any]:
    """Global variables under the ``include`` scopes (all when None) minus those under the
    ``exclude`` scopes, in creation order; the usual ``var_list`` of a restoring ``Saver``.

    Raises:
      TypeError: when include/exclude is a string instead of a list of scopes.
    """
    for what, v in (("include", include), ("exclude", exclude)):
        if isinstance(v, str):
            raise TypeError(f"get_variables_to_restore: {what} must be a list of scope names, "
                            f"got the string {v!r}")
    if include is None:
        chosen = get_variables()
    else:
        chosen = [v for scope in include for v in get_variables(scope)]
    dropped = {id(v) for scope in (exclude or []) for v in get_variables(scope)}
    return [v for v in chosen if id(v) not in dropped]


def get_unique_variable(var_op_name: str) -> Any:
    """The global variable whose op name is exactly ``var_op_name``.

    Raises:
      ValueError: when no variable, or no variable with exactly that name, exists.
    """
    candidates = get_variables(scope=var_op_name)
    if not candidates:
        raise ValueError(f"Couldn't find variable {var_op_name}")
    for c in candidates:
        if c.op.name == var_op_name:
            return c
    raise ValueError(f"Variable {var_op_name} does not uniquely identify a variable")


def _collections(collections: Optional[Sequence[str]], *required: str) -> List[str]:
    out = list(collections or [])
    for c in required:
        if c not in out:
            out.append(c)
    return out


@add_arg_scope
def variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
             regularizer: Any = None, trainable: bool = True,
             collections: Optional[Sequence[str]] = None, caching_device: Optional[str] = None,
             device: Any = None, partitioner: Any = None, custom_getter: Any = None,
             use_resource: Optional[bool] = None) -> Any:
    """``get_variable`` that also adds the variable to ``collections`` and places it on
    ``device`` (a string or device function) when given."""
    colls = _collections(collections, GraphKeys.GLOBAL_VARIABLES)
    with _device(device if device is not None else ""):
        return get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                            regularizer=regularizer, trainable=trainable, collections=colls,
                            caching_device=caching_device, partitioner=partitioner,
                            custom_getter=custom_getter, use_resource=use_resource)


@add_arg_scope
def model_variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                   regularizer: Any = None, trainable: bool = True,
                   collections: Optional[Sequence[str]] = None,
                   caching_device: Optional[str] = None, device: Any = None,
                   partitioner: Any = None, custom_getter: Any = None,
                   use_resource: Optional[bool] = None) -> Any:
    """``variable`` that is also a model variable (``MODEL_VARIABLES``)."""
    colls = _collections(collections, GraphKeys.MODEL_VARIABLES)
    return variable(name, shape=shape, dtype=dtype, initializer=initializer,
                    regularizer=regularizer, trainable=trainable, collections=colls,
                    caching_device=caching_device, device=device, partitioner=partitioner,
                    custom_getter=custom_getter, use_resource=use_resource)


def add_model_variable(var: Any) -> None:
    """Adds ``var`` to ``MODEL_VARIABLES`` once."""
    ref = get_default_graph().get_collection_ref(GraphKeys.MODEL_VARIABLES)
    if not any(v is var for v in ref):
        ref.append(var)


def local_variable(initial_value: Any, validate_shape: bool = True,
                   name: Optional[str] = None, use_resource: Optional[bool] = None) -> Variable:
    """A non-trainable variable in ``LOCAL_VARIABLES`` (not checkpointed)."""
    return Variable(initial_value, trainable=False, collections=[GraphKeys.LOCAL_VARIABLES],
                    validate_shape=validate_shape, name=name, use_resource=use_resource)


# -- restoring from checkpoints --------------------------------------------------------------

def _name_map(var_list: Any) -> Dict[str, Any]:
    if isinstance(var_list, dict):
        return dict(var_list)
    if var_list is None:
        raise ValueError("a var_list (list or dict of variables) is required")
    return {v.op.name: v for v in var_list}


def assign_from_checkpoint(model_path: str, var_list: Any,
                           ignore_missing_vars: bool = False) -> Tuple[Any, Dict[Any, Any]]:
    """``(assign_op, feed_dict)`` that loads the ``var_list`` variables (a list, or a dict
    from checkpoint name to variable) from the checkpoint ``model_path``.

    Raises:
      ValueError: when a variable is missing from the checkpoint (unless
        ``ignore_missing_vars``) or its shape differs from the saved one.
    """
    reader = load_checkpoint(model_path)
    shapes = reader.get_variable_to_shape_map()
    assigns, feed = [], {}
    for ckpt_name, var in _name_map(var_list).items():
        if ckpt_name not in shapes:
            if ignore_missing_vars:
                logger.warning("variable %s is missing from checkpoint %s", ckpt_name,
                               model_path)
                continue
            raise ValueError(f"Tensor {ckpt_name} is not found in {model_path} checkpoint")
        value = reader.get_tensor(ckpt_name)
        if var.shape.is_fully_defined() and list(value.shape) != var.shape.as_list():
            raise ValueError(f"Total size of new array must be unchanged for {ckpt_name}: "
                             f"checkpoint has shape {list(value.shape)}, variable "
                             f"{var.op.name} has {var.shape.as_list()}")
        ph = A.placeholder(var.dtype.base_dtype, value.shape,
                           name="placeholder/" + var.op.name)
        assigns.append(S.assign(var, ph))
        feed[ph] = value
    return group(*assigns, name="assign_from_checkpoint"), feed


def assign_from_checkpoint_fn(model_path: str, var_list: Any, ignore_missing_vars: bool = False,
                              reshape_variables: bool = False) -> Optional[Callable[[Any], None]]:
    """A function ``callback(session)`` restoring ``var_list`` from ``model_path``.

    With ``ignore_missing_vars`` variables absent from the checkpoint are skipped
    (with a warning); None is returned when nothing is left to restore.

    Raises:
      ValueError: for an empty ``var_list``.
    """
    if not var_list:
        raise ValueError("assign_from_checkpoint_fn: var_list cannot be empty")
    names = _name_map(var_list)
    if ignore_missing_vars:
        shapes = load_checkpoint(model_path).get_variable_to_shape_map()
        missing = [n for n in names if n not in shapes]
        for n in missing:
            logger.warning("variable %s is missing from checkpoint %s", n, model_path)
        names = {n: v for n, v in names.items() if n in shapes}
        if not names:
            logger.warning("no variables to restore from %s", model_path)
            return None
    saver = Saver(names, reshape=reshape_variables)

    def callback(session: Any) -> None:
        saver.restore(session, model_path)

    return callback


def get_name_scope() -> str:
    """The current name scope of the default graph (``""`` at the root)."""
    return get_default_graph().get_name_scope()


def _variable_named(var_name: str) -> Any:
    """The global variable ``var_name``: the only one its name matches as a scope
    prefix, else the one whose op name equals it."""
    found = get_collection(GraphKeys.GLOBAL_VARIABLES, var_name)
    if not found:
        raise ValueError(f"Variable {var_name} wasn't found")
    if len(found) == 1:
        return found[0]
    exact = [v for v in found if v.op.name == var_name]
    if not exact:
        raise ValueError(f"Variable {var_name} doesn't uniquely identify a variable")
    return exact[0]


def assign_from_values(var_names_to_values: Dict[str, Any]) -> Tuple[Any, Dict[Any, Any]]:
    """``(assign_op, feed_dict)`` that set each named global variable to its value
    (reshaped to the variable's shape) when ``assign_op`` runs with ``feed_dict``.

    Raises:
      ValueError: a name matches no variable, or several and none exactly.
    """
    assigns, feed = [], {}
    for var_name, value in var_names_to_values.items():
        var = _variable_named(var_name)
        ph = A.placeholder(var.dtype.base_dtype, var.get_shape(),
                           name="placeholder/" + var.op.name)
        assigns.append(S.assign(var, ph))
        feed[ph] = np.asarray(value).reshape(var.get_shape().as_list())
    return group(*assigns, name="assign_from_values"), feed


def assign_from_values_fn(var_names_to_values: Dict[str, Any]) -> Callable[[Any], None]:
    """A function ``callback(session)`` running ``assign_from_values``' assignment."""
    assign_op, feed = assign_from_values(var_names_to_values)

    def callback(session: Any) -> None:
        session.run(assign_op, feed)

    return callback


__all__ = ["arg_scope", "add_arg_scope", "current_arg_scope", "has_arg_scope",
           "arg_scoped_arguments", "get_variables", "get_model_variables",
           "get_local_variables", "get_trainable_variables", "get_variables_by_name",
           "get_variables_by_suffix", "get_variable_full_name", "get_variables_to_restore",
           "get_unique_variable", "variable", "model_variable", "add_model_variable",
           "local_variable", "assign_from_checkpoint", "assign_from_checkpoint_fn",
           "list_variables", "load_checkpoint", "load_variable", "assert_global_step",
           "create_global_step", "get_global_step", "get_or_create_global_step"]
__all__ += ["get_name_scope", "assign_from_values", "assign_from_values_fn",
            "init_from_checkpoint"]
