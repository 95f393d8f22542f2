"""Dynamic embeddings: hash-table variables whose rows are created on first use.

``get_variable(name, dim, ...)`` returns a ``DynamicEmbeddingVariable``: one
``DynamicEmbeddingTable`` op per shard, each placed like a variable (on a ps task
under ``replica_device_setter``). ``embedding_lookup`` routes every id to shard
``id mod num_shards`` (string ids: ``Fingerprint64(id) mod num_shards``), so a
parameter server receives only the ids it holds. Kernels are in
``kernels/numpy/dynamic_embedding_kernels.py``; training goes through
``DynamicEmbeddingOptimizer`` (``optimizer.py``).
"""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, scalar
from tensorfleet.gradients.registry import no_gradient
from tensorfleet.kernels.dynamic_embedding_resources import INIT_KINDS
from tensorfleet.ops import array_ops, hash_ops, init_ops, math_ops, sparse_ops
from tensorfleet.ops import array_indexing_ops
from tensorfleet.ops.op_util import make_op, make_tensor, no_outputs
from tensorfleet.ops.variable_scope import AUTO_REUSE, get_variable_scope

logger = logging.getLogger(__name__)

VARIABLES_COLLECTION = "dynamic_embedding_variables"
# TensorFlow's GraphKeys.SAVEABLE_OBJECTS: what a default Saver saves besides variables.
SAVEABLE_OBJECTS = "saveable_objects"
_KEY_TYPES = (_dtypes.int32, _dtypes.int64, _dtypes.string)
_VALUE_TYPES = (_dtypes.float16, _dtypes.float32, _dtypes.float64)
# Checkpoint tensors of a shard, after its name and a "-" (TensorFlow's MutableHashTable
# saves "<name>-keys" and "<name>-values").
EXPORT_FIELDS = ("keys", "values", "frequencies", "last_seen_steps", "step", "pending_keys",
                 "pending_counts", "pending_last_seen_steps")


def _lookup_shape(op: Any) -> List[TensorShape]:
    ids = op.inputs[1].shape
    dim = int(op.attrs["dim"])
    if ids.ndims is None:
        return [TensorShape(None)]
    return [TensorShape(ids.as_list() + [dim])]


def _export_shapes(op: Any) -> List[TensorShape]:
    dim = int(op.attrs["dim"])
    return ([TensorShape([None]), TensorShape([None, dim]), TensorShape([None]),
             TensorShape([None]), scalar(), TensorShape([None]), TensorShape([None]),
             TensorShape([None])]
            + [TensorShape([None, w or dim]) for w in op.attrs["slot_widths"]])


register_op("DynamicEmbeddingTable", lambda op: [scalar()], stateful=True, ref_output=True)
register_op("DynamicEmbeddingLookup", _lookup_shape, stateful=True, ref_inputs=(0,))
register_op("DynamicEmbeddingApply", no_outputs, stateful=True, ref_inputs=(0,))
register_op("DynamicEmbeddingSize", lambda op: [scalar()], stateful=True, ref_inputs=(0,))
register_op("DynamicEmbeddingExport", _export_shapes, stateful=True, ref_inputs=(0,))
register_op("DynamicEmbeddingImport", no_outputs, stateful=True, ref_inputs=(0,))
# The rows a lookup returns are differentiated by DynamicEmbeddingOptimizer, which
# asks for the gradient of the lookup's output itself; nothing flows to its inputs.
for _op_type in ("DynamicEmbeddingTable", "DynamicEmbeddingLookup", "DynamicEmbeddingSize",
                 "DynamicEmbeddingExport"):
    no_gradient(_op_type)


