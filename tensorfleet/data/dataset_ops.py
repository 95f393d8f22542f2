"""``tf.data.Dataset``: a declarative input pipeline that any task can run.

A ``Dataset`` is a description, not a graph: a source (slices of arrays, or a
range of integers) and a list of stages, each plain data. Only
``make_one_shot_iterator()`` / ``make_initializable_iterator()`` put it into a
graph, as one stateful op whose attrs carry the stages; the graph can then be
serialized and run on any task of a cluster, because the kernel needs nothing
but those attrs and the source arrays.

Sharding for data-parallel training: every worker builds the same data set and
keeps its own part with ``ds.shard(num_workers, worker_index)``; the shards are
disjoint and together hold every element (shard before shuffling, so that each
worker shuffles only its part).

Sources are slices of arrays, integer ranges, files, Python generators
(``from_generator``, run in the process that built the graph) and the ``zip`` or
``concatenate`` of other data sets. ``filter``, ``padded_batch`` and ``unbatch``
need element values, so they run inside the iterator kernel, together with every
``map`` before them (traced into a sub-graph that the kernel runs per element).

``map(fn)`` -- the rule for the maps after the last such stage. ``fn`` is
traced into the graph *after* ``get_next``, on the tensors the iterator yields.
Where those are single elements (no ``batch`` follows the map) that is exactly
``map``. Where a ``batch`` follows, ``fn`` is applied to whole batches, which
equals mapping every element and then batching when ``fn`` is element-wise:
``tf.cast``, arithmetic with scalars or with constants broadcast along the
element's own dimensions, activations, ``tf.one_hot`` on the last axis, and
restructuring (building tuples and dicts of its inputs). ``fn`` is traced once
on its own to check this; when a map followed by a batch uses any other op
(reshape, reductions, random ops, constants as outputs), the maps before that
batch run inside the kernel, element by element, and the batch stacks their
results -- exact, but slower than the vectorised path.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.data import dataset_compose as _compose
from tensorfleet.data import readers
from tensorfleet.data.debug_mode import debug_mode_enabled
from tensorfleet.data.options import Options, check_options
from tensorfleet.data.iterator_ops import (ComponentSpec, Iterator, IteratorPlan, flatten,
                                           map_structure, pack_sequence_as)
from tensorfleet.framework.graph import Graph, Tensor, convert_to_tensor
from tensorfleet.framework.tensor_shape import as_shape
from tensorfleet.ops.array_ops import expand_dims, placeholder
from tensorfleet.ops.op_util import const_value

logger = logging.getLogger(__name__)

# Ops whose output, per element, has its input's shape (or a broadcast of it).
_UNARY = frozenset({
    "Identity", "StopGradient", "Cast", "Abs", "Neg", "Square", "Sqrt", "Rsqrt", "Exp", "Expm1",
    "Log", "Log1p", "Tanh", "Sigmoid", "Relu", "Relu6", "Elu", "Selu", "Softplus", "LeakyRelu",
    "Sign", "Floor", "Ceil", "Round", "Reciprocal", "Sin", "Cos", "LogicalNot", "IsNan",
    "IsFinite", "IsInf", "ZerosLike", "OnesLike",
    # String parsing, value by value (DecodeRaw adds one trailing dimension).
    "DecodeCSV", "StringToNumber", "DecodeRaw"})
_BINARY = frozenset({
    "Add", "Sub", "Mul", "RealDiv", "FloorDiv", "FloorMod", "Maximum", "Minimum", "Pow",
    "SquaredDifference", "Equal", "NotEqual", "Greater", "GreaterEqual", "Less", "LessEqual",
    "LogicalAnd", "LogicalOr"})


def _count(value: Any, what: str, lo: int) -> int:
    """A Python int from an int or a constant tensor; InvalidArgumentError below ``lo``."""
    if isinstance(value, Tensor):
        v = const_value(value)
        if v is None:
            raise errors.UnimplementedError(None, None, f"{what} must be known when the data "
                                            f"set is built, got the computed tensor {value.name}")
        value = v
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise errors.InvalidArgumentError(None, None, f"{what} must be an integer, got "
                                          f"{value!r}")
    value = int(value)
    if value < lo:
        raise errors.InvalidArgumentError(None, None, f"{what} must be >= {lo}, got {value}")
    return value


def _as_leaf(value: Any) -> Any:
    """A source component: a numpy array, or a Tensor when only the graph knows it."""
    if isinstance(value, Tensor):
        v = const_value(value)
        return value if v is None else np.asarray(v)
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value)
    if hasattr(value, "_as_graph_element") or hasattr(value, "_ref"):
        return convert_to_tensor(value)
    return np.asarray(value, dtype=_dtypes.dtype_of_value(value).np)


def _leaf_spec(leaf: Any, sliced: bool) -> ComponentSpec:
    shape = as_shape(leaf.shape if not isinstance(leaf, Tensor) else leaf.shape)
    dtype = leaf.dtype if isinstance(leaf, Tensor) else _dtypes.as_dtype(leaf.dtype)
    if not sliced:
        return ComponentSpec(dtype, shape)
    if shape.ndims == 0:
        raise errors.InvalidArgumentError(None, None, "Dataset.from_tensor_slices: every "
                                          "component must have rank >= 1 (a leading dimension "
                                          "to slice)")
    if shape.ndims is None:
        raise errors.InvalidArgumentError(None, None, "Dataset.from_tensor_slices: the rank "
                                          "of every component must be known")
    return ComponentSpec(dtype, shape.as_list()[1:])


class _MapStage:
    """One ``map``: the function, what it takes and gives, and whether it is element-wise."""

    def __init__(self, fn: Callable[..., Any], in_spec: Any):
        self.fn = fn
        self.in_spec = in_spec
        self.out_spec, self.problem = self._trace()
        self._kernel: Optional[Dict[str, Any]] = None

    def _call(self, element: Any) -> Any:
        return self.fn(*element) if isinstance(element, tuple) and not hasattr(
            element, "_fields") else self.fn(element)

    def _trace(self) -> Tuple[Any, Optional[str]]:
        g = Graph()
        with g.as_default():
            phs = [placeholder(c.dtype, c.shape, name=f"element_{i}")
                   for i, c in enumerate(flatten(self.in_spec))]
            try:
                out = self._call(pack_sequence_as(self.in_spec, phs))
                outs = [convert_to_tensor(x) for x in flatten(out)]
            except ValueError as e:
                if "same graph" in str(e) or "another graph" in str(e):
                    raise ValueError(f"Dataset.map: the map function is traced on its own and "
                                     f"may not use tensors of the surrounding graph ({e})") \
                        from None
                raise
        spec = pack_sequence_as(out, [ComponentSpec(t.dtype, t.shape) for t in outs])
        return spec, _elementwise_problem(g, phs, outs)

    def kernel_stage(self) -> Dict[str, Any]:
        """The plain stage that runs this map inside the iterator kernel."""
        if self._kernel is None:
            self._kernel, _ = _compose.function_stage("map", self.fn, self.in_spec)
        return self._kernel

    def apply(self, element: Any) -> Any:
        """Traces the function on ``element``'s tensors in the current graph."""
        out = self._call(element)
        flat = [convert_to_tensor(x) for x in flatten(out)]
        return pack_sequence_as(out, flat)


