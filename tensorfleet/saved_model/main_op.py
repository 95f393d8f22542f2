"""``tf.saved_model.main_op``: the op a SavedModel runs after restoring its variables.

``main_op()`` initializes the global and local variables and the lookup tables;
``main_op_with_restore(restore_op)`` runs that and then the given restore op. Also here:
``get_tensor_from_tensor_info``, the tensor of a graph that a ``TensorInfo`` names.
"""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet.framework.graph import Operation, Tensor, get_default_graph
from tensorfleet.ops.control_flow_ops import group
from tensorfleet.ops.lookup_ops import tables_initializer
from tensorfleet.ops.variables import global_variables_initializer, local_variables_initializer
from tensorfleet.saved_model.signature import TensorInfo

__all__ = ["main_op", "main_op_with_restore", "get_tensor_from_tensor_info"]


def main_op() -> Operation:
    """One op initializing the global and local variables and the lookup tables."""
    return group(global_variables_initializer(), local_variables_initializer(),
                 tables_initializer())


def main_op_with_restore(restore_op_name: Any) -> Operation:
    """An op running ``main_op()`` and then ``restore_op_name`` (an op or tensor; a plain
    name string is refused, as ``tf.group`` refuses it)."""
    if not isinstance(restore_op_name, (Operation, Tensor)):
        raise TypeError(f"'inputs' should be zero or more (nested) Tensors. Received "
                        f"{restore_op_name!r} with type {type(restore_op_name)}.")
    with get_default_graph().control_dependencies([main_op()]):
        return group(restore_op_name)


def get_tensor_from_tensor_info(tensor_info: Any, graph: Any = None,
                                import_scope: Optional[str] = None) -> Tensor:
    """The tensor of ``graph`` (default: the default graph) named by ``tensor_info``, under
    ``import_scope`` when the graph was imported with one."""
    if not isinstance(tensor_info, TensorInfo):
        raise TypeError(f"tensor_info must be a TensorInfo, got {type(tensor_info).__name__}")
    g = graph if graph is not None else get_default_graph()
    name = tensor_info.name if not import_scope else f"{import_scope}/{tensor_info.name}"
    return g.get_tensor_by_name(name)
