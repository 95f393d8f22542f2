"""``tf.Variable``: a named, mutable tensor living in the resource manager of its task.

A Variable is three graph nodes under one name scope: the ``VariableV2`` op
(whose output is a reference to the storage), the ``Assign`` that initializes
it and the ``read`` snapshot (an Identity colocated with the storage) that every
consumer reads, so a variable on a parameter server is read once per step per
consumer task.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Dict, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import (Graph, GraphKeys, Operation, Tensor, convert_to_tensor,
                                         get_default_graph, register_tensor_conversion_function)
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from tensorfleet.ops import array_ops, control_flow_ops, math_ops, state_ops
from tensorfleet.ops.control_flow_ops import _name_like_scope
from tensorfleet.ops.variable_creator import (VariableAggregation, VariableMeta,
                                              VariableSynchronization, check_enum)
from tensorfleet.framework.graph import default_session_or_raise

logger = logging.getLogger(__name__)


class Variable(metaclass=VariableMeta):
    """A tensor whose value persists across ``Session.run`` calls.

    Created with an initial value (a tensor, a Python/numpy value or a callable
    returning one); run ``initializer`` (or ``global_variables_initializer()``)
    before reading it. Using it in an op reads its current value.
    """

    __array_priority__ = 100

    def __init__(self, initial_value: Any = None, trainable: Optional[bool] = None,
                 collections: Optional[List[str]] = None, validate_shape: bool = True,
                 caching_device: Optional[str] = None, name: Optional[str] = None,
                 variable_def: Optional[Dict[str, Any]] = None, dtype: Any = None,
                 expected_shape: Any = None, import_scope: Optional[str] = None,
                 constraint: Optional[Callable[[Tensor], Tensor]] = None,
                 use_resource: Optional[bool] = None,
                 synchronization: VariableSynchronization = VariableSynchronization.AUTO,
                 aggregation: VariableAggregation = VariableAggregation.NONE,
                 shape: Any = None):
        self._synchronization = check_enum(synchronization, VariableSynchronization,
                                           "synchronization")
        self._aggregation = check_enum(aggregation, VariableAggregation, "aggregation")
        on_read = self._synchronization is VariableSynchronization.ON_READ
        if trainable is None:
            # An ON_READ variable (a per-replica metric or statistic) is not trained.
            trainable = not on_read
        elif trainable and on_read:
            raise ValueError("Synchronization value can be set to "
                             "VariableSynchronization.ON_READ only for non-trainable "
                             "variables; pass trainable=False")
        if variable_def is not None:
            self._init_from_def(variable_def, import_scope)
            return
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable.")
        if use_resource:
            logger.debug("use_resource=True: tensorfleet variables are reference variables")
        self._constraint = constraint
        self._trainable = trainable
        self._caching_device = caching_device
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        if isinstance(collections, str) or not isinstance(collections, (list, tuple, set)):
            raise ValueError(f"collections argument to Variable constructor must be a list, "
                             f"tuple, or set. Got {collections!r}")
        collections = list(collections)
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(GraphKeys.TRAINABLE_VARIABLES)
        g = get_default_graph()
        # Variables are created outside any control-dependency scope (and so
        # outside any cond branch): their initializer must run on its own.
        with g.control_dependencies(None), g.name_scope(name or "Variable") as scope:
            var_name = scope[:-1]
            if callable(initial_value):
                n0 = len(g.get_operations())
                with g.name_scope("Initializer"):
                    init = convert_to_tensor(initial_value(), dtype=dtype, name="initial_value")
                init_ops = g.get_operations()[n0:]
            else:
                init = convert_to_tensor(initial_value, dtype=dtype, name="initial_value")
                init_ops = []
            if init.graph is not g:
                raise ValueError(f"initial_value of Variable {var_name!r} is from another graph")
            if shape is not None and not as_shape(shape).is_compatible_with(init.shape):
                raise ValueError(f"Variable {var_name!r}: initial value shape {init.shape} is "
                                 f"not compatible with the given shape {as_shape(shape)}")
            if validate_shape and shape is None and not init.shape.is_fully_defined():
                raise ValueError(f"initial_value must have a shape specified: {init!r} "
                                 f"(Variable {var_name!r}); pass validate_shape=False to allow "
                                 f"an unknown shape")
            if expected_shape is not None and not as_shape(expected_shape).is_compatible_with(
                    init.shape):
                raise ValueError(f"Variable {var_name!r}: initial value shape {init.shape} is "
                                 f"not the expected shape {as_shape(expected_shape)}")
            if shape is not None:
                shape = as_shape(shape)
            else:
                shape = init.shape if validate_shape else unknown_shape()
            # The storage op takes the scope's own name, as in TensorFlow ("w", "w/read").
            self._variable = _name_like_scope(
                g, scope, lambda n: state_ops.variable_op_v2(shape, init.dtype, name=n))
            # A callable's ops belong with the variable, as TensorFlow places them:
            # the initial value is then computed where it is stored.
            for op in init_ops:
                op.attrs["_class"] = self._variable.op.colocation_groups()
                op._device = self._variable.op.device
            self._initial_value = init
            self._initializer_op = state_ops.assign(
                self._variable, init, validate_shape=validate_shape, name="Assign").op
            if caching_device is not None:
                with g.device(caching_device):
                    self._snapshot = _identity(self._variable, "read")
            else:
                with g.colocate_with(self._variable.op):
                    self._snapshot = _identity(self._variable, "read")
        g.add_to_collections(collections, self)
        self._save_slice_info = None

    def _init_from_def(self, d: Dict[str, Any], import_scope: Optional[str]) -> None:
        g = get_default_graph()
        pre = (import_scope + "/") if import_scope else ""
        self._variable = g.get_tensor_by_name(pre + d["variable_name"])
        self._initializer_op = g.get_operation_by_name(pre + d["initializer_name"])
        self._snapshot = g.get_tensor_by_name(pre + d["snapshot_name"])
        iv = d.get("initial_value_name")
        self._initial_value = g.get_tensor_by_name(pre + iv) if iv else None
        self._trainable = bool(d.get("trainable", True))
        self._caching_device = None
        self._constraint = None
        self._save_slice_info = None

    # -- identity ---------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The name of the variable's storage tensor, like ``'w:0'``."""
        return self._variable.name

    @property
    def op(self) -> Operation:
        """The ``VariableV2`` op."""
        return self._variable.op

    @property
    def dtype(self) -> _dtypes.DType:
        return self._variable.dtype

    @property
    def shape(self) -> TensorShape:
        return self._variable.shape

    def get_shape(self) -> TensorShape:
        """The static shape of the variable."""
        return self._variable.shape

    @property
    def device(self) -> str:
        return self._variable.device

    @property
    def graph(self) -> Graph:
        return self._variable.graph

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def constraint(self) -> Optional[Callable[[Tensor], Tensor]]:
        return self._constraint

    @property
    def synchronization(self) -> VariableSynchronization:
        """When replicas of this variable synchronize (as given at creation)."""
        return self._synchronization

    @property
    def aggregation(self) -> VariableAggregation:
        """How replicas' updates of this variable combine (as given at creation)."""
        return self._aggregation

    @property
    def initializer(self) -> Operation:
        """The op that assigns the initial value."""
        return self._initializer_op

    @property
    def initial_value(self) -> Tensor:
        return self._initial_value

    def _ref(self) -> Tensor:
        """The reference output of the ``VariableV2`` op (for ops that mutate it)."""
        return self._variable

    def _as_graph_element(self) -> Tensor:
        return self._snapshot

    def __repr__(self) -> str:
        return (f"<tf.Variable '{self.name}' shape={self.shape} "
                f"dtype={self.dtype.name}_ref>")

    # -- reading ----------------------------------------------------------------------
    def value(self) -> Tensor:
        """The snapshot tensor every read of this variable shares."""
        return self._snapshot

    def read_value(self) -> Tensor:
        """A fresh read of the variable, ordered after the current control dependencies."""
        return _identity(self._variable, "read")

    def initialized_value(self) -> Tensor:
        """The value once initialized: the current value if initialized, else the initial
        value (so other variables can be initialized from this one)."""
        with self.graph.control_dependencies(None):
            return control_flow_ops.cond(state_ops.is_variable_initialized(self),
                                         self.read_value, lambda: self._initial_value)

    def eval(self, session: Any = None) -> Any:
        """The variable's value in ``session`` (default: the default session)."""
        return self._snapshot.eval(session=session)

    def load(self, value: Any, session: Any = None) -> None:
        """Writes ``value`` into the variable through its initializer's feed."""
        sess = session or default_session_or_raise()
        sess.run(self._initializer_op, {self._initializer_op.inputs[1]: value})

    # -- updates ----------------------------------------------------------------------
    def _update_result(self, t: Tensor, read_value: bool) -> Any:
        return t if read_value else t.op

    def assign(self, value: Any, use_locking: bool = False, name: Optional[str] = None,
               read_value: bool = True) -> Any:
        """Assigns ``value``; returns the new value (or the op when ``read_value=False``)."""
        return self._update_result(
            state_ops.assign(self._variable, value, use_locking=use_locking, name=name),
            read_value)

    def assign_add(self, delta: Any, use_locking: bool = False, name: Optional[str] = None,
                   read_value: bool = True) -> Any:
        """Adds ``delta`` in place; returns the new value (or the op)."""
        return self._update_result(
            state_ops.assign_add(self._variable, delta, use_locking=use_locking, name=name),
            read_value)

    def assign_sub(self, delta: Any, use_locking: bool = False, name: Optional[str] = None,
                   read_value: bool = True) -> Any:
        """Subtracts ``delta`` in place; returns the new value (or the op)."""
        return self._update_result(
            state_ops.assign_sub(self._variable, delta, use_locking=use_locking, name=name),
            read_value)

    def _scatter(self, fn: Callable[..., Tensor], sparse_delta: Any, use_locking: bool,
                 name: Optional[str]) -> Tensor:
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta!r} "
                            f"(updating {self.op.name})")
        return fn(self._variable, sparse_delta.indices, sparse_delta.values,
                  use_locking=use_locking, name=name)

    def scatter_add(self, sparse_delta: IndexedSlices, use_locking: bool = False,
                    name: Optional[str] = None) -> Tensor:
        """Adds ``IndexedSlices`` to the variable's rows."""
        return self._scatter(state_ops.scatter_add, sparse_delta, use_locking, name)

    def scatter_sub(self, sparse_delta: IndexedSlices, use_locking: bool = False,
                    name: Optional[str] = None) -> Tensor:
        """Subtracts ``IndexedSlices`` from the variable's rows."""
        return self._scatter(state_ops.scatter_sub, sparse_delta, use_locking, name)

    def scatter_update(self, sparse_delta: IndexedSlices, use_locking: bool = False,
                       name: Optional[str] = None) -> Tensor:
        """Overwrites the variable's rows named by ``IndexedSlices``."""
        return self._scatter(state_ops.scatter_update, sparse_delta, use_locking, name)

    def count_up_to(self, limit: int) -> Tensor:
        """Increments this integer variable until ``limit``; see ``tf.count_up_to``."""
        return state_ops.count_up_to(self._variable, limit)

    # -- plain-data description (meta graphs, savers) -----------------------------------
    def to_proto(self, export_scope: Optional[str] = None) -> Optional[Dict[str, Any]]:
        """A plain-data description from which ``from_proto`` rebuilds this Variable."""

        def strip(n: str) -> Optional[str]:
            if not export_scope:
                return n
            if not n.startswith(export_scope + "/"):
                return None
            return n[len(export_scope) + 1:]

        d = {"variable_name": strip(self._variable.name),
             "initializer_name": strip(self._initializer_op.name),
             "snapshot_name": strip(self._snapshot.name),
             "initial_value_name": strip(self._initial_value.name)
             if self._initial_value is not None else None,
             "trainable": self._trainable}
        if d["variable_name"] is None:
            return None
        return d

    @staticmethod
    def from_proto(variable_def: Dict[str, Any], import_scope: Optional[str] = None) -> "Variable":
        """Rebuilds a Variable over existing graph nodes described by ``to_proto``."""
        return Variable(variable_def=variable_def, import_scope=import_scope)

    def _set_save_slice_info(self, info: Any) -> None:
        self._save_slice_info = info

    def _get_save_slice_info(self) -> Any:
        return self._save_slice_info

    def __iter__(self):
        raise TypeError("'Variable' object is not iterable.")


