"""Iterators over a ``tf.data.Dataset``: the graph side of an input pipeline.

An iterator becomes one stateful op per ``get_next()`` call. For a one-shot
iterator that op takes the source arrays (as ``Const`` inputs) and carries the
pipeline description in its attrs; it starts the pipeline on its first run.
An initializable iterator splits this in two ops: ``initializer`` (inputs and
pipeline, restarts the iteration each time it runs, so its sources may be
placeholders fed at that moment) and ``get_next`` (reads the started
iteration). Both ops name the same iterator resource by a shared name and are
colocated, so they always run on the same task. See
``kernels/numpy/dataset_kernels.py`` for what runs.

Map functions at the end of a pipeline are traced as ordinary ops on the tensors
that ``get_next`` returns (see ``Dataset.map`` for when that is exact). A map
followed by ``filter``, ``padded_batch`` or ``unbatch``, a map inside a ``zip`` or
``concatenate``, and every map of a data set bound to a reinitializable iterator
(``Iterator.from_structure``, whose ``get_next`` exists before its data sets do)
runs inside the kernel instead, as a sub-graph applied to every element.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any, Dict, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import (Graph, Operation, Tensor, get_default_graph,
                                         get_seed)
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, as_shape
from tensorfleet.ops.array_ops import constant
from tensorfleet.ops.op_util import const_value

logger = logging.getLogger(__name__)


def _shapes_from_attrs(op: Operation) -> List[TensorShape]:
    return [as_shape(s) for s in op.attrs.get("output_shapes", [])]


register_op("OneShotIteratorGetNext", _shapes_from_attrs, stateful=True)
register_op("IteratorGetNextV2", _shapes_from_attrs, stateful=True)
register_op("InitializeIterator", lambda op: [], stateful=True)


# -- nested structures (tuples and dicts of components; lists are values, as in TF) ---------

def flatten(structure: Any) -> List[Any]:
    """The leaves of nested tuples and dicts, dict entries in sorted key order."""
    if isinstance(structure, tuple):
        return [leaf for item in structure for leaf in flatten(item)]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    return [structure]


def pack_sequence_as(template: Any, flat: List[Any]) -> Any:
    """Rebuilds ``template``'s nesting with the leaves ``flat`` (inverse of ``flatten``)."""
    it = iter(flat)

    def rec(t: Any) -> Any:
        if isinstance(t, tuple):
            items = [rec(x) for x in t]
            return type(t)(*items) if hasattr(t, "_fields") else tuple(items)
        if isinstance(t, dict):
            filled = {k: rec(t[k]) for k in sorted(t)}
            return {k: filled[k] for k in t}
        return next(it)

    out = rec(template)
    if next(it, None) is not None:
        raise ValueError("pack_sequence_as: more leaves than the structure holds")
    return out


def map_structure(fn: Any, structure: Any) -> Any:
    """``structure`` with ``fn`` applied to every leaf."""
    return pack_sequence_as(structure, [fn(x) for x in flatten(structure)])


class ComponentSpec:
    """The dtype and static shape of one component of a data set's elements."""

    __slots__ = ("dtype", "shape")

    def __init__(self, dtype: Any, shape: Any):
        self.dtype = _dtypes.as_dtype(dtype)
        self.shape = as_shape(shape)

    def batched(self, batch_size: Optional[int]) -> "ComponentSpec":
        return ComponentSpec(self.dtype, TensorShape([batch_size]).concatenate(self.shape))

    def __repr__(self) -> str:
        return f"ComponentSpec({self.dtype.name}, {self.shape})"


class IteratorPlan:
    """What a data set hands an iterator: the source, the kernel stages, the maps."""

    def __init__(self, source: Dict[str, Any], leaves: List[Any], raw_spec: Any,
                 stages: List[Dict[str, Any]], maps: List[Any], spec: Any):
        self.source = source          # plain data: {"kind": "slices"} or the range bounds
        self.leaves = leaves          # numpy arrays or Tensors, one per source component
        self.raw_spec = raw_spec      # nested ComponentSpecs of what the kernel yields
        self.stages = stages          # plain-data stage dicts, seeds unresolved
        self.maps = maps              # map stages, applied in order after get_next
        self.spec = spec              # nested ComponentSpecs of the final elements


def _resolve_source(source: Dict[str, Any], depth: int = 1) -> Dict[str, Any]:
    """``source`` with the shuffle seeds of its children's stages resolved."""
    if not isinstance(source.get("children"), list):
        return dict(source)
    children = [dict(c, source=_resolve_source(c["source"], depth + 1),
                     stages=_resolve_seeds(c["stages"], offset=1000 * depth * (j + 1)))
                for j, c in enumerate(source["children"])]
    return dict(source, children=children)


