"""Variable scopes and ``tf.get_variable``: variables named by scope, shared on request.

Each graph keeps a store of the variables made by ``get_variable``, keyed by
their full name; a variable scope's ``reuse`` flag decides whether asking for an
existing name returns it (reuse), is an error (no reuse) or either (AUTO_REUSE).
Variable names follow variable scopes only; op names follow name scopes.
"""

from __future__ import annotations

import contextlib
import enum
import threading
import weakref
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Graph, GraphKeys, Tensor, get_default_graph
from tensorfleet.framework.tensor_shape import TensorShape, as_shape
from tensorfleet.ops import array_ops, init_ops
from tensorfleet.ops import partitioned_variables as _pv
from tensorfleet.ops.variables import Variable


class _ReuseMode(enum.Enum):
    """Reuse modes beyond True/False."""

    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE


class VariableScope:
    """The settings that ``get_variable`` applies under a ``variable_scope``: name prefix,
    reuse flag, default initializer, regularizer, dtype and others."""

    def __init__(self, reuse: Any, name: str = "", initializer: Any = None,
                 regularizer: Optional[Callable[[Any], Any]] = None,
                 caching_device: Optional[str] = None, partitioner: Any = None,
                 custom_getter: Optional[Callable[..., Any]] = None,
                 name_scope: str = "", dtype: Any = _dtypes.float32,
                 use_resource: Optional[bool] = None, constraint: Any = None):
        self._name = name
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = _dtypes.as_dtype(dtype)
        self._use_resource = use_resource
        self._constraint = constraint

    @property
    def name(self) -> str:
        return self._name

    @property
    def original_name_scope(self) -> str:
        """The name scope opened with this variable scope (with a trailing ``/``)."""
        return self._name_scope

    @property
    def reuse(self) -> Any:
        return self._reuse

    @property
    def initializer(self) -> Any:
        return self._initializer

    @property
    def regularizer(self) -> Any:
        return self._regularizer

    @property
    def dtype(self) -> _dtypes.DType:
        return self._dtype

    @property
    def caching_device(self) -> Optional[str]:
        return self._caching_device

    @property
    def partitioner(self) -> Any:
        return self._partitioner

    @property
    def custom_getter(self) -> Any:
        return self._custom_getter

    @property
    def use_resource(self) -> Optional[bool]:
        return self._use_resource

    @property
    def constraint(self) -> Any:
        return self._constraint

    def reuse_variables(self) -> None:
        """Makes later ``get_variable`` calls in this scope return existing variables."""
        self._reuse = True

    def set_initializer(self, initializer: Any) -> None:
        """Sets the default initializer of this scope."""
        self._initializer = initializer

    def set_regularizer(self, regularizer: Any) -> None:
        """Sets the default regularizer of this scope."""
        self._regularizer = regularizer

    def set_dtype(self, dtype: Any) -> None:
        """Sets the default dtype of this scope."""
        self._dtype = _dtypes.as_dtype(dtype)

    def set_caching_device(self, caching_device: Optional[str]) -> None:
        """Sets the default caching device of this scope."""
        self._caching_device = caching_device

    def set_partitioner(self, partitioner: Any) -> None:
        """Sets the default partitioner of this scope."""
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter: Any) -> None:
        """Sets the custom getter of this scope."""
        self._custom_getter = custom_getter

    def set_use_resource(self, use_resource: Optional[bool]) -> None:
        self._use_resource = use_resource

    def get_variable(self, name: str, shape: Any = None, dtype: Any = None,
                     initializer: Any = None, regularizer: Any = None,
                     reuse: Any = None, trainable: bool = True,
                     collections: Optional[List[str]] = None,
                     caching_device: Optional[str] = None, partitioner: Any = None,
                     validate_shape: bool = True, use_resource: Optional[bool] = None,
                     custom_getter: Optional[Callable[..., Any]] = None,
                     constraint: Any = None) -> Variable:
        """``get_variable`` with this scope's defaults; see ``tf.get_variable``."""
        full_name = f"{self._name}/{name}" if self._name else name
        if reuse is None or reuse is False:
            reuse = self._reuse
        if dtype is None:
            dtype = self._dtype
        if initializer is None:
            initializer = self._initializer
        if regularizer is None:
            regularizer = self._regularizer
        if caching_device is None:
            caching_device = self._caching_device
        if partitioner is None:
            partitioner = self._partitioner
        if constraint is None:
            constraint = self._constraint
        store = _state().store
        g = get_default_graph()
        kwargs = dict(shape=shape, dtype=dtype, initializer=initializer,
                      regularizer=regularizer, reuse=reuse, trainable=trainable,
                      collections=collections, caching_device=caching_device,
                      partitioner=partitioner, validate_shape=validate_shape,
                      use_resource=use_resource, constraint=constraint)
        getters = [c for c in (self._custom_getter, custom_getter) if c is not None]
        getter: Callable[..., Any] = store.get_variable
        for cg in getters:
            getter = _wrap_getter(cg, getter)
        # Variable names follow the variable scope only, so the name scope is reset.
        with g.name_scope(None):
            return getter(full_name, **kwargs)


