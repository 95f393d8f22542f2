"""``tf.data.experimental.make_saveable_from_iterator``: an iterator's position saved and
restored by ``tf.train.Saver`` with the variables.

The checkpoint holds the number of elements the iterator has produced since it started
(an int64 scalar named after the saveable's op). Restoring starts the iterator's pipeline
afresh and moves past that many elements, so a restored run continues with the element
that followed. That is exact when the pipeline gives the same elements on every pass; a
pipeline with state from outside (an unseeded shuffle or sampling, a Python generator, a
map with random or other stateful ops) may not, which ``external_state_policy`` governs.
"""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.data.iterator_ops import Iterator
from tensorfleet.data.options import ExternalStatePolicy
from tensorfleet.framework.graph import Operation, Tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.serialization import SubGraph
from tensorfleet.framework.tensor_shape import TensorShape, scalar
from tensorfleet.ops.op_util import no_outputs, scalar_shape

logger = logging.getLogger(__name__)

register_op("IteratorPosition", scalar_shape, stateful=True)
register_op("IteratorRestorePosition", no_outputs, stateful=True)

_POLICIES = {"warn": ExternalStatePolicy.WARN, "ignore": ExternalStatePolicy.IGNORE,
             "fail": ExternalStatePolicy.FAIL}


def _policy(value: Any) -> ExternalStatePolicy:
    if value is None:
        return ExternalStatePolicy.FAIL
    if isinstance(value, ExternalStatePolicy):
        return value
    if isinstance(value, str) and value.lower() in _POLICIES:
        return _POLICIES[value.lower()]
    raise ValueError(f"make_saveable_from_iterator: external_state_policy must be 'warn', "
                     f"'ignore', 'fail' or an ExternalStatePolicy, got {value!r}")


def _external_state(source: Dict[str, Any], stages: List[Dict[str, Any]]) -> List[str]:
    """What makes a replay of the pipeline differ from its first pass."""
    found: List[str] = []
    kind = source.get("kind")
    if kind == "generator":
        found.append("a Python generator source")
    if kind == "sample" and source.get("seed") is None:
        found.append("sample_from_datasets without a seed")
    for child in source.get("children") or []:
        found += _external_state(child.get("source") or {}, child.get("stages") or [])
    for st in stages:
        if st.get("op") == "shuffle" and st.get("seed") is None:
            found.append("shuffle without a seed")
        for value in st.values():
            fn = value.get("fn") if isinstance(value, dict) else value
            if isinstance(fn, SubGraph):
                ops = [op.type for op in fn.graph().get_operations() if op.op_def.stateful]
                if ops:
                    found.append(f"a {st.get('op')} function with stateful ops {sorted(set(ops))}")
        if isinstance(st.get("stages"), list):
            found += _external_state({}, st["stages"])
    return found


class _SavedPosition:
    """The position tensor, shaped like a variable for ``tf.train.Saver``."""

    def __init__(self, owner: "_IteratorSaveable", tensor: Tensor):
        self._owner, self._tensor = owner, tensor
        self.name = tensor.op.name

    op = property(lambda self: self._tensor.op)
    graph = property(lambda self: self._tensor.graph)
    dtype = property(lambda self: _dtypes.int64)

    def get_shape(self) -> TensorShape:
        return scalar()

    def _ref(self) -> Tensor:
        return self._tensor

    def value(self) -> Tensor:
        return self._tensor

    def _restore_group(self) -> Tuple[Any, str]:
        return self._owner, "position"


class _IteratorSaveable:
    """What ``make_saveable_from_iterator`` returns: add it to the
    ``SAVEABLE_OBJECTS`` collection (or a Saver's ``var_list``)."""

    def __init__(self, iterator: Iterator, name: str):
        self._iterator = iterator
        g = iterator._graph
        attrs = dict(iterator._attrs(with_source=iterator._one_shot),
                     one_shot=iterator._one_shot)
        self._inputs = list(iterator._components) if iterator._one_shot else []
        self._attrs = attrs
        with g.as_default(), name_scope(name):
            op = self._create("IteratorPosition", [], [_dtypes.int64], "position")
        self._position = op.outputs[0]
        self.name = self._position.op.name

    def _create(self, op_type: str, lead: List[Tensor], dtypes: List[Any],
                name: str) -> Operation:
        it, g = self._iterator, self._iterator._graph
        coloc = g.colocate_with(it._anchor) if it._anchor is not None else None
        if coloc is not None:
            coloc.__enter__()
        try:
            return g.create_op(op_type, lead + self._inputs, dtypes, dict(self._attrs),
                               name=name, shapes=[scalar()] if dtypes else [])
        finally:
            if coloc is not None:
                coloc.__exit__(None, None, None)

    def _checkpoint_items(self) -> List[Tuple[str, _SavedPosition]]:
        item = _SavedPosition(self, self._position)
        return [(item.name, item)]

    def _restore_from(self, tensors: Dict[str, Tensor]) -> Operation:
        with self._iterator._graph.as_default():
            return self._create("IteratorRestorePosition", [tensors["position"]], [],
                                "restore_position")


def make_saveable_from_iterator(iterator: Iterator, external_state_policy: Any = None
                                ) -> Any:
    """A saveable of ``iterator``'s position for ``tf.train.Saver`` (add it to
    ``tf.GraphKeys.SAVEABLE_OBJECTS``).

    ``external_state_policy`` ("fail" by default, "warn" or "ignore") says what to do when
    a replay of the pipeline may give other elements than its first pass (see the module
    docstring): raise ValueError, log a warning, or go on.

    Raises:
      TypeError: ``iterator`` is not a tf.data Iterator.
      ValueError: external state with the "fail" policy, or an unknown policy.
    """
    if not isinstance(iterator, Iterator):
        raise TypeError(f"make_saveable_from_iterator needs a tf.data Iterator, got "
                        f"{type(iterator).__name__}")
    policy = _policy(external_state_policy)
    found = _external_state(iterator._plan.source, iterator._stages)
    if found and policy is not ExternalStatePolicy.IGNORE:
        msg = (f"make_saveable_from_iterator: the pipeline depends on state outside it "
               f"({'; '.join(found)}), so a restored iterator may not continue with the "
               f"elements it would have given")
        if policy is ExternalStatePolicy.FAIL:
            raise ValueError(msg + "; pass external_state_policy='warn' or 'ignore' to "
                                   "save it anyway")
        logger.warning("%s", msg)
    return _IteratorSaveable(iterator, "IteratorSaveable")


__all__ = ["make_saveable_from_iterator"]