def _elementwise_problem(g: Graph, inputs: List[Tensor], outputs: List[Tensor]) -> Optional[str]:
    """Why a traced map function is not batch-agnostic, or None when it is."""
    derived = set(inputs)
    for op in g.get_operations():
        if op.type == "Placeholder" and op.outputs[0] in derived:
            continue
        from_element = [t for t in op.inputs if t in derived]
        if not from_element:
            # A constant sub-computation is the same for a batch as for an element,
            # unless it changes from run to run.
            if op.op_def.stateful:
                return f"the stateful op {op.type} ({op.name})"
            continue
        out_rank = op.outputs[0].shape.ndims if op.outputs else None
        if op.type in _UNARY:
            pass
        elif op.type in _BINARY:
            for t in op.inputs:
                rank = t.shape.ndims
                if rank is None or out_rank is None:
                    return f"{op.type} ({op.name}) on tensors of unknown rank"
                if (t in derived and rank != out_rank) or (t not in derived and rank > out_rank):
                    return (f"{op.type} ({op.name}), which broadcasts a rank-{rank} operand "
                            f"to rank {out_rank}")
        elif op.type == "OneHot" and op.attrs.get("axis", -1) == -1 and \
                len(from_element) == 1 and from_element[0] is op.inputs[0]:
            pass
        else:
            return f"the op {op.type} ({op.name})"
        derived.update(op.outputs)
    for t in outputs:
        if t not in derived:
            return f"the output {t.name}, which does not depend on the element"
    return None