def _initializer_attrs(initializer: Any, dim: int) -> Tuple[str, List[float], int]:
    """``(kind, params, seed)`` of a TensorFlow initializer, as plain op attributes."""
    if initializer is None:
        # As embedding_column: a truncated normal of standard deviation 1/sqrt(dim).
        return "truncated_normal", [0.0, 1.0 / float(np.sqrt(dim))], 0
    seed = int(getattr(initializer, "seed", None) or 0)
    if isinstance(initializer, init_ops.Zeros):
        return "zeros", [], 0
    if isinstance(initializer, init_ops.Ones):
        return "ones", [], 0
    if isinstance(initializer, init_ops.Constant):
        value = np.asarray(initializer.value)
        if value.size != 1:
            raise ValueError(f"dynamic_embedding: a constant initializer must hold one value "
                             f"(every new row is filled with it), got shape {value.shape}")
        return "constant", [float(value.reshape(-1)[0])], 0
    if isinstance(initializer, init_ops.RandomUniform):
        return "random_uniform", [float(initializer.minval), float(initializer.maxval)], seed
    if isinstance(initializer, init_ops.RandomNormal):
        return "random_normal", [float(initializer.mean), float(initializer.stddev)], seed
    if isinstance(initializer, init_ops.TruncatedNormal):
        return "truncated_normal", [float(initializer.mean), float(initializer.stddev)], seed
    if isinstance(initializer, (int, float)):
        return "constant", [float(initializer)], 0
    raise TypeError(f"dynamic_embedding: unsupported initializer {initializer!r}; use one of "
                    f"{list(INIT_KINDS)} (zeros/ones/constant/random_uniform/random_normal/"
                    f"truncated_normal initializers) or a number")


class _ExportSlice:
    """One tensor of a shard's checkpoint, shaped like a variable for ``tf.train.Saver``."""

    def __init__(self, shard: "DynamicEmbeddingShard", field: str, tensor: Tensor):
        self._shard = shard
        self._field = field
        self._tensor = tensor
        self.name = f"{shard.name}-{field}"

    @property
    def op(self) -> Any:
        """The table op: the Saver groups and colocates by it."""
        return self._shard.op

    @property
    def graph(self) -> Any:
        """The graph of the exported tensor."""
        return self._tensor.graph

    @property
    def dtype(self) -> _dtypes.DType:
        """The dtype of the exported tensor."""
        return self._tensor.dtype

    def get_shape(self) -> TensorShape:
        """The static shape of the exported tensor (rows unknown)."""
        return self._tensor.shape

    def _ref(self) -> Tensor:
        return self._tensor

    def value(self) -> Tensor:
        """The exported tensor."""
        return self._tensor

    def _restore_group(self) -> Tuple[Any, str]:
        """``(owner, field)``: the owner builds one restore op from all its fields."""
        return self._shard, self._field


class DynamicEmbeddingShard:
    """One shard of a ``DynamicEmbeddingVariable``: a table op on one task."""

    def __init__(self, variable: "DynamicEmbeddingVariable", handle: Tensor):
        self._variable = variable
        self.handle = handle

    @property
    def op(self) -> Any:
        """The ``DynamicEmbeddingTable`` op."""
        return self.handle.op

    @property
    def name(self) -> str:
        """The table op's name (``<variable>/part_<i>``, or the variable's name)."""
        return self.handle.op.name

    @property
    def device(self) -> str:
        """The device the table lives on."""
        return self.handle.op.device

    @property
    def graph(self) -> Any:
        """The graph of the table op."""
        return self.handle.op.graph

    def _slot_attrs(self) -> Dict[str, Any]:
        specs = self._variable._slot_specs
        return {"slot_names": [s[0] for s in specs], "slot_inits": [float(s[1]) for s in specs],
                "slot_widths": [int(s[2]) for s in specs]}

    def size(self, name: Optional[str] = None) -> Tensor:
        """The number of rows of this shard (int64 scalar)."""
        with self.graph.colocate_with(self.op):
            return make_tensor("DynamicEmbeddingSize", [self.handle], _dtypes.int64,
                               name=name or "Size")

    def export(self, name: Optional[str] = None) -> List[Tensor]:
        """Every checkpoint tensor of this shard (``EXPORT_FIELDS`` then the slots)."""
        v = self._variable
        attrs = dict(self._slot_attrs(), dim=v.dim)
        n_slots = len(attrs["slot_names"])
        dts = ([v.key_dtype, v.dtype] + [_dtypes.int64] * 6 + [v.dtype] * n_slots)
        with self.graph.colocate_with(self.op):
            return list(make_op("DynamicEmbeddingExport", [self.handle], dts, attrs,
                                name=name or "Export").outputs)

    def _checkpoint_items(self) -> List[Tuple[str, _ExportSlice]]:
        tensors = self.export()
        fields = list(EXPORT_FIELDS) + [f"slot-{s[0]}" for s in self._variable._slot_specs]
        return [(s.name, s) for s in (_ExportSlice(self, f, t) for f, t in zip(fields, tensors))]

    def _restore_from(self, tensors: Dict[str, Tensor]) -> Any:
        """The op replacing this shard's content with checkpoint ``tensors`` (by field)."""
        specs = self._variable._slot_specs
        ins = [self.handle] + [tensors[f] for f in EXPORT_FIELDS]
        ins += [tensors[f"slot-{s[0]}"] for s in specs]
        with self.graph.colocate_with(self.op):
            return make_op("DynamicEmbeddingImport", ins, [], self._slot_attrs(),
                           name="Import")


