"""Tensor: the symbolic handle to one output of an operation.

It sits below ``graph`` so that the graph module only builds and holds nodes; a tensor
reaches its graph through its op, and finds the session that evaluates it through the
hook the runtime registers here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.tensor_shape import TensorShape, as_shape

if TYPE_CHECKING:  # annotations only; graph imports this module
    from tensorfleet.framework.graph import Graph, Operation


class Tensor:
    """A symbolic handle to one output of an ``Operation``.

    Arithmetic operators are attached by ``ops.math_ops`` so that this layer does
    not import the op families.
    """

    __array_priority__ = 100

    def __init__(self, op: "Operation", value_index: int, dtype: _dtypes.DType,
                 shape: TensorShape):
        self.op = op
        self.value_index = value_index
        self.dtype = dtype
        self._shape = shape
        self._name = f"{op.name}:{value_index}"

    @property
    def name(self) -> str:
        return self._name

    @property
    def graph(self) -> "Graph":
        return self.op.graph

    @property
    def device(self) -> str:
        return self.op.device

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape: Any) -> None:
        """Refines the static shape; ValueError if it conflicts with the known one."""
        self._shape = self._shape.merge_with(as_shape(shape))

    def consumers(self) -> List["Operation"]:
        return [op for op in self.op.graph.get_operations() if any(t is self for t in op.inputs)]

    def eval(self, feed_dict: Optional[dict] = None, session: Any = None) -> Any:
        """Runs this tensor in ``session`` or the default session."""
        return (session or default_session_or_raise()).run(self, feed_dict)

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self.dtype.name}>"

    def __hash__(self) -> int:
        return id(self)

    def __bool__(self) -> bool:
        raise TypeError("Using a tf.Tensor as a Python bool is not allowed; use tf.cond "
                        "to run ops conditionally.")

    def __iter__(self):
        raise TypeError("A tf.Tensor is not iterable; use tf.unstack or slicing.")

    @staticmethod
    def _override_operator(name: str, fn: Callable[..., Any]) -> None:
        setattr(Tensor, name, fn)


_default_session_fn: Optional[Callable[[], Any]] = None


def register_default_session_fn(fn: Callable[[], Any]) -> None:
    """Called by the runtime: how ``Tensor.eval`` finds the default session."""
    global _default_session_fn
    _default_session_fn = fn


def default_session_or_raise() -> Any:
    """The default session (``with sess.as_default()``); ValueError when there is none."""
    if _default_session_fn is None:
        raise ValueError("No session runtime is loaded; import tensorfleet first.")
    return _default_session_fn()


__all__ = ["Tensor", "register_default_session_fn", "default_session_or_raise"]