def transformation_input(ds: Any, what: str) -> "Dataset":
    """``ds``, which a ``Dataset.apply`` transformation named ``what`` was applied to;
    TypeError when it is not a Dataset."""
    if not isinstance(ds, Dataset):
        raise TypeError(f"{what} is a transformation for Dataset.apply; it was applied to "
                        f"{type(ds).__name__}")
    return ds


class _KernelStage:
    """A stage that needs element values (filter, padded_batch, unbatch), with the
    element spec after it."""

    def __init__(self, stage: Dict[str, Any], out_spec: Any):
        self.stage, self.out_spec = stage, out_spec


class Dataset:
    """A sequence of elements (nested tuples/dicts of tensors), described declaratively.

    Build one with ``from_tensor_slices``, ``from_tensors`` or ``range`` and chain
    transformations; every transformation returns a new ``Dataset``.
    """

    def __init__(self, source: Dict[str, Any], leaves: List[Any], source_spec: Any,
                 stages: Tuple[Any, ...] = (), spec: Any = None):
        self._source = source
        self._leaves = leaves
        self._source_spec = source_spec
        self._stages = stages
        self._spec = source_spec if spec is None else spec

    # -- sources ------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors: Any) -> "Dataset":
        """Elements are the slices of ``tensors`` along their first dimension.

        ``tensors`` is an array (numpy, list, constant tensor) or a tuple/dict of
        them, all with the same first dimension. The arrays are embedded in the
        graph, as in TensorFlow; a placeholder works with an initializable iterator.
        """
        leaves = [_as_leaf(x) for x in flatten(tensors)]
        specs = [_leaf_spec(leaf, sliced=True) for leaf in leaves]
        firsts = {d for d in (as_shape(leaf.shape).as_list()[0] for leaf in leaves)
                  if d is not None}
        if len(firsts) > 1:
            raise errors.InvalidArgumentError(None, None, f"Dataset.from_tensor_slices: all "
                                              f"components need the same first dimension, got "
                                              f"{sorted(firsts)}")
        return Dataset({"kind": "slices"}, leaves, pack_sequence_as(tensors, specs))

    @staticmethod
    def from_tensors(tensors: Any) -> "Dataset":
        """A data set of one element: ``tensors`` themselves."""
        leaves = [_as_leaf(x) for x in flatten(tensors)]
        if any(isinstance(leaf, Tensor) for leaf in leaves):
            leaves = [expand_dims(leaf, 0) if isinstance(leaf, Tensor) else leaf[None]
                      for leaf in leaves]
        else:
            leaves = [leaf[None] for leaf in leaves]
        specs = [_leaf_spec(leaf, sliced=True) for leaf in leaves]
        return Dataset({"kind": "slices"}, leaves, pack_sequence_as(tensors, specs))

    @staticmethod
    def range(*args: Any) -> "Dataset":
        """``range(stop)``, ``range(start, stop)`` or ``range(start, stop, step)``, as int64."""
        if not 1 <= len(args) <= 3:
            raise errors.InvalidArgumentError(None, None, "Dataset.range takes 1 to 3 "
                                              f"arguments, got {len(args)}")
        vals = [_count(a, "Dataset.range argument", -2 ** 62) for a in args]
        start, stop, step = (0, vals[0], 1) if len(vals) == 1 else (
            vals[0], vals[1], vals[2] if len(vals) == 3 else 1)
        if step == 0:
            raise errors.InvalidArgumentError(None, None, "Dataset.range: step must not be 0")
        return Dataset({"kind": "range", "start": start, "stop": stop, "step": step}, [],
                       ComponentSpec(_dtypes.int64, []))

    @staticmethod
    def list_files(file_pattern: Any, shuffle: Optional[bool] = None,
                   seed: Optional[int] = None) -> "Dataset":
        """The files matching ``file_pattern``, shuffled unless ``shuffle=False``
        (see ``tf.data`` readers)."""
        names = readers.match_files(file_pattern)
        ds = Dataset.from_tensor_slices(names)
        if shuffle is None or shuffle:
            ds = ds.shuffle(len(names), seed=seed)
        return ds

    @staticmethod
    def zip(datasets: Any) -> "Dataset":
        """Elements are tuples (nested like ``datasets``) of the elements of ``datasets``,
        taken in step; it ends with the shortest of them."""
        children = flatten(datasets)
        if not children or not all(isinstance(d, Dataset) for d in children):
            raise TypeError(f"Dataset.zip needs a (nested) tuple of Datasets, got {datasets!r}")
        source = {"kind": "zip", "children": [_compose.child(d) for d in children]}
        leaves = [leaf for d in children for leaf in d._leaves]
        spec = pack_sequence_as(datasets, [d._spec for d in children])
        return Dataset(source, leaves, spec)

    def concatenate(self, dataset: "Dataset") -> "Dataset":
        """The elements of this data set, then those of ``dataset`` (same structure and
        dtypes; dimensions that differ become unknown)."""
        if not isinstance(dataset, Dataset):
            raise TypeError(f"Dataset.concatenate needs a Dataset, got {dataset!r}")
        spec = _compose.most_specific_compatible(self._spec, dataset._spec)
        source = {"kind": "concatenate",
                  "children": [_compose.child(self), _compose.child(dataset)]}
        return Dataset(source, self._leaves + dataset._leaves, spec)

    @staticmethod
    def from_generator(generator: Callable[..., Any], output_types: Any,
                       output_shapes: Any = None, args: Any = None) -> "Dataset":
        """Elements are what ``generator(*args)`` yields, converted to ``output_types``
        and checked against ``output_shapes``.

        The generator runs in the process that builds the graph, when the iterator
        (placed on that process's task) asks for elements; an iterator placed on a task
        of another process fails with FailedPreconditionError.
        """
        source, spec = _compose.generator_source(generator, output_types, output_shapes, args)
        return Dataset(source, [], spec)

    # -- transformations ------------------------------------------------------------------
    def filter(self, predicate: Callable[..., Any]) -> "Dataset":
        """Keeps the elements for which ``predicate`` (a scalar bool tensor function of
        the element) is true; it runs inside the iterator, element by element."""
        stage, _ = _compose.function_stage("filter", predicate, self._spec)
        return self._with(_KernelStage(stage, self._spec), self._spec)

    def padded_batch(self, batch_size: Any, padded_shapes: Any, padding_values: Any = None,
                     drop_remainder: bool = False) -> "Dataset":
        """Batches elements of different shapes, padding every component to
        ``padded_shapes`` (``None``/-1 dims: the largest in the batch) with
        ``padding_values`` (0 and ``b""`` by default)."""
        size = _count(batch_size, "batch_size", 1)
        stage, spec = _compose.padded_stage(self._spec, size, padded_shapes, padding_values,
                                            drop_remainder)
        return self._with(_KernelStage(stage, spec), spec)

    def unbatch(self) -> "Dataset":
        """Splits every element along its first dimension into separate elements."""
        comps = flatten(self._spec)
        if any(c.shape.ndims == 0 for c in comps):
            raise ValueError("Dataset.unbatch needs components of rank >= 1")
        spec = map_structure(lambda c: ComponentSpec(
            c.dtype, c.shape.as_list()[1:] if c.shape.ndims is not None else None),
            self._spec)
        return self._with(_KernelStage({"op": "unbatch"}, spec), spec)

    def interleave(self, map_func: Callable[[Any], "Dataset"], cycle_length: Any,
                   block_length: Any = 1, num_parallel_calls: Any = None) -> "Dataset":
        """Reads the file data sets ``map_func(filename)`` of this data set of file names,
        ``cycle_length`` at a time, ``block_length`` records from each in turn.

        ``map_func`` must return ``TextLineDataset(filename)`` or
        ``TFRecordDataset(filename)`` of its argument, optionally followed by ``skip``,
        ``take``, ``shard`` or ``repeat`` (a CSV header is dropped with ``.skip(1)``):
        the reader and those stages become one stage of this pipeline, so the files are
        opened where the iterator runs.
        """
        cycle = _count(cycle_length, "cycle_length", 1)
        block = _count(block_length, "block_length", 1)
        readers.check_file_names(self)
        g = Graph()
        with g.as_default():
            name = placeholder(_dtypes.string, [], name="filename")
            inner = map_func(name)
        stage = readers.interleave_stage(inner, name, cycle, block)
        return self._with(stage, ComponentSpec(_dtypes.string, []))

    def flat_map(self, map_func: Callable[[Any], "Dataset"]) -> "Dataset":
        """The file data sets ``map_func(filename)`` one after the other."""
        return self.interleave(map_func, cycle_length=1, block_length=1)

    def _with(self, stage: Any, spec: Any = None) -> "Dataset":
        out = Dataset(self._source, self._leaves, self._source_spec, self._stages + (stage,),
                      self._spec if spec is None else spec)
        out._options = getattr(self, "_options", None)
        return out

    def with_options(self, options: Any) -> "Dataset":
        """This data set with ``options`` (a ``tf.data.Options``) merged over its own; later
        transformations keep them (see ``data/options.py`` for what they do)."""
        check_options(options)
        out = Dataset(self._source, self._leaves, self._source_spec, self._stages, self._spec)
        out._options = options if getattr(self, "_options", None) is None \
            else self._options.merge(options)
        return out

    def options(self) -> Any:
        """The ``tf.data.Options`` set on this data set (defaults when none were)."""
        return getattr(self, "_options", None) or Options()

    def shard(self, num_shards: Any, index: Any) -> "Dataset":
        """Keeps elements ``index, index + num_shards, ...``: this worker's part."""
        n = _count(num_shards, "num_shards", 1)
        i = _count(index, "index", 0)
        if i >= n:
            raise errors.InvalidArgumentError(None, None, f"Dataset.shard: index must be in "
                                              f"[0, {n}), got {i}")
        return self._with({"op": "shard", "num_shards": n, "index": i})

    def shuffle(self, buffer_size: Any, seed: Optional[int] = None,
                reshuffle_each_iteration: Optional[bool] = None) -> "Dataset":
        """Randomly shuffles through a buffer of ``buffer_size`` elements.

        The seed follows the graph-level seed rules (``tf.set_random_seed``);
        with ``reshuffle_each_iteration`` (default) each repetition of the data
        set is shuffled anew.
        """
        size = _count(buffer_size, "buffer_size", 1)
        op_seed = None if seed is None else _count(seed, "seed", 0)
        return self._with({"op": "shuffle", "buffer_size": size, "seed": op_seed,
                           "reshuffle": True if reshuffle_each_iteration is None
                           else bool(reshuffle_each_iteration)})

    def repeat(self, count: Any = None) -> "Dataset":
        """Repeats the data set ``count`` times (forever when None or -1)."""
        n = -1 if count is None else _count(count, "count", -1)
        return self._with({"op": "repeat", "count": n})

    def batch(self, batch_size: Any, drop_remainder: bool = False) -> "Dataset":
        """Stacks consecutive elements; the last batch may be smaller unless dropped.

        Earlier maps that are not element-wise run inside the kernel (see the module
        docstring).
        """
        size = _count(batch_size, "batch_size", 1)
        dim = size if drop_remainder else None
        stage = {"op": "batch", "batch_size": size, "drop_remainder": bool(drop_remainder)}
        spec = map_structure(lambda c: c.batched(dim), self._spec)
        last = max([i for i, s in enumerate(self._stages) if isinstance(s, _KernelStage)],
                   default=-1)
        if any(isinstance(s, _MapStage) and s.problem is not None
               for s in self._stages[last + 1:]):
            # Batching would change what such a map computes, so the maps before this
            # batch run in the kernel, on every element, and the batch stacks results.
            return self._with(_KernelStage(stage, spec), spec)
        return self._with(stage, spec)

    def take(self, count: Any) -> "Dataset":
        """At most ``count`` elements (all when -1)."""
        return self._with({"op": "take", "count": _count(count, "count", -1)})

    def skip(self, count: Any) -> "Dataset":
        """Drops the first ``count`` elements (all when -1)."""
        return self._with({"op": "skip", "count": _count(count, "count", -1)})

    def prefetch(self, buffer_size: Any) -> "Dataset":
        """Accepted for compatibility: elements are produced when a step asks for them."""
        _count(buffer_size, "buffer_size", -1)
        return self

    def cache(self, filename: str = "") -> "Dataset":
        """Accepted for compatibility: the sources are already in memory."""
        return self

    def map(self, map_func: Callable[..., Any], num_parallel_calls: Any = None) -> "Dataset":
        """Applies ``map_func`` to every element (tuple elements are unpacked as arguments).

        See the module docstring for how it runs and when a later ``batch`` refuses it.
        """
        stage = _MapStage(map_func, self._spec)
        return self._with(stage, stage.out_spec)

    def apply(self, transformation_func: Callable[["Dataset"], "Dataset"]) -> "Dataset":
        """``transformation_func(self)``."""
        return transformation_func(self)

    # -- iterators --------------------------------------------------------------------------
    def _split(self, all_maps: bool) -> Tuple[List[Dict[str, Any]], List[_MapStage], Any]:
        """The stages the kernel runs, the maps applied after ``get_next``, and the spec
        of what the kernel yields. Maps before a value stage (or every map, with
        ``all_maps``) run in the kernel; the others stay in the graph."""
        last = len(self._stages) if all_maps else max(
            [i for i, s in enumerate(self._stages) if isinstance(s, _KernelStage)], default=-1)
        kernel: List[Dict[str, Any]] = []
        maps: List[_MapStage] = []
        raw = self._source_spec
        for i, s in enumerate(self._stages):
            if isinstance(s, _MapStage):
                if i < last:
                    kernel.append(s.kernel_stage())
                    raw = s.out_spec
                else:
                    maps.append(s)
                continue
            if isinstance(s, _KernelStage):
                kernel.append(s.stage)
                raw = s.out_spec
                continue
            kernel.append(s)
            if s["op"] == "interleave":
                raw = ComponentSpec(_dtypes.string, [])
            elif s["op"] == "batch":
                dim = s["batch_size"] if s["drop_remainder"] else None
                raw = map_structure(lambda c, d=dim: c.batched(d), raw)
        return kernel, maps, raw

    def _kernel_stages(self, all_maps: bool = True) -> List[Dict[str, Any]]:
        return self._split(all_maps)[0]

    def _plan(self, all_maps: bool = False) -> IteratorPlan:
        stages, maps, raw = self._split(all_maps or debug_mode_enabled())
        return IteratorPlan(dict(self._source), list(self._leaves), raw, stages, maps, self._spec)

    def make_one_shot_iterator(self) -> Iterator:
        """An iterator that starts on its first ``get_next`` and cannot be restarted."""
        return Iterator(self._plan(), one_shot=True)

    def make_initializable_iterator(self, shared_name: Optional[str] = None) -> Iterator:
        """An iterator restarted by running its ``initializer`` (which may take feeds)."""
        return Iterator(self._plan(), one_shot=False, shared_name=shared_name)

    # -- element structure ----------------------------------------------------------------
    @property
    def output_types(self) -> Any:
        """The dtypes of the element's components, nested like the element."""
        return map_structure(lambda c: c.dtype, self._spec)

    @property
    def output_shapes(self) -> Any:
        """The static shapes of the element's components, nested like the element."""
        return map_structure(lambda c: c.shape, self._spec)

    @property
    def output_classes(self) -> Any:
        """``tf.Tensor`` for every component."""
        return map_structure(lambda c: Tensor, self._spec)

    def __repr__(self) -> str:
        kinds = [s["op"] if isinstance(s, dict) else s.stage["op"]
                 if isinstance(s, _KernelStage) else "map" for s in self._stages]
        return f"<Dataset {self._source['kind']}{''.join('.' + k for k in kinds)} " \
               f"types: {self.output_types}>"