def _wrap_getter(custom: Callable[..., Any], inner: Callable[..., Any]) -> Callable[..., Any]:
    def call(name: str, *args: Any, **kwargs: Any) -> Any:
        return custom(inner, name, *args, **kwargs)
    return call


class _VariableStore:
    """The variables made by ``get_variable`` in one graph, by full name."""

    def __init__(self) -> None:
        self.vars: Dict[str, Variable] = {}
        # Partitioned variables by full name; their shards are also in ``vars``.
        self.partitioned: Dict[str, Any] = {}
        self.lock = threading.RLock()

    def get_variable(self, name: str, shape: Any = None, dtype: Any = _dtypes.float32,
                     initializer: Any = None, regularizer: Any = None, reuse: Any = None,
                     trainable: bool = True, collections: Optional[List[str]] = None,
                     caching_device: Optional[str] = None, partitioner: Any = None,
                     validate_shape: bool = True, use_resource: Optional[bool] = None,
                     constraint: Any = None, partition_info: Any = None,
                     **_: Any) -> Any:
        if partitioner is not None and not _is_scalar(shape, initializer):
            return _pv._get_partitioned_variable(
                self, name, partitioner, shape=shape, dtype=dtype, initializer=initializer,
                regularizer=regularizer, reuse=reuse, trainable=trainable,
                collections=collections, caching_device=caching_device,
                validate_shape=validate_shape, use_resource=use_resource, constraint=constraint)
        dt = _dtypes.as_dtype(dtype)
        init_is_value = initializer is not None and not callable(initializer)
        if init_is_value and shape is not None and validate_shape:
            raise ValueError(f"If initializer is a constant, do not specify shape "
                             f"(variable {name}).")
        want_shape = as_shape(shape) if shape is not None else None
        with self.lock:
            found = self.vars.get(name)
            if found is None and name in self.partitioned:
                raise ValueError(f"No partitioner was given for variable {name}, but a "
                                 f"partitioned variable of that name ({name}/part_0 ...) "
                                 f"exists. Pass the partitioner it was created with.")
            if found is not None:
                if reuse is False or reuse is None:
                    raise ValueError(
                        f"Variable {name} already exists, disallowed. Did you mean to set "
                        f"reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
                if want_shape is not None and not want_shape.is_compatible_with(found.shape):
                    raise ValueError(f"Trying to share variable {name}, but specified shape "
                                     f"{want_shape} and found shape {found.shape}.")
                if dt is not found.dtype:
                    raise ValueError(f"Trying to share variable {name}, but specified dtype "
                                     f"{dt.name} and found dtype {found.dtype.name}.")
                return found
            if reuse is True:
                raise ValueError(f"Variable {name} does not exist, or was not created with "
                                 f"tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE "
                                 f"in VarScope?")
            v = self._create(name, want_shape, dt, initializer, init_is_value, trainable,
                             collections, caching_device, validate_shape, constraint,
                             partition_info)
            self.vars[name] = v
        if regularizer is not None:
            g = v.graph
            with g.colocate_with(v.op), g.name_scope(f"{v.op.name}/Regularizer/"):
                loss = regularizer(v)
            if loss is not None:
                g.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
        return v

    def _create(self, name: str, shape: Optional[TensorShape], dt: _dtypes.DType,
                initializer: Any, init_is_value: bool, trainable: bool,
                collections: Optional[List[str]], caching_device: Optional[str],
                validate_shape: bool, constraint: Any, partition_info: Any = None) -> Variable:
        if init_is_value:
            init_val: Any = initializer
            if not isinstance(initializer, Tensor):
                init_val = _constant_of(initializer, dt)
            elif initializer.dtype is not dt and dt is not _dtypes.float32:
                raise ValueError(f"Initializer of variable {name} has dtype "
                                 f"{initializer.dtype.name}, not {dt.name}")
            return Variable(init_val, trainable=trainable, collections=collections,
                            validate_shape=validate_shape, caching_device=caching_device,
                            name=name, constraint=constraint)
        if shape is None or not shape.is_fully_defined():
            if validate_shape:
                raise ValueError(f"Shape of a new variable ({name}) must be fully defined, "
                                 f"but instead was {shape}.")
        if initializer is None:
            if dt.is_floating:
                initializer = init_ops.glorot_uniform_initializer()
            elif dt.is_integer or dt.is_bool or dt is _dtypes.string:
                initializer = init_ops.zeros_initializer()
            else:
                raise ValueError(f"An initializer for variable {name} of {dt.name} is required")
        elif isinstance(initializer, type):
            initializer = initializer(dtype=dt)
        dims = shape.as_list() if shape is not None and shape.ndims is not None else shape
        return Variable(lambda: initializer(dims, dtype=dt, partition_info=partition_info),
                        trainable=trainable, collections=collections,
                        validate_shape=validate_shape, caching_device=caching_device,
                        name=name, dtype=dt, constraint=constraint)


def _is_scalar(shape: Any, initializer: Any) -> bool:
    # A scalar has nothing to cut: a partitioner is ignored for it, as in TensorFlow.
    if shape is not None:
        return as_shape(shape).ndims == 0
    if initializer is not None and not callable(initializer):
        s = initializer.shape if isinstance(initializer, Tensor) else None
        return (s.ndims == 0) if s is not None else (np.ndim(initializer) == 0)
    return False


def _constant_of(value: Any, dt: _dtypes.DType) -> Tensor:
    arr = np.asarray(value)
    # A Python float literal makes a float32 variable, as TensorFlow infers it.
    return array_ops.constant(value, dtype=dt if arr.dtype.kind == "f" else None)


class _GraphState:
    """Per-graph variable store, scope usage counts and per-thread scope stacks."""

    def __init__(self) -> None:
        self.store = _VariableStore()
        self.counts: Dict[str, int] = {}
        self.local = threading.local()

    def stack(self) -> List[VariableScope]:
        st = getattr(self.local, "stack", None)
        if st is None:
            st = self.local.stack = [VariableScope(False)]
        return st


_STATES: "weakref.WeakKeyDictionary[Graph, _GraphState]" = weakref.WeakKeyDictionary()
_STATES_LOCK = threading.Lock()


def _state(graph: Optional[Graph] = None) -> _GraphState:
    g = graph if graph is not None else get_default_graph()
    with _STATES_LOCK:
        s = _STATES.get(g)
        if s is None:
            s = _STATES[g] = _GraphState()
        return s


def get_variable_scope() -> VariableScope:
    """The current variable scope of this thread in the default graph."""
    return _state().stack()[-1]


def get_variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                 regularizer: Any = None, trainable: bool = True,
                 collections: Optional[List[str]] = None, caching_device: Optional[str] = None,
                 partitioner: Any = None, validate_shape: bool = True,
                 use_resource: Optional[bool] = None,
                 custom_getter: Optional[Callable[..., Any]] = None,
                 constraint: Any = None) -> Variable:
    """Gets the variable ``<scope>/name`` or creates it.

    Creating needs a shape (unless ``initializer`` is a value or tensor); floats
    default to glorot-uniform, integers to zeros. Under a scope with ``reuse=True``
    the variable must exist; without reuse it must not.

    With a ``partitioner`` (here or on the scope) a variable of rank >= 1 is made
    of shards ``<name>/part_<i>`` and a ``PartitionedVariable`` is returned.

    Raises:
      ValueError: on disallowed reuse or creation, or a shape/dtype mismatch.
    """
    return get_variable_scope().get_variable(
        name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
        trainable=trainable, collections=collections, caching_device=caching_device,
        partitioner=partitioner, validate_shape=validate_shape, use_resource=use_resource,
        custom_getter=custom_getter, constraint=constraint)