def _identity(x: Tensor, name: str) -> Tensor:
    return array_ops.identity(x, name=name)


_OPERATORS = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__div__", "__rdiv__", "__floordiv__",
              "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__matmul__",
              "__rmatmul__", "__neg__", "__abs__", "__invert__", "__lt__", "__le__", "__gt__",
              "__ge__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__",
              "__getitem__"]


def _delegate(op_name: str) -> Callable[..., Any]:
    def method(self: Variable, *args: Any) -> Any:
        # Looked up at call time: the math family attaches Tensor operators on import.
        fn = getattr(Tensor, op_name, None)
        if fn is None:
            return NotImplemented
        return fn(_current_read(self), *args)
    method.__name__ = op_name
    method.__doc__ = f"``{op_name}`` applied to the variable's value."
    return method


for _op in _OPERATORS:
    setattr(Variable, _op, _delegate(_op))


def _current_read(v: Variable) -> Tensor:
    """The tensor an op made now reads ``v`` through: the shared snapshot, or, under
    ``control_dependencies``, a read of its own made in that scope, so that it sees
    the updates the scope waits for (a TensorFlow 1.x op reads a reference variable
    when it runs: ``with tf.control_dependencies([update]): tf.identity(v)`` sees the
    update)."""
    g = v.graph
    if get_default_graph() is g and g._current_control_inputs():
        return v.read_value()
    return v._snapshot


