"""``tf.data.experimental.Optional`` and ``get_next_as_optional``: a value that may be
absent, held as a bool ``has_value`` tensor beside the value's component tensors (zeros,
with unknown dimensions 0, when absent).

``get_next_as_optional(iterator)`` advances the iterator as ``get_next()`` does, but at the
end of the sequence gives an empty optional instead of raising OutOfRangeError. Maps that
the iterator applies after its kernel run only when there is an element (inside a
``cond``), so a parse function never sees the zeros of an empty optional.
"""

from __future__ import annotations

from typing import Any, List, Optional as _Maybe

from tensorfleet import dtypes as _dtypes
from tensorfleet.data.iterator_ops import Iterator, flatten, pack_sequence_as
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, as_shape, scalar
from tensorfleet.framework.type_spec import OptionalSpec, TensorSpec
from tensorfleet.ops import array_ops as A
from tensorfleet.ops.control_flow_ops import cond
from tensorfleet.ops.op_util import make_op


def _optional_next_shapes(op: Operation) -> List[TensorShape]:
    return [scalar()] + [as_shape(s) for s in op.attrs.get("output_shapes", [])]


register_op("OneShotIteratorGetNextAsOptional", _optional_next_shapes, stateful=True)
register_op("IteratorGetNextAsOptional", _optional_next_shapes, stateful=True)
register_op("OptionalGetValue", lambda op: [t.shape for t in op.inputs[1:]])


def _zeros(spec: TensorSpec) -> Tensor:
    shape = [0 if d is None else d for d in (spec.shape.as_list()
                                             if spec.shape.ndims is not None else [])]
    if spec.dtype is _dtypes.string:
        return A.fill(shape, "")
    return A.zeros(shape, spec.dtype)


class Optional:
    """A value that may be absent (``tf.data.experimental.Optional``): build one with
    ``from_value``, ``empty`` or ``get_next_as_optional``."""

    def __init__(self, has_value: Tensor, components: List[Tensor], element_spec: Any,
                 internal: bool = False):
        if not internal:
            raise ValueError("Optional is built with Optional.from_value, Optional.empty or "
                             "tf.data.experimental.get_next_as_optional")
        self._has_value = has_value
        self._components = components
        self._element_spec = element_spec

    @staticmethod
    def from_value(value: Any) -> "Optional":
        """An optional holding ``value`` (a tensor, or tuples/dicts of them)."""
        with name_scope(None, "OptionalFromValue"):
            comps = [convert_to_tensor(x) for x in flatten(value)]
            spec = pack_sequence_as(value, [TensorSpec(t.shape, t.dtype) for t in comps])
            return Optional(A.constant(True), comps, spec, internal=True)

    @staticmethod
    def empty(element_spec: Any) -> "Optional":
        """An optional with no value, of the type ``element_spec`` (TensorSpecs, nested)."""
        leaves = flatten(element_spec)
        if not leaves or not all(isinstance(s, TensorSpec) for s in leaves):
            raise TypeError(f"Optional.empty: element_spec must be TensorSpecs (in tuples or "
                            f"dicts), got {element_spec!r}")
        with name_scope(None, "OptionalNone"):
            return Optional(A.constant(False), [_zeros(s) for s in leaves], element_spec,
                            internal=True)

    @property
    def element_spec(self) -> Any:
        """The specs of the value, nested like it."""
        return self._element_spec

    @property
    def _type_spec(self) -> OptionalSpec:
        return OptionalSpec(self._element_spec)

    def has_value(self, name: _Maybe[str] = None) -> Tensor:
        """A bool scalar: whether there is a value."""
        with name_scope(name, "OptionalHasValue"):
            return A.identity(self._has_value)

    def get_value(self, name: _Maybe[str] = None) -> Any:
        """The value; running it raises InvalidArgumentError when there is none."""
        specs = flatten(self._element_spec)
        op = make_op("OptionalGetValue", [self._has_value] + self._components,
                     [s.dtype for s in specs], name=name or "OptionalGetValue")
        return pack_sequence_as(self._element_spec, list(op.outputs))


def get_next_as_optional(iterator: Iterator) -> Optional:
    """The iterator's next element as an ``Optional``: empty at the end of the sequence
    (where ``get_next()`` raises OutOfRangeError).

    Raises:
      TypeError: ``iterator`` is not a tf.data Iterator.
    """
    if not isinstance(iterator, Iterator):
        raise TypeError(f"get_next_as_optional needs a tf.data Iterator, got "
                        f"{type(iterator).__name__}")
    op = iterator._next_op("OneShotIteratorGetNextAsOptional", "IteratorGetNextAsOptional",
                           [_dtypes.bool], [scalar()], "IteratorGetNextAsOptional")
    has_value, raw = op.outputs[0], list(op.outputs[1:])
    plan = iterator._plan
    with iterator._graph.as_default():
        if not plan.maps:
            comps = raw
        else:
            specs = [TensorSpec(c.shape, c.dtype) for c in flatten(plan.spec)]
            mapped = cond(has_value,
                          lambda: [A.identity(t) for t in flatten(iterator._apply_maps(
                              pack_sequence_as(plan.raw_spec, raw)))],
                          lambda: [_zeros(s) for s in specs], strict=True)
            comps = list(mapped)
        spec = pack_sequence_as(plan.spec, [TensorSpec(c.shape, c.dtype)
                                            for c in flatten(plan.spec)])
        return Optional(has_value, comps, spec, internal=True)


__all__ = ["Optional", "get_next_as_optional"]