def get_local_variable(name: str, shape: Any = None, dtype: Any = None,
                       initializer: Any = None, regularizer: Any = None,
                       trainable: bool = False, collections: Optional[List[str]] = None,
                       caching_device: Optional[str] = None, partitioner: Any = None,
                       validate_shape: bool = True, use_resource: Optional[bool] = None,
                       custom_getter: Optional[Callable[..., Any]] = None,
                       constraint: Any = None) -> Variable:
    """``get_variable`` for a variable in ``LOCAL_VARIABLES`` (not trained, not shared)."""
    cols = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape, dtype, initializer, regularizer, False, cols,
                        caching_device, partitioner, validate_shape, use_resource,
                        custom_getter, constraint)


def no_regularizer(_: Any) -> None:
    """A regularizer that adds nothing (to switch off a scope's default)."""
    return None


def _unique_scope_name(state: _GraphState, parent: str, prefix: str) -> str:
    base = f"{parent}/{prefix}" if parent else prefix
    name, i = base, 0
    while state.counts.get(name, 0) > 0:
        i += 1
        name = f"{base}_{i}"
    return name.rsplit("/", 1)[-1]


@contextlib.contextmanager
def variable_scope(name_or_scope: Any, default_name: Optional[str] = None, values: Any = None,
                   initializer: Any = None, regularizer: Any = None,
                   caching_device: Optional[str] = None, partitioner: Any = None,
                   custom_getter: Optional[Callable[..., Any]] = None, reuse: Any = None,
                   dtype: Any = None, use_resource: Optional[bool] = None,
                   constraint: Any = None,
                   auxiliary_name_scope: bool = True) -> Iterator[VariableScope]:
    """Opens a variable scope (and a name scope of the same name) for ``get_variable``.

    ``name_or_scope`` is a string (nested under the current scope) or a
    ``VariableScope`` to re-enter; with None, ``default_name`` is made unique.
    ``reuse``: True, tf.AUTO_REUSE, or None/False to inherit the parent's flag.
    Unset settings are inherited from the enclosing scope.
    """
    if name_or_scope is None and default_name is None:
        raise TypeError("If default_name is None then name_or_scope is required")
    if reuse not in (None, True, False, AUTO_REUSE):
        raise ValueError(f"The reuse parameter must be True or False or None, or "
                         f"tf.AUTO_REUSE; got {reuse!r}")
    g = get_default_graph()
    state = _state(g)
    stack = state.stack()
    parent = stack[-1]
    if isinstance(name_or_scope, VariableScope):
        base = name_or_scope
        full = base.name
        new_reuse = reuse if reuse else base.reuse
        ns_name: Optional[str] = base.original_name_scope or None
    else:
        base = parent
        if name_or_scope is not None:
            if not isinstance(name_or_scope, str):
                raise TypeError(f"VariableScope: name_or_scope must be a string or "
                                f"VariableScope, got {name_or_scope!r}")
            short = name_or_scope
        else:
            short = _unique_scope_name(state, parent.name, default_name)  # type: ignore[arg-type]
        full = f"{parent.name}/{short}" if parent.name else short
        new_reuse = reuse or parent.reuse
        # As TensorFlow: a default name's name scope is made unique on its own, apart
        # from the variable scope's number (they differ once name scopes were opened).
        ns_name = short if name_or_scope is not None else default_name
    state.counts[full] = state.counts.get(full, 0) + 1
    ns_ctx = g.name_scope(ns_name) if auxiliary_name_scope else contextlib.nullcontext(
        parent.original_name_scope)
    with ns_ctx as ns:
        scope = VariableScope(
            new_reuse, name=full,
            initializer=initializer if initializer is not None else base.initializer,
            regularizer=regularizer if regularizer is not None else base.regularizer,
            caching_device=caching_device if caching_device is not None else base.caching_device,
            partitioner=partitioner if partitioner is not None else base.partitioner,
            custom_getter=_chain_getters(custom_getter, base.custom_getter),
            name_scope=ns or "",
            dtype=dtype if dtype is not None else base.dtype,
            use_resource=use_resource if use_resource is not None else base.use_resource,
            constraint=constraint if constraint is not None else base.constraint)
        stack.append(scope)
        # Scopes opened inside this one are numbered afresh each time it is entered
        # again, so that a second tower under reuse=True names its layers as the
        # first did (conv2d, conv2d_1, ...) and finds their variables.
        entered_counts = dict(state.counts) if isinstance(name_or_scope, VariableScope) \
            else None
        try:
            yield scope
        finally:
            stack.pop()
            if entered_counts is not None:
                state.counts = entered_counts
            else:
                prefix = full + "/"
                for key in [k for k in state.counts if k.startswith(prefix)]:
                    state.counts[key] = 0


