"""The global step: one int64 counter per graph that training increments.

It is a non-trainable variable named ``global_step`` kept in the
``GLOBAL_STEP`` and ``GLOBAL_VARIABLES`` collections. It is created under
whatever device scope is active, so that ``replica_device_setter`` puts it on a
parameter server where every worker shares it.
"""

from __future__ import annotations

import logging
from typing import Any, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Graph, GraphKeys, Tensor, get_default_graph
from tensorfleet.ops.init_ops import zeros_initializer
from tensorfleet.ops.variable_scope import get_variable

logger = logging.getLogger(__name__)

GLOBAL_STEP_NAME = "global_step"


def _is_integer_scalar(t: Any) -> bool:
    dt = getattr(t, "dtype", None)
    shape = t.get_shape() if hasattr(t, "get_shape") else getattr(t, "shape", None)
    return (dt is not None and dt.base_dtype.is_integer and shape is not None
            and shape.ndims in (None, 0) and shape.is_compatible_with([]))


def assert_global_step(global_step_tensor: Any) -> None:
    """Raises TypeError unless ``global_step_tensor`` is an integer scalar Variable/Tensor."""
    if not (isinstance(global_step_tensor, Tensor) or hasattr(global_step_tensor, "_ref")
            or hasattr(global_step_tensor, "_variable")):
        raise TypeError(f"Existing 'global_step' must be a Variable or Tensor: "
                        f"{global_step_tensor!r}.")
    if not _is_integer_scalar(global_step_tensor):
        raise TypeError(f"Existing 'global_step' does not have integer scalar type: "
                        f"{global_step_tensor!r} (dtype {global_step_tensor.dtype!r}, shape "
                        f"{global_step_tensor.get_shape()}).")


def get_global_step(graph: Optional[Graph] = None) -> Any:
    """The graph's global step variable, or None when there is none.

    Looks in the ``GLOBAL_STEP`` collection first, then for a tensor named
    ``global_step:0``.

    Raises:
      TypeError: if the global step found is not an integer scalar.
    """
    graph = graph or get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) > 1:
        logger.error("Multiple tensors in the %r collection; none is used as global step.",
                     GraphKeys.GLOBAL_STEP)
        return None
    if found:
        gs = found[0]
    else:
        try:
            gs = graph.get_tensor_by_name(GLOBAL_STEP_NAME + ":0")
        except KeyError:
            return None
    assert_global_step(gs)
    return gs


def create_global_step(graph: Optional[Graph] = None) -> Any:
    """Creates the global step (int64 scalar, zero) in ``graph`` and returns it.

    Raises:
      ValueError: if the graph already has a global step.
    """
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), graph.name_scope(None):
        return _make_global_step()


def get_or_create_global_step(graph: Optional[Graph] = None) -> Any:
    """The graph's global step, created first if it does not exist yet."""
    graph = graph or get_default_graph()
    gs = get_global_step(graph)
    if gs is None:
        gs = create_global_step(graph)
    return gs


def global_step(sess: Any, global_step_tensor: Any) -> int:
    """The current value of the global step, as a Python int."""
    return int(sess.run(global_step_tensor))


def _make_global_step() -> Any:
    return get_variable(GLOBAL_STEP_NAME, shape=[], dtype=_dtypes.int64,
                        initializer=zeros_initializer(), trainable=False,
                        collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])


__all__ = ["get_global_step", "create_global_step", "get_or_create_global_step",
           "global_step", "assert_global_step"]
