"""Partitioned variables: one logical variable stored as shards along one axis.

A partitioner decides how many shards a variable gets from its shape and dtype;
``get_variable(..., partitioner=p)`` then creates one ``Variable`` per shard,
named ``<name>/part_<i>``, and returns a ``PartitionedVariable`` over them.
Because each shard is an ordinary variable, ``replica_device_setter`` places the
shards one by one, so a large embedding is spread over several parameter
servers and a lookup only reads rows from the shards that hold them.

Shard sizes follow TensorFlow's rule, which ``embedding_lookup``'s "div"
strategy and checkpoints written by TensorFlow both rely on: with ``n`` shards of
a dimension of size ``d``, the first ``d % n`` shards have ``d // n + 1`` rows
and the others ``d // n``.
"""

from __future__ import annotations

import logging
import math
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Graph, Tensor, register_tensor_conversion_function
from tensorfleet.framework.tensor_shape import TensorShape, as_shape
from tensorfleet.ops import array_ops
from tensorfleet.ops.variables import Variable

logger = logging.getLogger(__name__)

Partitioner = Callable[..., List[int]]


# -- slicing arithmetic --

def _shard_sizes(dim: int, num_shards: int) -> List[int]:
    """Rows of each shard of a dimension of size ``dim`` cut into ``num_shards``."""
    base, extra = divmod(dim, num_shards)
    return [base + (1 if i < extra else 0) for i in range(num_shards)]


def _slice_axis(partitions: Sequence[int], name: str) -> Tuple[int, int]:
    """``(axis, number of shards)`` of a partition list; ValueError when it splits
    more than one axis (only one-axis partitioning is supported, as in TensorFlow)."""
    axis, count = 0, 1
    for i, p in enumerate(partitions):
        if p > 1:
            if count > 1:
                raise ValueError(f"Partitioning variable {name} along more than one axis is "
                                 f"not supported: partitions {list(partitions)}")
            axis, count = i, p
    return axis, count


def _slices(full_shape: List[int], axis: int, num_shards: int) -> List[Tuple[List[int],
                                                                             List[int]]]:
    """``(offset, shape)`` of every shard, in order along ``axis``."""
    out = []
    start = 0
    for rows in _shard_sizes(full_shape[axis], num_shards):
        offset = [0] * len(full_shape)
        offset[axis] = start
        shape = list(full_shape)
        shape[axis] = rows
        out.append((offset, shape))
        start += rows
    return out


def _element_bytes(dtype: Any, bytes_per_string_element: int) -> int:
    dt = _dtypes.as_dtype(dtype).base_dtype
    # A string's size is unknown until it is stored; callers give an estimate.
    return bytes_per_string_element if dt is _dtypes.string else dt.size


def _checked_shape(shape: Any, what: str) -> TensorShape:
    if not isinstance(shape, TensorShape):
        shape = as_shape(shape)
    if not shape.is_fully_defined():
        raise ValueError(f"{what} needs a fully defined shape, got {shape}")
    return shape


def _checked_axis(axis: int, shape: TensorShape, what: str) -> int:
    if not -shape.ndims <= axis < shape.ndims:
        raise ValueError(f"{what}: axis {axis} is out of range for a variable of shape {shape}")
    return axis % shape.ndims


# -- partitioners --

def fixed_size_partitioner(num_shards: int, axis: int = 0) -> Partitioner:
    """A partitioner cutting ``axis`` into ``num_shards`` shards (fewer if the axis has
    fewer rows).

    Raises:
      ValueError: if ``num_shards`` is not positive.
    """
    if int(num_shards) < 1:
        raise ValueError(f"fixed_size_partitioner: num_shards must be positive, got {num_shards}")

    def _partitioner(shape: Any, dtype: Any = None, **_: Any) -> List[int]:
        shape = as_shape(shape)
        ax = _checked_axis(axis, shape, "fixed_size_partitioner")
        parts = [1] * shape.ndims
        dim = shape[ax]
        parts[ax] = int(num_shards) if dim is None else max(1, min(int(num_shards), dim))
        return parts

    return _partitioner


