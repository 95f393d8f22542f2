"""The op registry: what each op type is (stateful, ref inputs, shape function).

Families register their ops here from ``ops/``; the executor and the graph
deserializer consult it, so a graph naming an unregistered op is refused.
"""

from __future__ import annotations

from typing import Any, Callable, Collection, Dict, FrozenSet, Iterable, List, Optional

from tensorfleet import errors
from tensorfleet.framework.tensor_shape import TensorShape

ShapeFn = Callable[[Any], List[TensorShape]]


class OpDef:
    """Static facts about one op type."""

    __slots__ = ("name", "shape_fn", "stateful", "ref_inputs", "ref_output", "no_cse",
                 "ref_count_attr")

    def __init__(self, name: str, shape_fn: Optional[ShapeFn], stateful: bool,
                 ref_inputs: FrozenSet[int], ref_output: bool,
                 ref_count_attr: Optional[str] = None):
        self.name = name
        self.shape_fn = shape_fn
        self.stateful = stateful
        self.ref_inputs = ref_inputs
        self.ref_output = ref_output
        self.ref_count_attr = ref_count_attr

    def ref_indices(self, op: Any) -> Collection[int]:
        """The indices of ``op``'s inputs that take a variable reference: the fixed
        ``ref_inputs``, or the first ``op.attrs[ref_count_attr]`` inputs of an op
        type whose number of variables varies (a grouped update)."""
        if self.ref_count_attr is None:
            return self.ref_inputs
        return range(min(int(op.attrs.get(self.ref_count_attr, 0)), len(op.inputs)))


_REGISTRY: Dict[str, OpDef] = {}


def register_op(name: str, shape_fn: Optional[ShapeFn] = None, *, stateful: bool = False,
                ref_inputs: Iterable[int] = (), ref_output: bool = False,
                ref_count_attr: Optional[str] = None) -> OpDef:
    """Registers op type ``name``; re-registering replaces the entry (for reloads).

    Args:
      shape_fn: ``fn(op) -> [TensorShape per output]``; may raise ValueError for
        incompatible input shapes, which surfaces at graph-build time.
      stateful: the op has side effects or reads mutable state; it is never
        cached and runs at most once per step.
      ref_inputs: indices of inputs that take a variable reference, not a value.
      ref_output: output 0 is a reference to a variable (``VariableV2``).
      ref_count_attr: instead of ``ref_inputs``, the attr that says how many leading
        inputs take a reference.
    """
    od = OpDef(name, shape_fn, stateful, frozenset(ref_inputs), ref_output, ref_count_attr)
    _REGISTRY[name] = od
    return od


def get_op_def(name: str) -> OpDef:
    """The ``OpDef`` of ``name``; NotFoundError naming it when unregistered."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise errors.NotFoundError(
            None, None, f"Op type not registered: {name!r}") from None


def has_op(name: str) -> bool:
    return name in _REGISTRY


def registered_ops() -> List[str]:
    return sorted(_REGISTRY)


__all__ = ["OpDef", "register_op", "get_op_def", "has_op", "registered_ops"]