class DynamicEmbeddingVariable:
    """A hash-table embedding sharded over ``num_shards`` tables (see ``get_variable``)."""

    def __init__(self, name: str, dim: int, dtype: _dtypes.DType, key_dtype: _dtypes.DType,
                 shards: List[Tensor], attrs: Dict[str, Any]):
        self.name = name
        self.dim = dim
        self.dtype = dtype
        self.key_dtype = key_dtype
        self.attrs = attrs
        self.shards = [DynamicEmbeddingShard(self, h) for h in shards]
        # (slot name, initial value, width or 0 for dim), set by the optimizer.
        self._slot_specs: List[Tuple[str, float, int]] = []
        self._optimizer_kind: Optional[str] = None
        self._saved_slots: Optional[List[Tuple[str, float, int]]] = None
        # (shard index, ids sent to that shard, the rows it returned) per training lookup.
        self._lookups: List[Tuple[int, Tensor, Tensor]] = []

    @property
    def num_shards(self) -> int:
        """The number of tables the ids are spread over."""
        return len(self.shards)

    @property
    def graph(self) -> Any:
        """The graph of the table ops."""
        return self.shards[0].graph

    def size(self, name: Optional[str] = None) -> Tensor:
        """The number of live rows over all shards (int64 scalar)."""
        with self.graph.name_scope(name or f"{self.name}_size"):
            sizes = [s.size() for s in self.shards]
            return math_ops.add_n(sizes) if len(sizes) > 1 else array_ops.identity(sizes[0])

    def export(self, name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
        """``(keys, values)`` of every live row, shard after shard."""
        with self.graph.name_scope(name or f"{self.name}_export"):
            parts = [s.export() for s in self.shards]
            if len(parts) == 1:
                return parts[0][0], parts[0][1]
            return (array_ops.concat([p[0] for p in parts], 0),
                    array_ops.concat([p[1] for p in parts], 0))

    def _checkpoint_items(self) -> List[Tuple[str, _ExportSlice]]:
        """``(checkpoint name, tensor)`` pairs of every shard, for ``tf.train.Saver``."""
        self._saved_slots = list(self._slot_specs)
        return [item for s in self.shards for item in s._checkpoint_items()]

    def _set_optimizer(self, kind: str, specs: List[Tuple[str, float, int]]) -> None:
        if self._optimizer_kind not in (None, kind):
            raise ValueError(f"Dynamic embedding {self.name} is already trained with "
                             f"{self._optimizer_kind}; one table keeps the slots of one "
                             f"optimizer, not also {kind}")
        if self._saved_slots is not None and self._saved_slots != list(specs):
            logger.warning("A Saver of dynamic embedding %s was built before its optimizer: "
                           "its checkpoints hold no optimizer slots (build the Saver after "
                           "minimize())", self.name)
        self._optimizer_kind = kind
        self._slot_specs = list(specs)


def get_variable(name: str, dim: int, initializer: Any = None, dtype: Any = _dtypes.float32,
                 key_dtype: Any = _dtypes.int64, min_frequency: int = 1, capacity: int = 0,
                 evict_after_steps: int = 0, num_shards: int = 1, partitioner: Any = None,
                 seed: Optional[int] = None) -> DynamicEmbeddingVariable:
    """Creates (or, under a reusing variable scope, returns) a dynamic embedding.

    Args:
      name: the name, inside the current variable scope.
      dim: the embedding dimension.
      initializer: fills each new row (zeros/ones/constant/random_uniform/
        random_normal/truncated_normal initializer or a number); default a
        truncated normal of standard deviation ``1/sqrt(dim)``.
      dtype: the value dtype (float16/32/64).
      key_dtype: the id dtype (int32, int64 or string).
      min_frequency: an id gets a row only once it was looked up this many times
        (in training lookups); until then it reads as zeros and gets no update.
      capacity: the most rows a shard keeps; beyond it the least recently used
        rows are dropped (0: unbounded).
      evict_after_steps: a row (or a pending count) not looked up during this many
        consecutive training steps is dropped at the end of the last one (0: never).
      num_shards: the number of tables (ids go to ``id mod num_shards``).
      partitioner: instead of ``num_shards``, ``tf.fixed_size_partitioner(n)`` (a
        partitioner that sizes shards by bytes cannot size a table of unknown rows).
      seed: the seed of the random initializer when it has none.

    Raises:
      ValueError: on a bad argument or an existing name without reuse.
      TypeError: on an unsupported dtype or initializer.
    """
    dim = int(dim)
    if dim < 1:
        raise ValueError(f"dynamic_embedding.get_variable: dim must be positive, got {dim}")
    dtype, key_dtype = _dtypes.as_dtype(dtype), _dtypes.as_dtype(key_dtype)
    if dtype not in _VALUE_TYPES:
        raise TypeError(f"dynamic_embedding.get_variable: dtype must be a float type, got "
                        f"{dtype.name}")
    if key_dtype not in _KEY_TYPES:
        raise TypeError(f"dynamic_embedding.get_variable: key_dtype must be int32, int64 or "
                        f"string, got {key_dtype.name}")
    for what, v in (("min_frequency", min_frequency), ("capacity", capacity),
                    ("evict_after_steps", evict_after_steps)):
        if not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"dynamic_embedding.get_variable: {what} must be a non-negative "
                             f"integer, got {v!r}")
    if partitioner is not None:
        if num_shards != 1:
            raise ValueError("dynamic_embedding.get_variable: give num_shards or partitioner, "
                             "not both")
        # The row count of a table is unknown: only a partitioner that does not depend
        # on it (tf.fixed_size_partitioner) can say how many shards to make.
        try:
            parts = list(partitioner(shape=TensorShape([None, dim]), dtype=dtype))
        except (TypeError, ValueError) as e:
            raise ValueError(f"dynamic_embedding.get_variable: the partitioner must split an "
                             f"unknown number of rows, as tf.fixed_size_partitioner(n) does "
                             f"({e})") from None
        if len(parts) != 2 or int(parts[1]) != 1:
            raise ValueError(f"dynamic_embedding.get_variable: ids are split along axis 0 "
                             f"only, the partitioner gave {parts}")
        num_shards = int(parts[0])
    if not isinstance(num_shards, (int, np.integer)) or num_shards < 1:
        raise ValueError(f"dynamic_embedding.get_variable: num_shards must be a positive "
                         f"integer, got {num_shards!r}")
    scope = get_variable_scope()
    full = f"{scope.name}/{name}" if scope.name else name
    g = get_default_graph()
    for v in g.get_collection(VARIABLES_COLLECTION):
        if v.name == full:
            if scope.reuse is True or scope.reuse is AUTO_REUSE:
                return v
            raise ValueError(f"Dynamic embedding {full} already exists, disallowed. Did you "
                             f"mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
    if scope.reuse is True:
        raise ValueError(f"Dynamic embedding {full} does not exist, or was not created with "
                         f"dynamic_embedding.get_variable(). Did you mean to set "
                         f"reuse=tf.AUTO_REUSE in VarScope?")
    kind, params, init_seed = _initializer_attrs(initializer, dim)
    attrs = {"dim": dim, "dtype": dtype, "key_dtype": key_dtype, "init_kind": kind,
             "init_params": params, "seed": int(init_seed or seed or 0),
             "min_frequency": int(min_frequency), "capacity": int(capacity),
             "evict_after_steps": int(evict_after_steps), "container": ""}
    handles = []
    with g.control_dependencies(None):
        for i in range(num_shards):
            op_name = full if num_shards == 1 else f"{full}/part_{i}"
            # "shape" is the handle's: device functions see it before shape inference
            # (byte_size_load_fn counts a table as a handle, as TensorFlow does).
            a = dict(attrs, shared_name=op_name, shape=TensorShape([]))
            handles.append(make_tensor("DynamicEmbeddingTable", [], _dtypes.string, a,
                                       name=op_name))
    var = DynamicEmbeddingVariable(full, dim, dtype, key_dtype, handles, attrs)
    g.add_to_collection(VARIABLES_COLLECTION, var)
    g.add_to_collection(SAVEABLE_OBJECTS, var)
    return var


def _route(flat_ids: Tensor, n: int) -> Tensor:
    if flat_ids.dtype is _dtypes.string:
        return array_ops.cast(hash_ops.string_to_hash_bucket_fast(flat_ids, n), _dtypes.int32)
    return array_ops.cast(math_ops.floormod(flat_ids, n), _dtypes.int32)


def embedding_lookup(params: DynamicEmbeddingVariable, ids: Any,
                     partition_strategy: str = "mod", name: Optional[str] = None,
                     training: bool = True) -> Tensor:
    """The rows of ``ids``: shape ``ids.shape + [dim]``, zeros for ids without a row.

    A training lookup (the default) counts the ids, creates rows for those that
    reach ``min_frequency``, marks them used at the table's current step, and is
    what ``DynamicEmbeddingOptimizer`` computes gradients for. ``training=False``
    only reads.

    Raises:
      TypeError: ``params`` is not a ``DynamicEmbeddingVariable`` or the ids' dtype
        differs from its ``key_dtype``.
      ValueError: ``partition_strategy`` is not ``"mod"``.
    """
    if not isinstance(params, DynamicEmbeddingVariable):
        raise TypeError(f"dynamic_embedding.embedding_lookup: params must be a "
                        f"DynamicEmbeddingVariable, got {type(params).__name__}")
    if partition_strategy != "mod":
        raise ValueError(f"dynamic_embedding.embedding_lookup: ids are routed to shards by "
                         f"'mod' only, got partition_strategy={partition_strategy!r}")
    g = params.graph
    with g.name_scope(name or "embedding_lookup"):
        ids = convert_to_tensor(ids, dtype=params.key_dtype, name="ids")
        if ids.dtype is not params.key_dtype:
            raise TypeError(f"dynamic_embedding.embedding_lookup: ids of {ids.dtype.name} for "
                            f"a table keyed by {params.key_dtype.name}")
        flat = array_ops.reshape(ids, [-1])
        n = params.num_shards
        if n == 1:
            pieces, positions = [flat], None
        else:
            shard_of = _route(flat, n)
            pieces = array_indexing_ops.dynamic_partition(flat, shard_of, n, name="shard_ids")
            positions = array_indexing_ops.dynamic_partition(
                array_ops.range(array_ops.size(flat)), shard_of, n, name="shard_positions")
        outs = []
        for i, (shard, piece) in enumerate(zip(params.shards, pieces)):
            # Colocated with the table: its task receives only the ids it holds.
            with g.colocate_with(shard.op):
                out = make_tensor("DynamicEmbeddingLookup", [shard.handle, piece], params.dtype,
                                  {"dim": params.dim, "training": bool(training)},
                                  name=f"lookup_{i}")
            if training:
                params._lookups.append((i, piece, out))
            outs.append(out)
        flat_out = outs[0] if n == 1 else array_indexing_ops.dynamic_stitch(positions, outs,
                                                                        name="stitch")
        shape = array_ops.concat([array_ops.shape(ids), [params.dim]], 0)
        result = array_ops.reshape(flat_out, shape, name="lookup")
        if ids.shape.ndims is not None:
            result.set_shape(TensorShape(ids.shape.as_list() + [params.dim]))
        return result


def embedding_lookup_sparse(params: DynamicEmbeddingVariable, sp_ids: Any, sp_weights: Any,
                            partition_strategy: str = "mod", name: Optional[str] = None,
                            combiner: Optional[str] = "mean", training: bool = True) -> Tensor:
    """One combined row per row of the ``[batch, k]`` SparseTensor ``sp_ids``.

    ``combiner`` is ``"sum"``, ``"mean"`` (divided by the sum of the weights) or
    ``"sqrtn"`` (divided by their L2 norm); ``sp_weights`` (same indices) or None
    for weights of 1. Every stored id is looked up (and counted), repeats included.
    """
    combiner = combiner or "mean"
    if combiner not in ("sum", "mean", "sqrtn"):
        raise ValueError(f"dynamic_embedding.embedding_lookup_sparse: combiner must be one of "
                         f"'mean', 'sqrtn' or 'sum', got {combiner!r}")
    fname = "dynamic_embedding.embedding_lookup_sparse"
    ids_sp = sparse_ops.as_sparse(sp_ids, fname, "sp_ids")
    g = params.graph
    with g.name_scope(name or "embedding_lookup_sparse"):
        rows = embedding_lookup(params, ids_sp.values, partition_strategy, training=training)
        segment_ids = array_ops.cast(ids_sp.indices[:, 0], _dtypes.int32)
        positions = array_ops.range(array_ops.size(segment_ids))
        if sp_weights is None:
            reduce = {"sum": sparse_ops.sparse_segment_sum,
                      "mean": sparse_ops.sparse_segment_mean,
                      "sqrtn": sparse_ops.sparse_segment_sqrt_n}[combiner]
            return reduce(rows, positions, segment_ids, name=combiner)
        weights = sparse_ops.as_sparse(sp_weights, fname, "sp_weights").values
        if weights.dtype is not rows.dtype:
            weights = array_ops.cast(weights, rows.dtype)
        total = sparse_ops.sparse_segment_sum(rows * array_ops.reshape(weights, [-1, 1]),
                                              positions, segment_ids)
        if combiner == "sum":
            return array_ops.identity(total, name=combiner)
        if combiner == "mean":
            denom = sparse_ops.sparse_segment_sum(weights, positions, segment_ids)
        else:
            denom = math_ops.sqrt(sparse_ops.sparse_segment_sum(weights * weights, positions,
                                                                segment_ids))
        # A row with no ids sums to zero; dividing it by 1 keeps it zero instead of 0/0.
        denom = array_ops.where(math_ops.greater(denom, array_ops.zeros_like(denom)), denom,
                                array_ops.ones_like(denom))
        return math_ops.divide(total, array_ops.reshape(denom, [-1, 1]), name=combiner)


__all__ = ["DynamicEmbeddingVariable", "DynamicEmbeddingShard", "get_variable",
           "embedding_lookup", "embedding_lookup_sparse", "VARIABLES_COLLECTION",
           "SAVEABLE_OBJECTS", "EXPORT_FIELDS"]
