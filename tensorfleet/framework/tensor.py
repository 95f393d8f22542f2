"""Tensor: the symbolic handle to one output of an operation.

It sits below ``graph`` so that the graph module only builds and holds nodes; a tensor
reaches its graph through its op, and finds the session that evaluates it through the
hook the runtime registers here. ``convert_to_tensor`` and its registry of conversions
live here too: they need tensors only, and the op families hand their constant
constructor down to this layer.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.tensor_shape import TensorShape, as_shape


class Tensor:
    """A symbolic handle to one output of an ``Operation``.

    Arithmetic operators are attached by ``ops.math_ops`` so that this layer does
    not import the op families. ``op`` is the producing ``Operation`` (typed ``Any``
    because ``framework.graph`` imports this module).
    """

    __array_priority__ = 100

    def __init__(self, op: Any, value_index: int, dtype: _dtypes.DType,
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
    def graph(self) -> Any:
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

    def consumers(self) -> List[Any]:
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


_CONVERSIONS: List[tuple] = []
_constant_fn: Optional[Callable[..., Tensor]] = None


def register_tensor_conversion_function(base_type: type, fn: Callable[..., Tensor]) -> None:
    """Lets ``convert_to_tensor`` accept instances of ``base_type`` (e.g. Variable)."""
    _CONVERSIONS.append((base_type, fn))


def _register_constant_fn(fn: Callable[..., Tensor]) -> None:
    # The op families live in a layer above this one; they hand their constant
    # constructor (which also packs lists holding tensors) down here.
    global _constant_fn
    _constant_fn = fn


def convert_to_tensor(value: Any, dtype: Any = None, name: Optional[str] = None,
                      preferred_dtype: Any = None) -> Tensor:
    """Returns ``value`` as a Tensor, making a constant from Python/numpy values.

    Raises:
      TypeError/ValueError: if ``value`` has a dtype other than the requested one.
    """
    if isinstance(value, Tensor):
        if dtype is not None and _dtypes.as_dtype(dtype) is not value.dtype:
            raise ValueError(f"Tensor conversion requested dtype {_dtypes.as_dtype(dtype).name} "
                             f"for Tensor with dtype {value.dtype.name}: {value!r}")
        return value
    for base, fn in _CONVERSIONS:
        if isinstance(value, base):
            return fn(value, dtype=dtype, name=name)
    if _constant_fn is None:
        raise RuntimeError("tensorfleet.ops is not loaded; import tensorfleet first.")
    if dtype is None and preferred_dtype is not None:
        try:
            return _constant_fn(value, dtype=preferred_dtype, name=name or "Const")
        except (TypeError, ValueError):
            pass
    return _constant_fn(value, dtype=dtype, name=name or "Const")


__all__ = ["Tensor", "register_default_session_fn", "default_session_or_raise",
           "convert_to_tensor", "register_tensor_conversion_function"]