def _file_dataset(reader: str, filenames: Any, compression_type: Any, buffer_size: Any,
                  what: str, layout: Optional[Dict[str, int]] = None) -> Dataset:
    if buffer_size is not None:
        _count(buffer_size, f"{what} buffer_size", 0)
    return Dataset(readers.file_source(reader, compression_type, what, layout),
                   [readers.filenames(filenames, what)], ComponentSpec(_dtypes.string, []))


class TextLineDataset(Dataset):
    """The lines of one or more text files, in order, without their line endings.

    Files are opened by the task that runs the iterator, lazily, one chunk at a time;
    every element is one line as a string scalar.

    Args:
      filenames: a file name or a list/vector of them (a string Tensor works with an
        initializable iterator).
      compression_type: ``""`` (none), ``"GZIP"`` or ``"ZLIB"``.
      buffer_size: accepted for compatibility (files are read 256 KiB at a time).
    """

    def __init__(self, filenames: Any, compression_type: Any = None, buffer_size: Any = None):
        ds = _file_dataset("text", filenames, compression_type, buffer_size, "TextLineDataset")
        super().__init__(ds._source, ds._leaves, ds._source_spec)


class TFRecordDataset(Dataset):
    """The records of one or more TFRecord files, in order, as strings.

    Args as for ``TextLineDataset``; a damaged record raises ``DataLossError`` from
    ``get_next`` naming the file and offset.
    """

    def __init__(self, filenames: Any, compression_type: Any = None, buffer_size: Any = None,
                 num_parallel_reads: Any = None):
        parallel = 1 if num_parallel_reads is None else \
            _count(num_parallel_reads, "TFRecordDataset num_parallel_reads", 1)
        ds = _file_dataset("tfrecord", filenames, compression_type, buffer_size,
                           "TFRecordDataset")
        if parallel > 1:
            # As TensorFlow defines it: records of `parallel` files at a time, in turn.
            names = ds._leaves[0]
            if isinstance(names, Tensor):
                raise errors.UnimplementedError(
                    None, None, "TFRecordDataset: num_parallel_reads > 1 needs file names "
                    "known when the data set is built")
            ds = Dataset.from_tensor_slices(names).interleave(
                lambda f: TFRecordDataset(f, compression_type), cycle_length=parallel)
        super().__init__(ds._source, ds._leaves, ds._source_spec, ds._stages, ds._spec)


