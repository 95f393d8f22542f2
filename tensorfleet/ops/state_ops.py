"""State ops: variable storage and the ops that read or update it in place.

A ``VariableV2`` op outputs a *reference*: the ``VariableResource`` kept in the
task's resource manager. Ops listed here take that reference as input 0 (a ref
input, so the executor hands them the resource rather than its value) and run
on the variable's task, which is why every constructor colocates its op with
the variable.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, as_shape, scalar
from tensorfleet.ops.op_util import make_tensor


def _variable_shape(op: Operation) -> List[TensorShape]:
    return [op.attrs["shape"]]


def _assign_shape(op: Operation) -> List[TensorShape]:
    ref, value = op.inputs[0].shape, op.inputs[1].shape
    if not op.attrs.get("validate_shape", True):
        return [value]
    if not ref.is_compatible_with(value):
        raise ValueError(f"Shapes must be equal rank, but are {ref} and {value}: "
                         f"cannot assign a value of shape {value} to a variable of shape {ref}")
    return [ref.merge_with(value)]


def _update_shape(op: Operation) -> List[TensorShape]:
    ref, delta = op.inputs[0].shape, op.inputs[1].shape
    if not ref.is_compatible_with(delta):
        raise ValueError(f"Shapes {ref} and {delta} are incompatible")
    return [ref.merge_with(delta)]


def _scatter_shape(op: Operation) -> List[TensorShape]:
    ref, idx, upd = (t.shape for t in op.inputs)
    if ref.ndims is not None and idx.ndims is not None and upd.ndims is not None:
        # Scalar updates broadcast; anything else must be indices.shape + ref.shape[1:].
        if upd.ndims != 0 and ref.ndims > 0:
            want = idx.concatenate(ref[1:])
            if not want.is_compatible_with(upd):
                raise ValueError(f"Shapes must be equal: updates has shape {upd} but indices "
                                 f"{idx} and variable {ref} need {want}")
    return [ref]


register_op("VariableV2", _variable_shape, stateful=True, ref_output=True)
register_op("Assign", _assign_shape, stateful=True, ref_inputs=(0,), ref_output=True)
register_op("AssignAdd", _update_shape, stateful=True, ref_inputs=(0,), ref_output=True)
register_op("AssignSub", _update_shape, stateful=True, ref_inputs=(0,), ref_output=True)
for _t in ("ScatterAdd", "ScatterSub", "ScatterUpdate", "ScatterMul", "ScatterDiv",
           "ScatterMax", "ScatterMin"):
    register_op(_t, _scatter_shape, stateful=True, ref_inputs=(0,), ref_output=True)
register_op("IsVariableInitialized", lambda op: [scalar()], stateful=True, ref_inputs=(0,))
register_op("CountUpTo", lambda op: [scalar()], stateful=True, ref_inputs=(0,))


def _ref_of(ref: Any, what: str) -> Tensor:
    """The reference tensor of a Variable or of a ref-producing op; TypeError otherwise."""
    getter = getattr(ref, "_ref", None)
    if getter is not None:
        ref = getter()
    if not isinstance(ref, Tensor) or not ref.op.op_def.ref_output or ref.value_index != 0:
        raise TypeError(f"'ref' of {what} needs a Variable or a reference to one, got {ref!r}; "
                        f"values read from a variable cannot be assigned to.")
    return ref


@contextlib.contextmanager
def _on_variable(ref: Tensor) -> Iterator[None]:
    # Ops that mutate a variable must run in the variable's task: a reference
    # cannot travel between processes.
    with ref.graph.colocate_with(ref.op):
        yield


def variable_op_v2(shape: Any, dtype: Any, name: str = "Variable", container: str = "",
                   shared_name: str = "") -> Tensor:
    """The raw ``VariableV2`` op: a reference to mutable storage of ``shape``/``dtype``.

    Most programs want ``tf.Variable`` or ``tf.get_variable`` instead.
    """
    dt = _dtypes.as_dtype(dtype)
    return make_tensor("VariableV2", [], dt, {"shape": as_shape(shape), "dtype": dt,
                                              "container": container or "",
                                              "shared_name": shared_name or ""}, name=name)


def _value_for(ref: Tensor, value: Any, what: str) -> Tensor:
    if isinstance(value, Tensor):
        if value.dtype is not ref.dtype:
            raise TypeError(f"{what}: value has dtype {value.dtype.name} but variable "
                            f"{ref.op.name} has dtype {ref.dtype.name}")
        return value
    return convert_to_tensor(value, dtype=ref.dtype)


def assign(ref: Any, value: Any, validate_shape: Optional[bool] = None,
           use_locking: Optional[bool] = None, name: Optional[str] = None) -> Tensor:
    """Stores ``value`` in the variable ``ref`` and returns a reference to it.

    With ``validate_shape=False`` the variable may change shape.
    """
    r = _ref_of(ref, "Assign")
    v = _value_for(r, value, f"Assign to {r.op.name}")
    attrs = {"validate_shape": True if validate_shape is None else bool(validate_shape),
             "use_locking": True if use_locking is None else bool(use_locking)}
    with _on_variable(r):
        return make_tensor("Assign", [r, v], r.dtype, attrs, name=name or "Assign")


def _update(op_type: str, ref: Any, value: Any, use_locking: Optional[bool],
            name: Optional[str], default_name: str) -> Tensor:
    r = _ref_of(ref, op_type)
    v = _value_for(r, value, f"{op_type} on {r.op.name}")
    with _on_variable(r):
        return make_tensor(op_type, [r, v], r.dtype, {"use_locking": bool(use_locking)},
                           name=name or default_name)


def assign_add(ref: Any, value: Any, use_locking: Optional[bool] = None,
               name: Optional[str] = None) -> Tensor:
    """Adds ``value`` to the variable in place; returns a reference to it."""
    return _update("AssignAdd", ref, value, use_locking, name, "AssignAdd")


def assign_sub(ref: Any, value: Any, use_locking: Optional[bool] = None,
               name: Optional[str] = None) -> Tensor:
    """Subtracts ``value`` from the variable in place; returns a reference to it."""
    return _update("AssignSub", ref, value, use_locking, name, "AssignSub")


def _scatter(op_type: str, ref: Any, indices: Any, updates: Any, use_locking: Any,
             name: Optional[str], default_name: str) -> Tensor:
    r = _ref_of(ref, op_type)
    idx = convert_to_tensor(indices)
    if not idx.dtype.is_integer:
        raise TypeError(f"{op_type} on {r.op.name}: indices must be int32 or int64, got "
                        f"{idx.dtype.name}")
    upd = _value_for(r, updates, f"{op_type} on {r.op.name}")
    with _on_variable(r):
        return make_tensor(op_type, [r, idx, upd], r.dtype, {"use_locking": bool(use_locking)},
                           name=name or default_name)


def scatter_add(ref: Any, indices: Any, updates: Any, use_locking: bool = False,
                name: Optional[str] = None) -> Tensor:
    """Adds ``updates`` to rows ``indices`` of the variable; repeated indices add up."""
    return _scatter("ScatterAdd", ref, indices, updates, use_locking, name, "ScatterAdd")


def scatter_sub(ref: Any, indices: Any, updates: Any, use_locking: bool = False,
                name: Optional[str] = None) -> Tensor:
    """Subtracts ``updates`` from rows ``indices``; repeated indices subtract each time."""
    return _scatter("ScatterSub", ref, indices, updates, use_locking, name, "ScatterSub")


def scatter_update(ref: Any, indices: Any, updates: Any, use_locking: bool = True,
                   name: Optional[str] = None) -> Tensor:
    """Overwrites rows ``indices`` of the variable with ``updates``."""
    return _scatter("ScatterUpdate", ref, indices, updates, use_locking, name, "ScatterUpdate")


def scatter_mul(ref: Any, indices: Any, updates: Any, use_locking: bool = False,
                name: Optional[str] = None) -> Tensor:
    """Multiplies rows ``indices`` of the variable by ``updates``."""
    return _scatter("ScatterMul", ref, indices, updates, use_locking, name, "ScatterMul")


def scatter_div(ref: Any, indices: Any, updates: Any, use_locking: bool = False,
                name: Optional[str] = None) -> Tensor:
    """Divides rows ``indices`` of the variable by ``updates``."""
    return _scatter("ScatterDiv", ref, indices, updates, use_locking, name, "ScatterDiv")


def scatter_max(ref: Any, indices: Any, updates: Any, use_locking: bool = False,
                name: Optional[str] = None) -> Tensor:
    """Rows ``indices`` of the variable become the elementwise max with ``updates``."""
    return _scatter("ScatterMax", ref, indices, updates, use_locking, name, "ScatterMax")


def scatter_min(ref: Any, indices: Any, updates: Any, use_locking: bool = False,
                name: Optional[str] = None) -> Tensor:
    """Rows ``indices`` of the variable become the elementwise min with ``updates``."""
    return _scatter("ScatterMin", ref, indices, updates, use_locking, name, "ScatterMin")


def is_variable_initialized(ref: Any, name: Optional[str] = None) -> Tensor:
    """A bool scalar: whether the variable holds a value yet (never fails)."""
    r = _ref_of(ref, "IsVariableInitialized")
    with _on_variable(r):
        return make_tensor("IsVariableInitialized", [r], _dtypes.bool, {"dtype": r.dtype},
                           name=name or "IsVariableInitialized")


def count_up_to(ref: Any, limit: int, name: Optional[str] = None) -> Tensor:
    """Increments an integer variable and returns its old value, until ``limit``.

    Running it once the variable has reached ``limit`` raises OutOfRangeError.
    """
    r = _ref_of(ref, "CountUpTo")
    if not r.dtype.is_integer:
        raise TypeError(f"count_up_to needs an int32 or int64 variable; {r.op.name} is "
                        f"{r.dtype.name}")
    with _on_variable(r):
        return make_tensor("CountUpTo", [r], r.dtype, {"limit": int(limit)},
                           name=name or "CountUpTo")


__all__ = ["assign", "assign_add", "assign_sub", "scatter_add", "scatter_sub", "scatter_update",
           "scatter_mul", "scatter_div", "scatter_max", "scatter_min", "count_up_to",
           "variable_op_v2"]