def _variable_to_tensor(v: Variable, dtype: Any = None, name: Optional[str] = None) -> Tensor:
    if dtype is not None and _dtypes.as_dtype(dtype) is not v.dtype:
        raise ValueError(f"Incompatible type conversion requested to type "
                         f"'{_dtypes.as_dtype(dtype).name}' for variable {v.op.name} of type "
                         f"'{v.dtype.name}'")
    return _current_read(v)


register_tensor_conversion_function(Variable, _variable_to_tensor)

VariableV1 = Variable


# -- collections and initializers --------------------------------------------------------

def global_variables(scope: Optional[str] = None) -> List[Variable]:
    """Variables in ``GLOBAL_VARIABLES`` (those shared across workers and saved)."""
    return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def all_variables() -> List[Variable]:
    """Deprecated alias of ``global_variables``."""
    return global_variables()


def local_variables(scope: Optional[str] = None) -> List[Variable]:
    """Variables in ``LOCAL_VARIABLES`` (per-worker, not saved)."""
    return get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def trainable_variables(scope: Optional[str] = None) -> List[Variable]:
    """Variables in ``TRAINABLE_VARIABLES`` (what optimizers update by default)."""
    return get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def model_variables(scope: Optional[str] = None) -> List[Variable]:
    """Variables in ``MODEL_VARIABLES``."""
    return get_default_graph().get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope: Optional[str] = None) -> List[Variable]:
    """Variables in ``MOVING_AVERAGE_VARIABLES``."""
    return get_default_graph().get_collection("moving_average_variables", scope)