def min_max_variable_partitioner(max_partitions: int = 1, axis: int = 0,
                                 min_slice_size: int = 256 << 10,
                                 bytes_per_string_element: int = 16) -> Partitioner:
    """A partitioner giving every shard at least ``min_slice_size`` bytes, using at
    most ``max_partitions`` shards (and never more than the axis has rows).

    Raises:
      ValueError: if ``max_partitions`` or ``min_slice_size`` is not positive.
    """
    if max_partitions < 1 or min_slice_size < 1:
        raise ValueError(f"min_max_variable_partitioner: max_partitions ({max_partitions}) "
                         f"and min_slice_size ({min_slice_size}) must be positive")

    def _partitioner(shape: Any, dtype: Any, **_: Any) -> List[int]:
        shape = _checked_shape(shape, "min_max_variable_partitioner")
        ax = _checked_axis(axis, shape, "min_max_variable_partitioner")
        total = shape.num_elements() * _element_bytes(dtype, bytes_per_string_element)
        wanted = int(math.ceil(total / float(min_slice_size)))
        parts = [1] * shape.ndims
        parts[ax] = max(1, min(shape[ax], max_partitions, wanted))
        return parts

    return _partitioner


def variable_axis_size_partitioner(max_shard_bytes: int, axis: int = 0,
                                   bytes_per_string_element: int = 16,
                                   max_shards: Optional[int] = None) -> Partitioner:
    """A partitioner keeping each shard under ``max_shard_bytes`` (but at least one
    slice of ``axis`` per shard), with at most ``max_shards`` shards.

    Raises:
      ValueError: if ``max_shard_bytes``, ``bytes_per_string_element`` or
        ``max_shards`` is not positive.
    """
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError(f"variable_axis_size_partitioner: max_shard_bytes ({max_shard_bytes}) "
                         f"and bytes_per_string_element ({bytes_per_string_element}) must be "
                         f"positive")
    if max_shards is not None and max_shards < 1:
        raise ValueError(f"variable_axis_size_partitioner: max_shards must be positive, got "
                         f"{max_shards}")

    def _partitioner(shape: Any, dtype: Any, **_: Any) -> List[int]:
        shape = _checked_shape(shape, "variable_axis_size_partitioner")
        ax = _checked_axis(axis, shape, "variable_axis_size_partitioner")
        rows = shape[ax]
        parts = [1] * shape.ndims
        if rows == 0:
            return parts
        slice_bytes = (shape.num_elements() // rows) * _element_bytes(
            dtype, bytes_per_string_element)
        per_shard = max(1, int(max_shard_bytes // max(slice_bytes, 1)))
        shards = -(-rows // per_shard)
        if max_shards:
            shards = min(shards, max_shards)
        parts[ax] = max(1, shards)
        return parts

    return _partitioner


# -- slice bookkeeping --

class SaveSliceInfo:
    """Where a shard sits in its full variable: checkpoints store and restore shards
    as slices of the one named ``full_name``."""

    def __init__(self, full_name: str, full_shape: Sequence[int], var_offset: Sequence[int],
                 var_shape: Sequence[int]):
        self.full_name = full_name
        self.full_shape = [int(d) for d in full_shape]
        self.var_offset = [int(d) for d in var_offset]
        self.var_shape = [int(d) for d in var_shape]

    @property
    def spec(self) -> str:
        """TensorFlow's slice spec string: ``"<full dims> <offset,length:...>"``."""
        dims = " ".join(str(d) for d in self.full_shape)
        extents = ":".join(f"{o},{s}" for o, s in zip(self.var_offset, self.var_shape))
        return f"{dims} {extents}"

    def __repr__(self) -> str:
        return f"SaveSliceInfo({self.full_name!r}, spec={self.spec!r})"


class _PartitionInfo:
    """Handed to initializers of shards, so that e.g. Glorot uses the fans of the
    full variable rather than those of the shard."""

    def __init__(self, full_shape: Sequence[int], var_offset: Sequence[int]):
        self.full_shape = list(full_shape)
        self.var_offset = list(var_offset)

    def single_offset(self, shape: Sequence[int]) -> int:
        """The offset of the shard along its (only) partitioned axis."""
        return self.var_offset[self.single_slice_dim(shape)]

    def single_slice_dim(self, shape: Sequence[int]) -> int:
        """The partitioned axis: the one where the shard is smaller than the variable
        or does not start at zero (0 when the variable has a single shard)."""
        for i, (full, off, dim) in enumerate(zip(self.full_shape, self.var_offset, shape)):
            if off != 0 or dim != full:
                return i
        return 0


# -- PartitionedVariable --

class PartitionedVariable:
    """One logical variable made of shards (``Variable`` objects) along one axis.

    Iterating yields the shards in order; using it as a tensor concatenates them.
    ``embedding_lookup`` takes it directly and reads each shard where it lives.
    """

    def __init__(self, name: str, shape: Any, dtype: Any, variable_list: List[Variable],
                 partitions: Sequence[int]):
        if not isinstance(variable_list, (list, tuple)) or not variable_list:
            raise ValueError(f"PartitionedVariable {name}: variable_list must be a non-empty "
                             f"list of Variables, got {variable_list!r}")
        shape = as_shape(shape)
        partitions = [int(p) for p in partitions]
        if shape.ndims is not None and len(partitions) != shape.ndims:
            raise ValueError(f"PartitionedVariable {name}: partitions {partitions} must have "
                             f"one entry per dimension of shape {shape}")
        if int(np.prod(partitions)) != len(variable_list):
            raise ValueError(f"PartitionedVariable {name}: partitions {partitions} make "
                             f"{int(np.prod(partitions))} shards but {len(variable_list)} "
                             f"variables were given")
        dt = _dtypes.as_dtype(dtype)
        for v in variable_list:
            if v.dtype.base_dtype is not dt.base_dtype:
                raise ValueError(f"PartitionedVariable {name}: shard {v.name} has dtype "
                                 f"{v.dtype.name}, expected {dt.name}")
        infos = [v._get_save_slice_info() for v in variable_list]
        if all(i is not None for i in infos):
            # Shards may be handed over in any order; their slice offsets say which is which.
            variable_list = sorted(variable_list,
                                   key=lambda v: v._get_save_slice_info().var_offset)
        self._name = name
        self._shape = shape
        self._dtype = dt
        self._variable_list = list(variable_list)
        self._partitions = partitions
        self._as_tensor: Optional[Tensor] = None

    def __iter__(self) -> Iterator[Variable]:
        return iter(self._variable_list)

    def __len__(self) -> int:
        return len(self._variable_list)

    def __repr__(self) -> str:
        return (f"<tf.PartitionedVariable '{self._name}' shape={self._shape} "
                f"dtype={self._dtype.name} partitions={self._partitions}>")

    @property
    def name(self) -> str:
        """The full variable's name, e.g. ``"emb"`` (shards are ``emb/part_<i>``)."""
        return self._name

    @property
    def dtype(self) -> _dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        """The shape of the full (concatenated) variable."""
        return self._shape

    @property
    def graph(self) -> Graph:
        return self._variable_list[0].graph

    def _get_variable_list(self) -> List[Variable]:
        return list(self._variable_list)

    def _get_partitions(self) -> List[int]:
        return list(self._partitions)

    def _partition_axes(self) -> List[int]:
        axes = [i for i, p in enumerate(self._partitions) if p > 1]
        return axes or [0]

    def _concat(self) -> Tensor:
        g = self.graph
        with g.name_scope(f"{self._name}/ConcatPartitions"):
            if len(self._variable_list) == 1:
                return array_ops.identity(self._variable_list[0], name="concat")
            return array_ops.concat(list(self._variable_list), self._partition_axes()[0],
                                    name="concat")

    def as_tensor(self) -> Tensor:
        """The full value: the shards concatenated where the caller's ops run.

        Built outside any control-dependency scope, like a variable's read.
        """
        with self.graph.control_dependencies(None):
            return self._concat()

    def assign(self, value: Any, use_locking: bool = False, name: Optional[str] = None,
               read_value: bool = True) -> List[Any]:
        """Assigns ``value`` (a full tensor, a list of per-shard values or another
        PartitionedVariable) shard by shard; returns the per-shard results."""
        return self._apply_assign_fn(
            lambda var, v: var.assign(v, use_locking=use_locking, name=name,
                                      read_value=read_value), value)

    def _apply_assign_fn(self, assign_fn: Callable[[Variable, Any], Any], value: Any) -> List[Any]:
        axes = self._partition_axes()
        if len(axes) > 1:
            raise ValueError(f"Cannot assign to {self._name}: it is partitioned along "
                             f"more than one axis {axes}, which tensorfleet does not support")
        if isinstance(value, PartitionedVariable):
            values = list(value)
        elif isinstance(value, list):
            # A Python list is one value per shard, as in TensorFlow; pass an array
            # or tensor to assign a full value.
            values = list(value)
        else:
            sizes = [v.get_shape()[axes[0]] for v in self._variable_list]
            values = array_ops.split(value, sizes, axis=axes[0])
        if len(values) != len(self._variable_list):
            raise ValueError(f"Cannot assign to {self._name}: {len(values)} values for "
                             f"{len(self._variable_list)} shards")
        return [assign_fn(var, v) for var, v in zip(self._variable_list, values)]


def _partitioned_to_tensor(v: PartitionedVariable, dtype: Any = None,
                           name: Optional[str] = None) -> Tensor:
    if dtype is not None and _dtypes.as_dtype(dtype).base_dtype is not v.dtype.base_dtype:
        raise ValueError(f"Incompatible type conversion requested to type "
                         f"'{_dtypes.as_dtype(dtype).name}' for partitioned variable {v.name} "
                         f"of type '{v.dtype.name}'")
    return v.as_tensor()


register_tensor_conversion_function(PartitionedVariable, _partitioned_to_tensor)


# -- creation (called by the variable store of ``get_variable``) --

def _call_partitioner(partitioner: Partitioner, shape: TensorShape, dtype: _dtypes.DType,
                      name: str) -> List[int]:
    parts = partitioner(shape=shape, dtype=dtype)
    if not isinstance(parts, (list, tuple)) or not all(
            isinstance(p, (int, np.integer)) for p in parts):
        raise ValueError(f"The partitioner of variable {name} must return a list of ints "
                         f"(shards per axis), got {parts!r}")
    parts = [int(p) for p in parts]
    if len(parts) != shape.ndims:
        raise ValueError(f"The partitioner of variable {name} returned {parts}, which does not "
                         f"match the rank of its shape {shape}")
    if any(p < 1 for p in parts):
        raise ValueError(f"The partitioner of variable {name} returned {parts}: every axis "
                         f"needs at least one partition")
    return parts


def _shard_initializer(initializer: Any, init_is_value: bool, offset: List[int],
                       shape: List[int], scope: str) -> Tuple[Any, Any]:
    """``(initializer, shape)`` to create one shard with the variable store."""
    if not init_is_value:
        # None (the store's default) or a callable: called with the shard's shape and
        # a partition info naming the full shape.
        return initializer, shape
    index = tuple(slice(o, o + s) for o, s in zip(offset, shape))
    if isinstance(initializer, Tensor):
        g = initializer.graph
        with g.name_scope(scope + "/PartitionedInitializer"):
            return array_ops.slice(initializer, offset, shape), None
    if isinstance(initializer, np.ndarray):
        return initializer[index], None
    # A Python list keeps Python scalars, so dtype inference matches the unpartitioned case.
    return np.asarray(initializer)[index].tolist(), None


def _get_partitioned_variable(store: Any, name: str, partitioner: Partitioner, shape: Any = None,
                              dtype: Any = _dtypes.float32, initializer: Any = None,
                              regularizer: Any = None, reuse: Any = None, trainable: bool = True,
                              collections: Optional[List[str]] = None,
                              caching_device: Optional[str] = None, validate_shape: bool = True,
                              use_resource: Optional[bool] = None,
                              constraint: Any = None) -> PartitionedVariable:
    """Creates or returns the partitioned variable ``name`` in ``store``.

    Shards are created through ``store.get_variable`` so each is an ordinary
    variable of the store (``<name>/part_<i>``), with its regularizer and
    collections; the PartitionedVariable itself is remembered by full name so
    that reuse returns the same object.
    """
    if not callable(partitioner):
        raise ValueError(f"Partitioner of variable {name} must be callable, got {partitioner!r}")
    dt = _dtypes.as_dtype(dtype)
    init_is_value = initializer is not None and not callable(initializer)
    full = as_shape(shape) if shape is not None else TensorShape(None)
    if init_is_value:
        if shape is not None and validate_shape:
            raise ValueError(f"If initializer is a constant, do not specify shape "
                             f"(variable {name}).")
        if isinstance(initializer, Tensor):
            full = full.merge_with(initializer.shape)
            if dt is _dtypes.float32:
                dt = initializer.dtype.base_dtype
        else:
            full = full.merge_with(TensorShape(list(np.shape(initializer))))
    with store.lock:
        if name in store.vars:
            raise ValueError(f"A partitioner was given for variable {name}, but a variable of "
                             f"that name without partitions exists. Was it created earlier "
                             f"without a partitioner?")
        existing = store.partitioned.get(name)
        if existing is not None:
            if reuse is False or reuse is None:
                raise ValueError(f"Partitioned variable {name} already exists, disallowed. Did "
                                 f"you mean to set reuse=True or reuse=tf.AUTO_REUSE in "
                                 f"VarScope?")
            if not full.is_compatible_with(existing.get_shape()):
                raise ValueError(f"Trying to share partitioned variable {name}, but specified "
                                 f"shape {full} and found shape {existing.get_shape()}.")
            if dt.base_dtype is not existing.dtype.base_dtype:
                raise ValueError(f"Trying to share partitioned variable {name}, but specified "
                                 f"dtype {dt.name} and found dtype {existing.dtype.name}.")
            if full.is_fully_defined():
                parts = _call_partitioner(partitioner, full, dt, name)
                if parts != existing._get_partitions():
                    raise ValueError(f"Trying to share partitioned variable {name}, but the "
                                     f"partitioner gives {parts} and the variable has "
                                     f"{existing._get_partitions()}.")
            return existing
        if reuse is True:
            raise ValueError(f"Partitioned variable {name} does not exist, or was not created "
                             f"with tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE "
                             f"in VarScope?")
        if not full.is_fully_defined():
            raise ValueError(f"Shape of a new partitioned variable ({name}) must be fully "
                             f"defined, but instead was {full}.")
        parts = _call_partitioner(partitioner, full, dt, name)
        axis, count = _slice_axis(parts, name)
        if f"{name}/part_0" in store.vars:
            raise ValueError(f"Variable {name}/part_0 already exists but {name} is not a "
                             f"partitioned variable made by get_variable; choose another name")
        dims = full.as_list()
        shards = []
        for i, (offset, sshape) in enumerate(_slices(dims, axis, count)):
            shard_name = f"{name}/part_{i}"
            init, init_shape = _shard_initializer(initializer, init_is_value, offset, sshape,
                                                  shard_name)
            v = store.get_variable(shard_name, shape=init_shape, dtype=dt, initializer=init,
                                   regularizer=regularizer, reuse=False, trainable=trainable,
                                   collections=collections, caching_device=caching_device,
                                   validate_shape=validate_shape, use_resource=use_resource,
                                   constraint=constraint,
                                   partition_info=_PartitionInfo(dims, offset))
            v._set_save_slice_info(SaveSliceInfo(name, dims, offset, sshape))
            shards.append(v)
        pv = PartitionedVariable(name, full, dt, shards, parts)
        store.partitioned[name] = pv
    logger.debug("partitioned variable %s %s into %d shards along axis %d", name, dims, count,
                 axis)
    return pv


__all__ = ["PartitionedVariable", "SaveSliceInfo", "fixed_size_partitioner",
           "min_max_variable_partitioner", "variable_axis_size_partitioner"]
