"""``tf.TensorArray``: a list of tensors of one dtype, for loops that build or consume
a sequence one element at a time.

The design is functional. A TensorArray's value is a list of tensors that flows
through the graph as one tensor of dtype ``variant`` (the ``flow``); every
``write``, ``unstack``, ``scatter`` or ``split`` makes a new list and returns a new
``TensorArray`` around it, and reads take the list as an input. A TensorArray can
therefore be a loop variable of ``tf.while_loop`` like any tensor, and gradients
flow through its ops like through any other: the gradient of a list is a list of
gradients. A list lives on one task; the partitioner refuses to send one to another.

Elements are never cleared by a read (values are immutable), so
``clear_after_read`` has no effect on results; reading an element that was never
written is an error, as in TensorFlow.
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, as_shape, scalar, unknown_shape
from tensorfleet.ops import array_ops
from tensorfleet.ops.op_util import const_value, make_op, make_tensor


def _scalar_out(op: Operation) -> List[TensorShape]:
    return [scalar() for _ in op.outputs]


def _elem_shape(op: Operation) -> List[TensorShape]:
    return [as_shape(op.attrs.get("element_shape"))]


def _stacked_shape(op: Operation) -> List[TensorShape]:
    return [TensorShape([None]).concatenate(as_shape(op.attrs.get("element_shape")))]


def _concat_shape(op: Operation) -> List[TensorShape]:
    es = as_shape(op.attrs.get("element_shape"))
    first = TensorShape([None]).concatenate(es[1:]) if es.ndims else unknown_shape()
    return [first, TensorShape([None])]


register_op("TensorArrayV3", _scalar_out)
register_op("TensorArrayWriteV3", _scalar_out)
register_op("TensorArrayReadV3", _elem_shape)
register_op("TensorArrayGatherV3", _stacked_shape)
register_op("TensorArrayScatterV3", _scalar_out)
register_op("TensorArrayConcatV3", _concat_shape)
register_op("TensorArraySplitV3", _scalar_out)
register_op("TensorArraySizeV3", _scalar_out)
register_op("TensorArrayCloseV3", lambda op: [])
# Gradient helpers: a list of gradients is sparse (missing entries are zeros), so the
# ops that read one are told the shape of the value they stand for.
register_op("TensorArrayGradEmpty", _scalar_out)
register_op("TensorArrayGradRead", lambda op: [unknown_shape()])
register_op("TensorArrayGradGather", lambda op: [unknown_shape()])
register_op("TensorArrayGradConcat", lambda op: [unknown_shape()])
register_op("TensorArrayGradClear", _scalar_out)


def _shape_of(x: Any) -> TensorShape:
    return x if isinstance(x, TensorShape) else as_shape(x)


class TensorArray:
    """A list of tensors of ``dtype`` that may grow (``dynamic_size``), written and read
    by index; usable as a ``tf.while_loop`` variable.

    Args:
      dtype: the element type.
      size: the number of elements (an int or int32 scalar tensor); 0 when omitted
        with ``dynamic_size=True``.
      dynamic_size: whether writes past the end grow the array.
      clear_after_read: accepted for compatibility; values are immutable, so reads
        never clear an element.
      tensor_array_name: kept as an attr of the creation op.
      handle, flow: build a TensorArray around an existing flow (``flow``; ``handle``
        is accepted as a synonym since the flow is the array).
      infer_shape: refine ``element_shape`` from written values (and require all
        elements to agree).
      element_shape: the static shape of every element, if known.
      colocate_with_first_write_call: accepted; an array lives where its ops run.
      name: name of the creation op (default ``TensorArray``).
    """

    def __init__(self, dtype: Any, size: Any = None, dynamic_size: Optional[bool] = None,
                 clear_after_read: Optional[bool] = None,
                 tensor_array_name: Optional[str] = None, handle: Any = None, flow: Any = None,
                 infer_shape: bool = True, element_shape: Any = None,
                 colocate_with_first_write_call: bool = True, name: Optional[str] = None):
        self._dtype = _dtypes.as_dtype(dtype)
        if self._dtype is _dtypes.variant:
            raise TypeError("TensorArray: dtype variant is not supported as an element type")
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = bool(infer_shape)
        # Shared by every TensorArray derived from this one, so a shape learned from a
        # write (inside a loop body, say) is known to later reads and stacks.
        self._element_shape: List[TensorShape] = [
            unknown_shape() if element_shape is None else _shape_of(element_shape)]
        self._static_size: Optional[int] = None
        if flow is None and handle is not None:
            flow = handle
        if flow is not None:
            if size is not None:
                raise ValueError("TensorArray: give either size or flow/handle, not both")
            f = convert_to_tensor(flow)
            if f.dtype is not _dtypes.variant:
                raise TypeError(f"TensorArray: flow must be a variant tensor, got "
                                f"{f.dtype.name} ({f.name})")
            self._flow = f
            return
        if size is None:
            if not self._dynamic_size:
                raise ValueError("Size must be provided if handle is not provided")
            size = 0
        size_t = convert_to_tensor(size, dtype=_dtypes.int32)
        if size_t.shape.ndims not in (None, 0):
            raise ValueError(f"TensorArray: size must be a scalar, got shape {size_t.shape}")
        known = const_value(size_t)
        if known is not None and not self._dynamic_size:
            self._static_size = int(known)
        attrs = {"dtype": self._dtype, "element_shape": self._element_shape[0],
                 "dynamic_size": self._dynamic_size,
                 "clear_after_read": self._clear_after_read,
                 "identical_element_shapes": self._infer_shape,
                 "tensor_array_name": tensor_array_name or ""}
        self._flow = make_tensor("TensorArrayV3", [size_t], _dtypes.variant, attrs,
                                 name=name or "TensorArray")

    # -- identity --------------------------------------------------------------------
    @property
    def flow(self) -> Tensor:
        """The list value, a variant scalar tensor."""
        return self._flow

    @property
    def handle(self) -> Tensor:
        """The same tensor as ``flow``: the array is its value."""
        return self._flow

    @property
    def dtype(self) -> _dtypes.DType:
        """The element type."""
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        """Whether writes past the end grow the array."""
        return self._dynamic_size

    @property
    def element_shape(self) -> TensorShape:
        """The static shape known for every element (refined by writes)."""
        return self._element_shape[0]

    def _with_flow(self, flow: Tensor) -> "TensorArray":
        ta = TensorArray.__new__(TensorArray)
        ta._dtype = self._dtype
        ta._dynamic_size = self._dynamic_size
        ta._clear_after_read = self._clear_after_read
        ta._infer_shape = self._infer_shape
        ta._element_shape = self._element_shape
        ta._static_size = self._static_size
        ta._flow = flow
        return ta

    def _merge_shape(self, shape: TensorShape) -> None:
        if not self._infer_shape:
            return
        cur = self._element_shape[0]
        if not cur.is_compatible_with(shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {cur} "
                             f"(and infer_shape=True)")
        self._element_shape[0] = cur.merge_with(shape)

    def _attrs(self) -> dict:
        return {"dtype": self._dtype, "element_shape": self._element_shape[0]}

    def _value(self, value: Any) -> Tensor:
        v = convert_to_tensor(value, dtype=self._dtype)
        return v

    # -- ops ---------------------------------------------------------------------------
    def identity(self) -> "TensorArray":
        """A TensorArray with the same value (its flow through an Identity)."""
        return self._with_flow(array_ops.identity(self._flow))

    def read(self, index: Any, name: Optional[str] = None) -> Tensor:
        """The element at ``index``."""
        i = convert_to_tensor(index, dtype=_dtypes.int32)
        return make_tensor("TensorArrayReadV3", [self._flow, i], self._dtype, self._attrs(),
                           name=name or "TensorArrayReadV3")

    def write(self, index: Any, value: Any, name: Optional[str] = None) -> "TensorArray":
        """A TensorArray whose element ``index`` is ``value`` (written once only)."""
        g = self._flow.graph
        with g.name_scope(name or "TensorArrayWrite"):
            i = convert_to_tensor(index, dtype=_dtypes.int32)
            v = self._value(value)
            self._merge_shape(v.shape)
            flow = make_tensor("TensorArrayWriteV3", [self._flow, i, v], _dtypes.variant,
                               self._attrs(), name="TensorArrayWriteV3")
        return self._with_flow(flow)

    def stack(self, name: Optional[str] = None) -> Tensor:
        """All elements stacked along a new first axis."""
        g = self._flow.graph
        with g.name_scope(name or "TensorArrayStack"):
            out = make_tensor("TensorArrayGatherV3", [self._flow], self._dtype,
                              dict(self._attrs(), all=True), name="TensorArrayGatherV3")
        if self._static_size is not None:
            out.set_shape(TensorShape([self._static_size]).concatenate(self.element_shape))
        return out

    def gather(self, indices: Any, name: Optional[str] = None) -> Tensor:
        """The elements at ``indices`` stacked along a new first axis."""
        idx = convert_to_tensor(indices, dtype=_dtypes.int32)
        out = make_tensor("TensorArrayGatherV3", [self._flow, idx], self._dtype,
                          dict(self._attrs(), all=False), name=name or "TensorArrayGatherV3")
        if idx.shape.ndims == 1:
            out.set_shape(TensorShape([idx.shape[0]]).concatenate(self.element_shape))
        return out

    def unstack(self, value: Any, name: Optional[str] = None) -> "TensorArray":
        """A TensorArray holding the rows of ``value`` as elements 0..n-1."""
        g = self._flow.graph
        with g.name_scope(name or "TensorArrayUnstack"):
            v = self._value(value)
            if v.shape.ndims == 0:
                raise ValueError(f"Shape must be at least rank 1 but is rank 0 ({v.name})")
            if v.shape.ndims is not None:
                self._merge_shape(v.shape[1:])
            flow = make_tensor("TensorArrayScatterV3", [self._flow, v], _dtypes.variant,
                               dict(self._attrs(), all=True), name="TensorArrayScatterV3")
        return self._with_flow(flow)

    def scatter(self, indices: Any, value: Any, name: Optional[str] = None) -> "TensorArray":
        """A TensorArray whose elements ``indices[i]`` are the rows ``value[i]``."""
        g = self._flow.graph
        with g.name_scope(name or "TensorArrayScatter"):
            idx = convert_to_tensor(indices, dtype=_dtypes.int32)
            v = self._value(value)
            if v.shape.ndims is not None and v.shape.ndims >= 1:
                self._merge_shape(v.shape[1:])
            flow = make_tensor("TensorArrayScatterV3", [self._flow, v, idx], _dtypes.variant,
                               dict(self._attrs(), all=False), name="TensorArrayScatterV3")
        return self._with_flow(flow)

    def concat(self, name: Optional[str] = None) -> Tensor:
        """All elements concatenated along their first axis."""
        op = make_op("TensorArrayConcatV3", [self._flow], [self._dtype, _dtypes.int64],
                     self._attrs(), name=name or "TensorArrayConcatV3")
        return op.outputs[0]

    def split(self, value: Any, lengths: Any, name: Optional[str] = None) -> "TensorArray":
        """A TensorArray whose element i is the next ``lengths[i]`` rows of ``value``."""
        g = self._flow.graph
        with g.name_scope(name or "TensorArraySplit"):
            v = self._value(value)
            ln = convert_to_tensor(lengths, dtype=_dtypes.int64)
            if v.shape.ndims is not None and v.shape.ndims >= 1:
                self._merge_shape(TensorShape([None]).concatenate(v.shape[1:]))
            flow = make_tensor("TensorArraySplitV3", [self._flow, v, ln], _dtypes.variant,
                               self._attrs(), name="TensorArraySplitV3")
        return self._with_flow(flow)

    def size(self, name: Optional[str] = None) -> Tensor:
        """The number of elements, an int32 scalar."""
        return make_tensor("TensorArraySizeV3", [self._flow], _dtypes.int32,
                           name=name or "TensorArraySizeV3")

    def close(self, name: Optional[str] = None) -> Operation:
        """An op marking the end of the array's use (its value needs no freeing)."""
        return make_op("TensorArrayCloseV3", [self._flow], [], name=name or "TensorArrayCloseV3")


def empty_grad_list(like: Any = None) -> Tensor:
    """A list of gradients that are all zero, a variant scalar."""
    g = like.graph if isinstance(like, Tensor) else get_default_graph()
    with g.colocate_with(like.op) if isinstance(like, Tensor) else _Null():
        return g.create_op("TensorArrayGradEmpty", [], [_dtypes.variant],
                           name="TensorArrayGradEmpty").outputs[0]


class _Null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *a: Any) -> None:
        return None


__all__ = ["TensorArray"]
