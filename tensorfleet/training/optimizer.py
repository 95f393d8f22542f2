"""``tf.train.Optimizer``: gradients, slot variables and the update ops.

An optimizer splits a training step in two halves, as TensorFlow 1.x does:
``compute_gradients`` (which runs where the model runs, on a worker) and
``apply_gradients`` (one fused update op per variable). Every per-variable piece
of state -- slot variables such as Adam's moments, and the update op itself -- is
created colocated with its variable, so that on a cluster it lives on the same
parameter server and a step ships only the gradient there.

Subclasses implement ``_create_slots``, ``_prepare``, ``_apply_dense``,
``_apply_sparse`` and optionally ``_finish``.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import (Graph, GraphKeys, Operation, Tensor, convert_to_tensor,
                                         get_default_graph)
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.ops import array_ops, sparse_ops, state_ops
from tensorfleet.gradients import gradients
from tensorfleet.ops.control_flow_ops import group
from tensorfleet.ops.control_flow_ops import tuple as _tuple
from tensorfleet.ops.variables import Variable
from tensorfleet.training import training_ops as _ops

logger = logging.getLogger(__name__)

# Collection keys the skeleton's GraphKeys may not define yet.
_TRAINABLE_RESOURCE_VARIABLES = getattr(GraphKeys, "TRAINABLE_RESOURCE_VARIABLES",
                                        "trainable_resource_variables")
_TRAIN_OP = getattr(GraphKeys, "TRAIN_OP", "train_op")

_FLOAT_TYPES = (_dtypes.float16, _dtypes.float32, _dtypes.float64)


def _is_variable(v: Any) -> bool:
    return (hasattr(v, "_ref") or hasattr(v, "_variable")) and hasattr(v, "op")


def _var_key(var: Any) -> Tuple[int, str]:
    # Keyed by graph and op name (not by the Python object) so that a variable
    # fetched again from a collection finds the same slots.
    return id(var.op.graph), var.op.name


def _grad_target(var: Any) -> Tensor:
    """The tensor gradients are taken with respect to: the variable's reference.

    Every read of a variable (its shared snapshot, ``read_value()``, an identity
    of the reference) is an Identity of the reference, whose gradient passes
    through, so differentiating with respect to the reference sums all of them.
    """
    getter = getattr(var, "_ref", None)
    if getter is not None:
        return getter()
    ref = getattr(var, "_variable", None)
    return ref if isinstance(ref, Tensor) else convert_to_tensor(var)


class Optimizer:
    """Base class of the optimizers; not used directly.

    Args:
      use_locking: hold the variable's lock while an update runs, so that
        concurrent steps (asynchronous workers) do not interleave updates.
      name: prefix of the ops and slot variables this optimizer creates.
    """

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking: bool, name: str):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = bool(use_locking)
        self._name = name
        # slot name -> {variable key -> slot variable}
        self._slots: Dict[str, Dict[Tuple[int, str], Any]] = {}
        # (name, graph id) -> non-slot variable (Adam's beta powers)
        self._non_slot_dict: Dict[Tuple[str, int], Any] = {}

    def get_name(self) -> str:
        """The optimizer's name (``"Adam"``...)."""
        return self._name

    # -- the public API ------------------------------------------------------------------
    def minimize(self, loss: Tensor, global_step: Any = None, var_list: Optional[Sequence[Any]] = None,
                 gate_gradients: int = GATE_OP, aggregation_method: Any = None,
                 colocate_gradients_with_ops: bool = False, name: Optional[str] = None,
                 grad_loss: Any = None) -> Operation:
        """``compute_gradients`` then ``apply_gradients``; returns the train op.

        Raises:
          ValueError: when no variable receives a gradient from ``loss``.
        """
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        if not any(g is not None for g, _ in grads_and_vars):
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do "
                f"not support gradients, between variables {[v.name for _, v in grads_and_vars]} "
                f"and loss {loss}.")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss: Tensor, var_list: Optional[Sequence[Any]] = None,
                          gate_gradients: int = GATE_OP, aggregation_method: Any = None,
                          colocate_gradients_with_ops: bool = False,
                          grad_loss: Any = None) -> List[Tuple[Any, Any]]:
        """Gradients of ``loss`` for each variable: a list of ``(gradient, variable)``.

        The gradient is a Tensor, an ``IndexedSlices`` (rows read by a gather or
        embedding lookup) or None for variables ``loss`` does not depend on.
        ``var_list`` defaults to the graph's trainable variables.
        """
        if callable(loss) and not isinstance(loss, Tensor):
            raise TypeError("loss must be a Tensor; callables are only accepted in eager mode, "
                            "which tensorfleet does not have")
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError(f"gate_gradients must be one of: Optimizer.GATE_NONE, "
                             f"Optimizer.GATE_OP, Optimizer.GATE_GRAPH. Not {gate_gradients}")
        loss = convert_to_tensor(loss)
        self._assert_valid_dtypes([loss])
        graph = loss.graph
        if var_list is None:
            var_list = (graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)
                        + graph.get_collection(_TRAINABLE_RESOURCE_VARIABLES))
        else:
            var_list = list(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        for v in var_list:
            if not _is_variable(v):
                raise TypeError(f"Argument is not a tf.Variable: {v!r}")
        grads = gradients(loss, [_grad_target(v) for v in var_list], grad_ys=grad_loss,
                          gate_gradients=(gate_gradients == Optimizer.GATE_OP),
                          aggregation_method=aggregation_method,
                          colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gate_gradients == Optimizer.GATE_GRAPH:
            grads = _gate_all(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes([v for g, v in grads_and_vars if g is not None])
        return grads_and_vars

    def apply_gradients(self, grads_and_vars: Sequence[Tuple[Any, Any]], global_step: Any = None,
                        name: Optional[str] = None) -> Operation:
        """Adds the ops that update each variable with its gradient.

        With ``global_step``, the returned op also increments it, after every
        update has run.

        Raises:
          TypeError: if a gradient is not a Tensor/IndexedSlices or a variable is not
            a Variable.
          ValueError: if every gradient is None.
        """
        pairs = []
        for g, v in tuple(grads_and_vars):
            if not _is_variable(v):
                raise TypeError(f"Second element of each pair must be a tf.Variable, got {v!r}")
            if g is not None and not isinstance(g, IndexedSlices):
                try:
                    g = convert_to_tensor(g)
                except (TypeError, ValueError) as e:
                    raise TypeError(f"Gradient must be convertible to a Tensor or "
                                    f"IndexedSlices, or None: {g!r} ({e})") from None
            pairs.append((g, v))
        if not pairs:
            raise ValueError("No variables provided.")
        var_list = [v for g, v in pairs if g is not None]
        if not var_list:
            raise ValueError(f"No gradients provided for any variable: "
                             f"{[(str(g), v.name) for g, v in pairs]}.")
        graph = var_list[0].op.graph
        # Hyperparameter tensors and Adam's power updates are built in the default
        # graph; make it the variables' graph even if the caller did not.
        with graph.as_default():
            with graph.control_dependencies(None):
                self._create_slots(var_list)
            train_op = self._build_updates(graph, pairs, global_step, name)
        if isinstance(train_op, Tensor):
            train_op = train_op.op
        coll = graph.get_collection_ref(_TRAIN_OP)
        if train_op not in coll:
            coll.append(train_op)
        return train_op

    def _build_updates(self, graph: Graph, pairs: List[Tuple[Any, Any]], global_step: Any,
                       name: Optional[str]) -> Any:
        update_ops: List[Any] = []
        with graph.name_scope(name or self._name):
            self._prepare()
            grouped: Dict[tuple, List[Tuple[Any, Any, Tuple[str, List[Any], List[Any]]]]] = {}
            groups = self._groups_sparse_updates()
            for grad, var in pairs:
                if grad is None:
                    continue
                spec = self._sparse_update_spec(var) \
                    if groups and isinstance(grad, IndexedSlices) else None
                if spec is not None:
                    op_type, _, scalars = spec
                    key = (var.op.device, op_type, var.dtype.base_dtype,
                           tuple(id(t) for t in scalars))
                    grouped.setdefault(key, []).append((grad, var, spec))
                    continue
                update_ops.append(self._update_one(graph, grad, var))
            for members in grouped.values():
                if len(members) == 1:
                    update_ops.append(self._update_one(graph, members[0][0], members[0][1]))
                    continue
                op_type, _, scalars = members[0][2]
                # The variables share a device string, so the op runs where they all are.
                with graph.colocate_with(members[0][1].op):
                    update_ops.append(_ops.sparse_apply_many(
                        op_type, [[var] + list(spec[1]) for _, var, spec in members],
                        [grad.values for grad, _, _ in members],
                        [grad.indices for grad, _, _ in members], scalars,
                        use_locking=self._use_locking, name="update_many"))
            if global_step is None:
                return self._finish(update_ops, self._name)
            finish = self._finish(update_ops, "update")
            with graph.control_dependencies([finish]), graph.colocate_with(global_step.op):
                return state_ops.assign_add(global_step, 1, name=self._name)

    def _update_one(self, graph: Graph, grad: Any, var: Any) -> Any:
        """The update op of one variable."""
        # Colocated: on a cluster the update runs on the variable's parameter
        # server, and only the gradient travels there.
        with graph.name_scope("update_" + var.op.name), graph.colocate_with(var.op):
            if isinstance(grad, IndexedSlices):
                return self._apply_sparse_duplicate_indices(grad, var)
            return self._apply_dense(grad, var)

    def _sparse_update_spec(self, var: Any) -> Optional[Tuple[str, List[Any], List[Any]]]:
        """``(op type, slots, scalars)`` of the single sparse update of ``var`` when its
        op type is one of ``training_ops.GROUPABLE_SPARSE_UPDATES``: the sparse updates
        of variables on one device then run as one ``SparseApplyMany`` op. None (this
        default) builds each update by ``_apply_sparse``."""
        return None

    def _groups_sparse_updates(self) -> bool:
        """Whether sparse updates may be grouped: the class that describes them by
        ``_sparse_update_spec`` must also be the one whose ``_apply_sparse`` runs, so a
        subclass that changes the update is never bypassed."""
        cls = type(self)
        owner = next((k for k in cls.__mro__ if "_sparse_update_spec" in vars(k)), Optimizer)
        return owner is not Optimizer and cls._apply_sparse is owner._apply_sparse and \
            cls._apply_sparse_duplicate_indices is Optimizer._apply_sparse_duplicate_indices

    # -- slots ---------------------------------------------------------------------------
    def get_slot(self, var: Any, name: str) -> Any:
        """The slot variable ``name`` (e.g. ``"m"``) of ``var``, or None."""
        return self._slots.get(name, {}).get(_var_key(var))

    def get_slot_names(self) -> List[str]:
        """The names of the slots this optimizer creates, sorted."""
        return sorted(self._slots)

    def variables(self) -> List[Any]:
        """Slot and non-slot variables this optimizer created in the default graph."""
        gid = id(get_default_graph())
        out = [v for d in self._slots.values() for k, v in d.items() if k[0] == gid]
        out += [v for (n, g), v in self._non_slot_dict.items() if g == gid]
        return sorted(out, key=lambda v: v.name)

    def _slot_dict(self, slot_name: str) -> Dict[Tuple[int, str], Any]:
        return self._slots.setdefault(slot_name, {})

    def _get_or_make_slot(self, var: Any, fill_value: float, slot_name: str,
                          op_name: str) -> Any:
        """The slot ``slot_name`` of ``var``, made filled with ``fill_value`` if new.

        The slot is named ``<var op name>/<op_name>`` (``w/Adam``, ``w/Adam_1``),
        is not trainable and is colocated with ``var``.
        """
        slots = self._slot_dict(slot_name)
        key = _var_key(var)
        slot = slots.get(key)
        if slot is None:
            slot = slots[key] = _create_slot_var(var, fill_value, op_name)
        return slot

    def _zeros_slot(self, var: Any, slot_name: str, op_name: str) -> Any:
        """A zero-initialized slot (the common case)."""
        return self._get_or_make_slot(var, 0.0, slot_name, op_name)

    def _create_non_slot_variable(self, initial_value: float, name: str,
                                  colocate_with: Any) -> Any:
        """A variable of the optimizer itself (not per variable), made once per graph."""
        graph = colocate_with.op.graph
        key = (name, id(graph))
        v = self._non_slot_dict.get(key)
        if v is None:
            with graph.control_dependencies(None), graph.colocate_with(colocate_with.op):
                v = Variable(initial_value, name=name, trainable=False)
            self._non_slot_dict[key] = v
        return v

    def _get_non_slot_variable(self, name: str, graph: Optional[Graph] = None) -> Any:
        return self._non_slot_dict.get((name, id(graph or get_default_graph())))

    # -- hooks for subclasses -----------------------------------------------------------
    def _create_slots(self, var_list: List[Any]) -> None:
        """Creates the slots of every variable in ``var_list`` (none by default)."""

    def _prepare(self) -> None:
        """Records the hyperparameters (``_set_hypers``), once per ``apply_gradients``."""

    def _apply_dense(self, grad: Tensor, var: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not implement _apply_dense")

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not implement _apply_sparse")

    # True when ``_apply_sparse`` builds a fused ``SparseApply*`` op, whose kernel
    # sums the rows of repeated indices itself (on the variable's task, for free).
    _SPARSE_KERNEL_SUMS_DUPLICATES = False

    def _apply_sparse_duplicate_indices(self, grad: IndexedSlices, var: Any) -> Any:
        """Applies a sparse gradient that may repeat indices.

        ``_apply_sparse`` of a subclass receives unique indices, the rows of each
        repeated index summed (as TensorFlow guarantees); the built-in optimizers,
        whose kernels do that summing themselves, get the gradient as it is.
        """
        if self._SPARSE_KERNEL_SUMS_DUPLICATES:
            return self._apply_sparse(grad, var)
        return self._apply_sparse(_deduplicate_indexed_slices(grad), var)

    def _finish(self, update_ops: List[Any], name_scope: str) -> Operation:
        """The op that completes once every update has run."""
        return group(*update_ops, name=name_scope)

    def _call_if_callable(self, param: Any) -> Any:
        return param() if callable(param) else param

    def _set_hypers(self, **values: Any) -> None:
        """Records this step's hyperparameters (called from ``_prepare``).

        Tensors, Variables and callables returning them are converted once and
        shared by every update. Plain numbers stay numbers: ``_get_hyper`` makes
        one constant per variable device, so that on a cluster a parameter server
        does not receive the learning rate from a worker on every step.
        """
        self._hyper_values: Dict[str, Any] = {}
        self._hyper_consts: Dict[Tuple[str, str], Tensor] = {}
        for name, value in values.items():
            value = self._call_if_callable(value)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
                value = convert_to_tensor(value, name=name, preferred_dtype=_dtypes.float32)
            self._hyper_values[name] = value

    def _get_hyper(self, name: str, var: Any) -> Tensor:
        """Hyperparameter ``name`` as a tensor for the update of ``var``."""
        value = self._hyper_values[name]
        if isinstance(value, Tensor):
            return value
        key = (name, var.op.device)
        t = self._hyper_consts.get(key)
        if t is None:
            with var.op.graph.colocate_with(var.op):
                t = convert_to_tensor(float(value), name=name)
            self._hyper_consts[key] = t
        return t

    def _assert_valid_dtypes(self, tensors: Sequence[Any]) -> None:
        for t in tensors:
            dt = t.dtype.base_dtype
            if dt not in _FLOAT_TYPES:
                raise ValueError(f"Invalid type {dt!r} for {t.name}, expected: "
                                 f"{list(_FLOAT_TYPES)}.")


def _fill(shape: List[int], dtype: _dtypes.DType, value: float) -> Tensor:
    """A tensor of ``shape`` filled with ``value``, as a small op, not a big constant."""
    if value == 0.0:
        return array_ops.zeros(shape, dtype=dtype)
    if value == 1.0:
        return array_ops.ones(shape, dtype=dtype)
    return array_ops.fill(shape, np.array(value, dtype=dtype.np))


def _create_slot_var(var: Any, fill_value: float, op_name: str) -> Any:
    graph = var.op.graph
    shape = var.get_shape()
    dtype = var.dtype.base_dtype
    # Slot names are absolute ("<var>/<Optimizer>"), whatever scope the caller is in.
    with graph.control_dependencies(None), graph.name_scope(None), \
            graph.colocate_with(var.op):
        if shape.is_fully_defined():
            init: Callable[[], Any] = lambda: _fill(shape.as_list(), dtype, fill_value)
        else:
            def init() -> Any:
                base = var.initialized_value()
                return array_ops.zeros_like(base) + np.array(fill_value, dtype=dtype.np)
        slot = Variable(init, name=f"{var.op.name}/{op_name}", trainable=False, dtype=dtype)
    info = var._get_save_slice_info() if hasattr(var, "_get_save_slice_info") else None
    if info is not None:
        # The slot of a part is the same slice of the full slot tensor ("emb/Adam"), so
        # checkpoints hold slots of partitioned variables as TensorFlow does.
        from tensorfleet.ops.partitioned_variables import SaveSliceInfo
        # The unique name the slot got ("Adam_1" for the second one), not the one asked for.
        real = slot.op.name[len(var.op.name) + 1:]
        slot._set_save_slice_info(SaveSliceInfo(f"{info.full_name}/{real}", info.full_shape,
                                                info.var_offset, info.var_shape))
    return slot


def _deduplicate_indexed_slices(grad: IndexedSlices) -> IndexedSlices:
    """``grad`` with unique indices, the rows of repeated ones summed."""
    unique_indices, positions = sparse_ops.unique(grad.indices)
    summed = array_ops.unsorted_segment_sum(grad.values, positions,
                                            array_ops.shape(unique_indices)[0])
    return IndexedSlices(summed, unique_indices, grad.dense_shape)


def _gate_all(grads: List[Any]) -> List[Any]:
    """GATE_GRAPH: no gradient is usable before all of them are computed."""
    present = [g for g in grads if g is not None]
    gated = iter(_tuple(present))
    return [None if g is None else next(gated) for g in grads]


__all__ = ["Optimizer"]