def variables_initializer(var_list: List[Variable], name: str = "init") -> Operation:
    """One op that runs the initializers of ``var_list`` (a no-op when empty)."""
    if var_list:
        return control_flow_ops.group(*[v.initializer for v in var_list], name=name)
    return control_flow_ops.no_op(name=name)


def global_variables_initializer() -> Operation:
    """The op initializing every global variable."""
    return variables_initializer(global_variables())


def local_variables_initializer() -> Operation:
    """The op initializing every local variable."""
    return variables_initializer(local_variables())


def initialize_variables(var_list: List[Variable], name: str = "init") -> Operation:
    """Deprecated alias of ``variables_initializer``."""
    return variables_initializer(var_list, name=name)


def initialize_all_variables() -> Operation:
    """Deprecated alias of ``global_variables_initializer``."""
    return global_variables_initializer()


def initialize_local_variables() -> Operation:
    """Deprecated alias of ``local_variables_initializer``."""
    return local_variables_initializer()


def is_variable_initialized(variable: Variable) -> Tensor:
    """A bool scalar tensor: whether ``variable`` has been initialized."""
    return state_ops.is_variable_initialized(variable)


def _default_var_list() -> List[Variable]:
    return global_variables() + local_variables()


def assert_variables_initialized(var_list: Optional[List[Variable]] = None) -> Optional[Operation]:
    """An op that fails with FailedPreconditionError-like InvalidArgument when any
    variable of ``var_list`` (default: all) is uninitialized; None for an empty list."""
    var_list = _default_var_list() if var_list is None else list(var_list)
    if not var_list:
        return None
    g = get_default_graph()
    with g.name_scope("assert_variables_initialized"):
        flags = []
        for v in var_list:
            with g.colocate_with(v.op):
                flags.append(state_ops.is_variable_initialized(v))
        ok = math_ops.reduce_all(array_ops.stack(flags)) if len(flags) > 1 else flags[0]
        return control_flow_ops.Assert(ok, [array_ops.constant(
            "Some variables are not initialized: " + ", ".join(v.op.name for v in var_list))])


def report_uninitialized_variables(var_list: Optional[List[Variable]] = None,
                                   name: str = "report_uninitialized_variables") -> Tensor:
    """A 1-D string tensor with the names of the uninitialized variables of ``var_list``
    (default: global and local variables); empty when all are ready.

    Each check runs on its variable's task; the names are gathered where the
    caller's session runs.
    """
    var_list = _default_var_list() if var_list is None else list(var_list)
    g = get_default_graph()
    with g.name_scope(name):
        if not var_list:
            return array_ops.constant([], dtype=_dtypes.string)
        flags = []
        for v in var_list:
            with g.colocate_with(v.op):
                flags.append(state_ops.is_variable_initialized(v))
        with g.device(None):
            names = array_ops.constant([v.op.name for v in var_list], dtype=_dtypes.string)
            missing = math_ops.logical_not(array_ops.stack(flags))
            return array_ops.boolean_mask(names, missing)


__all__ = ["Variable", "VariableV1", "global_variables", "all_variables", "local_variables",
           "trainable_variables", "model_variables", "moving_average_variables",
           "variables_initializer", "global_variables_initializer",
           "local_variables_initializer", "initialize_variables", "initialize_all_variables",
           "initialize_local_variables", "is_variable_initialized",
           "assert_variables_initialized", "report_uninitialized_variables"]