class FixedLengthRecordDataset(Dataset):
    """The records of ``record_bytes`` bytes of one or more files, each file's
    ``header_bytes`` skipped at its start and ``footer_bytes`` at its end, as strings.
    A file whose body is not a whole number of records ends with its last whole record.

    Raises:
      InvalidArgumentError: ``record_bytes`` below 1, a negative header or footer size.
    """

    def __init__(self, filenames: Any, record_bytes: Any, header_bytes: Any = None,
                 footer_bytes: Any = None, buffer_size: Any = None,
                 compression_type: Any = None, num_parallel_reads: Any = None):
        if num_parallel_reads not in (None, 1):
            raise errors.UnimplementedError(
                None, None, "FixedLengthRecordDataset: num_parallel_reads is not supported; "
                "interleave a data set of file names instead")
        layout = {"record_bytes": _count(record_bytes, "record_bytes", 1),
                  "header_bytes": 0 if header_bytes is None else
                  _count(header_bytes, "header_bytes", 0),
                  "footer_bytes": 0 if footer_bytes is None else
                  _count(footer_bytes, "footer_bytes", 0)}
        ds = _file_dataset("fixed", filenames, compression_type, buffer_size,
                           "FixedLengthRecordDataset", layout)
        super().__init__(ds._source, ds._leaves, ds._source_spec)


__all__ = ["Dataset", "TextLineDataset", "TFRecordDataset", "FixedLengthRecordDataset"]