def _chain_getters(inner: Any, outer: Any) -> Any:
    if inner is None:
        return outer
    if outer is None:
        return inner

    def chained(getter: Callable[..., Any], name: str, *args: Any, **kwargs: Any) -> Any:
        return inner(lambda n, *a, **k: outer(getter, n, *a, **k), name, *args, **kwargs)
    return chained


def variable_op_scope(values: Any, name_or_scope: Any, default_name: Optional[str] = None,
                      **kwargs: Any) -> Any:
    """Deprecated argument order of ``variable_scope``."""
    return variable_scope(name_or_scope, default_name=default_name, values=values, **kwargs)


def create_partitioned_variables(shape: Any, slicing: Sequence[int], initializer: Any,
                                 dtype: Any = _dtypes.float32, trainable: bool = True,
                                 collections: Optional[List[str]] = None,
                                 name: Optional[str] = None,
                                 reuse: Any = None) -> List[Variable]:
    """The older API: the shards (a list of Variables) of a variable of ``shape`` cut
    by ``slicing`` (shards per axis), under the variable scope ``name``.

    Raises:
      ValueError: if ``slicing`` does not match ``shape`` or splits several axes.
    """
    if len(slicing) != len(as_shape(shape)):
        raise ValueError(f"create_partitioned_variables: slicing {list(slicing)} must have one "
                         f"entry per dimension of shape {list(shape)}")
    with variable_scope(name, default_name="PartitionedVariable", reuse=reuse) as scope:
        g = get_default_graph()
        with g.name_scope(None):
            pv = _pv._get_partitioned_variable(
                _state(g).store, scope.name, lambda **_: list(slicing), shape=shape,
                dtype=dtype, initializer=initializer, reuse=scope.reuse, trainable=trainable,
                collections=collections)
    return list(pv)


__all__ = ["AUTO_REUSE", "VariableScope", "get_variable", "get_local_variable",
           "get_variable_scope", "variable_scope", "variable_op_scope", "no_regularizer",
           "create_partitioned_variables"]