def _resolve_seeds(stages: List[Dict[str, Any]], offset: int = 0) -> List[Dict[str, Any]]:
    """Shuffle seeds from the graph-level and op-level seeds, as random ops get theirs."""
    out = []
    for i, st in enumerate(stages, start=offset):
        st = dict(st)
        if st["op"] == "shuffle":
            graph_seed, op_seed = get_seed(st.get("seed"))
            st["seed"] = (None if graph_seed is None and op_seed is None else
                          [int(graph_seed or 0) & (2 ** 63 - 1), int(op_seed or 0) & (2 ** 63 - 1),
                           i])
        out.append(st)
    return out


class Iterator:
    """``tf.data.Iterator``: ``get_next()`` yields the next element as tensors.

    Made by ``Dataset.make_one_shot_iterator()`` or
    ``Dataset.make_initializable_iterator()``; not constructed directly.
    """

    def __init__(self, plan: IteratorPlan, one_shot: bool, shared_name: Optional[str] = None,
                 graph: Optional[Graph] = None, structure_only: bool = False):
        self._plan = plan
        self._one_shot = one_shot
        self._graph = graph or get_default_graph()
        # A fresh name per iterator: two graphs built alike (every worker builds
        # its own) never share an iteration by accident.
        self._shared_name = shared_name or f"iterator_{uuid.uuid4().hex[:16]}"
        self._initializer: Optional[Operation] = None
        self._anchor: Optional[Operation] = None
        with self._graph.as_default(), self._graph.name_scope(
                "OneShotIterator" if one_shot else "Iterator"):
            self._components = [self._as_component(leaf, i)
                                for i, leaf in enumerate(plan.leaves)]
            self._stages = _resolve_seeds(plan.stages)
            if structure_only:
                pass
            elif not one_shot:
                self._initializer = self._graph.create_op(
                    "InitializeIterator", self._components, [], self._attrs(with_source=True),
                    name="MakeIterator")
                self._anchor = self._initializer
            elif self._components:
                self._anchor = self._components[0].op

    def _as_component(self, leaf: Any, i: int) -> Tensor:
        if isinstance(leaf, Tensor):
            if leaf.graph is not self._graph:
                raise ValueError(f"Dataset component {leaf.name} is from another graph than "
                                 f"the iterator's")
            if self._one_shot and const_value(leaf) is None:
                raise ValueError(f"make_one_shot_iterator() needs a data set whose sources are "
                                 f"known at graph-build time; component {leaf.name} is "
                                 f"computed ({leaf.op.type}). Use make_initializable_iterator() "
                                 f"and run its initializer (feeding any placeholders).")
            return leaf
        return constant(leaf, name=f"component_{i}")

    def _attrs(self, with_source: bool) -> Dict[str, Any]:
        raw = flatten(self._plan.raw_spec)
        attrs: Dict[str, Any] = {"shared_name": self._shared_name,
                                 "output_types": [c.dtype for c in raw],
                                 "output_shapes": [c.shape for c in raw]}
        if with_source:
            attrs["source"] = _resolve_source(self._plan.source)
            attrs["stages"] = self._stages
        return attrs

    @staticmethod
    def from_structure(output_types: Any, output_shapes: Any = None,
                       shared_name: Optional[str] = None,
                       output_classes: Any = None) -> "Iterator":
        """A reinitializable iterator: ``get_next`` yields elements of this structure from
        whichever data set's ``make_initializer(dataset)`` op ran last.

        Every map of a data set bound this way runs inside the iterator kernel, element
        by element, since ``get_next`` exists before the data sets are known.
        """
        if output_classes is not None and any(c is not Tensor for c in flatten(output_classes)):
            raise TypeError(f"Iterator.from_structure: tensorfleet iterators yield dense "
                            f"Tensors only, got output_classes {output_classes!r}")
        types = map_structure(_dtypes.as_dtype, output_types)
        flat_types = flatten(types)
        if output_shapes is None:
            flat_shapes = [TensorShape(None) for _ in flat_types]
        else:
            flat_shapes = [as_shape(x) for x in (flatten(output_shapes) if isinstance(
                types, (tuple, dict)) else [output_shapes])]
            if len(flat_shapes) != len(flat_types):
                raise ValueError(f"Iterator.from_structure: output_shapes must be nested like "
                                 f"output_types {output_types}")
        spec = pack_sequence_as(types, [ComponentSpec(t, sh) for t, sh in
                                        zip(flat_types, flat_shapes)])
        plan = IteratorPlan({}, [], spec, [], [], spec)
        return Iterator(plan, one_shot=False, shared_name=shared_name, structure_only=True)

    def make_initializer(self, dataset: Any, name: Optional[str] = None) -> Operation:
        """An op that (re)starts this iterator on ``dataset``, whose element structure
        and dtypes must equal the iterator's and whose shapes must be compatible."""
        mine = flatten(self._plan.spec)
        theirs = flatten(dataset._spec)
        if len(mine) != len(theirs) or any(a.dtype is not b.dtype for a, b in
                                           zip(mine, theirs)):
            raise TypeError(f"Expected output types {self.output_types} but got dataset with "
                            f"output types {dataset.output_types}")
        if any(not a.shape.is_compatible_with(b.shape) for a, b in zip(mine, theirs)):
            raise TypeError(f"Expected output shapes compatible with {self.output_shapes} "
                            f"but got dataset with output shapes {dataset.output_shapes}")
        plan = dataset._plan(all_maps=True)
        g = self._graph
        with g.as_default(), g.name_scope("Iterator"):
            comps = [self._as_component(leaf, i) for i, leaf in enumerate(plan.leaves)]
            attrs = {"shared_name": self._shared_name,
                     "output_types": [c.dtype for c in mine],
                     "output_shapes": [c.shape for c in mine],
                     "source": _resolve_source(plan.source),
                     "stages": _resolve_seeds(plan.stages)}
            coloc = g.colocate_with(self._anchor) if self._anchor is not None else None
            if coloc is not None:
                coloc.__enter__()
            try:
                op = g.create_op("InitializeIterator", comps, [], attrs,
                                 name=name or "make_initializer")
            finally:
                if coloc is not None:
                    coloc.__exit__(None, None, None)
        if self._anchor is None:
            self._anchor = op
        return op

    @property
    def initializer(self) -> Operation:
        """The op that (re)starts an initializable iterator."""
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer: a one-shot iterator "
                             "starts on its first get_next(), and one made by "
                             "from_structure() is started by make_initializer(dataset).")
        return self._initializer

    def get_next(self, name: Optional[str] = None) -> Any:
        """Tensors of the next element, nested like the data set's elements.

        Each call adds an op; all of them advance the same iteration. Running it
        past the end raises ``tf.errors.OutOfRangeError``.
        """
        op = self._next_op("OneShotIteratorGetNext", "IteratorGetNextV2", [], [],
                           name or "IteratorGetNext")
        return self._apply_maps(pack_sequence_as(self._plan.raw_spec, list(op.outputs)))

    def _next_op(self, one_shot_type: str, op_type: str, lead_dtypes: List[Any],
                 lead_shapes: List[Any], name: str) -> Operation:
        """The op that advances this iteration: its outputs are ``lead_dtypes`` then the
        raw element's components."""
        raw = flatten(self._plan.raw_spec)
        g = self._graph
        with g.as_default():
            # The iteration lives on one task: every get_next op joins its anchor.
            coloc = g.colocate_with(self._anchor) if self._anchor is not None else None
            if coloc is not None:
                coloc.__enter__()
            try:
                dtypes = list(lead_dtypes) + [c.dtype for c in raw]
                shapes = list(lead_shapes) + [c.shape for c in raw]
                if self._one_shot:
                    op = g.create_op(one_shot_type, self._components, dtypes,
                                     self._attrs(with_source=True), name=name, shapes=shapes)
                else:
                    op = g.create_op(op_type, [], dtypes, self._attrs(with_source=False),
                                     name=name, shapes=shapes)
            finally:
                if coloc is not None:
                    coloc.__exit__(None, None, None)
            if self._anchor is None:
                self._anchor = op
        return op

    def _apply_maps(self, element: Any) -> Any:
        """The maps traced after the kernel's stages, applied to a raw element."""
        with self._graph.as_default():
            for stage in self._plan.maps:
                element = stage.apply(element)
        return element

    @property
    def output_types(self) -> Any:
        return map_structure(lambda c: c.dtype, self._plan.spec)

    @property
    def output_shapes(self) -> Any:
        return map_structure(lambda c: c.shape, self._plan.spec)

    @property
    def output_classes(self) -> Any:
        return map_structure(lambda c: Tensor, self._plan.spec)


def make_one_shot_iterator(dataset: Any) -> Iterator:
    """``tf.data.make_one_shot_iterator(ds)``: same as ``ds.make_one_shot_iterator()``."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset: Any, shared_name: Optional[str] = None) -> Iterator:
    """``tf.data.make_initializable_iterator(ds)``."""
    return dataset.make_initializable_iterator(shared_name=shared_name)


def get_output_types(dataset_or_iterator: Any) -> Any:
    """The nested dtypes of the elements."""
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator: Any) -> Any:
    """The nested static shapes of the elements."""
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator: Any) -> Any:
    """The nested classes of the elements' components (``tf.Tensor`` for every one)."""
    return map_structure(lambda _: Tensor, dataset_or_iterator.output_types)


__all__ = ["Iterator", "ComponentSpec", "IteratorPlan", "flatten", "pack_sequence_as",
           "map_structure", "make_one_shot_iterator", "make_initializable_iterator",
           "get_output_types", "get_output_shapes", "get_output_classes"]
