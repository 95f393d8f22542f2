"""Gradient accumulators: ``tf.ConditionalAccumulator`` and ``tf.SparseConditionalAccumulator``.

An accumulator op outputs a *reference* to an accumulator resource kept in its
task's resource manager, as a queue op does. Every op that touches the
accumulator takes that reference as input 0 (a ref input), so placement runs it
on the accumulator's task; workers of a between-graph replicated job that
declare it with the same ``shared_name`` (or op name) share it.

Workers ``apply_grad`` gradients tagged with the local step they were computed
at; gradients older than the accumulator's global step are dropped as stale.
``take_grad`` blocks until enough gradients arrived and returns their average;
it does not move the global step: ``set_global_step`` does (the chief of
``SyncReplicasOptimizer`` calls it after each update).

``close`` is a tensorfleet addition (TF 1.x has none): it fails a blocked
``take_grad`` with CancelledError and makes later gradients be dropped, which is
how a synchronous job's chief stops its aggregation loop when training ends.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, List, Optional, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, as_shape, scalar, unknown_shape
from tensorfleet.ops.op_util import make_op, make_tensor, no_outputs
from tensorfleet.ops.array_ops import cast

# -- op registrations ---------------------------------------------------------------------


def _declared_shape(op: Operation) -> TensorShape:
    """The shape the accumulator feeding input 0 of ``op`` was declared with."""
    s = op.inputs[0].op.attrs.get("shape")
    return unknown_shape() if s is None else as_shape(s)


def _handle_shape(op: Operation) -> List[TensorShape]:
    return [scalar()]


def _take_shape(op: Operation) -> List[TensorShape]:
    return [_declared_shape(op)]


def _sparse_take_shape(op: Operation) -> List[TensorShape]:
    declared = _declared_shape(op)
    rows = TensorShape([None]) if declared.ndims is None else \
        TensorShape([None]).concatenate(TensorShape(declared.as_list()[1:]))
    rank = declared.ndims
    return [TensorShape([None]), rows if rank else unknown_shape(), TensorShape([rank])]


for _t in ("ConditionalAccumulator", "SparseConditionalAccumulator"):
    register_op(_t, _handle_shape, stateful=True, ref_output=True)
register_op("AccumulatorApplyGradient", no_outputs, stateful=True, ref_inputs=(0,))
register_op("AccumulatorTakeGradient", _take_shape, stateful=True, ref_inputs=(0,))
register_op("SparseAccumulatorApplyGradient", no_outputs, stateful=True, ref_inputs=(0,))
register_op("SparseAccumulatorTakeGradient", _sparse_take_shape, stateful=True,
            ref_inputs=(0,))
register_op("AccumulatorNumAccumulated", _handle_shape, stateful=True, ref_inputs=(0,))
register_op("AccumulatorSetGlobalStep", no_outputs, stateful=True, ref_inputs=(0,))
register_op("AccumulatorClose", no_outputs, stateful=True, ref_inputs=(0,))


def _as_int64(v: Any, name: str) -> Tensor:
    # Python and numpy integers become int64 constants directly; tensors and
    # variables of another integer type are cast.
    literal = isinstance(v, (bool, int, np.integer, np.ndarray))
    t = convert_to_tensor(v, dtype=_dtypes.int64 if literal else None, name=name)
    if not t.dtype.is_integer:
        raise TypeError(f"{name} must be an integer, got {t.dtype.name} ({t.name})")
    if t.shape.ndims not in (None, 0):
        raise ValueError(f"{name} must be a scalar, got shape {t.shape}")
    if t.dtype is not _dtypes.int64:
        t = cast(t, _dtypes.int64, name=f"{name}_int64")
    return t


# -- the Python API -------------------------------------------------------------------------

class ConditionalAccumulatorBase:
    """What dense and sparse accumulators share: the reference, the number of
    gradients held, the global step and closing.

    Each method adds an op to the accumulator's graph, colocated with it.
    """

    def __init__(self, dtype: Any, shape: Any, accumulator_ref: Tensor):
        self._dtype = _dtypes.as_dtype(dtype)
        self._shape = unknown_shape() if shape is None else as_shape(shape)
        self._accumulator_ref = accumulator_ref
        self._name = accumulator_ref.op.name

    @property
    def accumulator_ref(self) -> Tensor:
        """The reference tensor that every op of this accumulator reads."""
        return self._accumulator_ref

    @property
    def name(self) -> str:
        """The name of the accumulator op."""
        return self._name

    @property
    def dtype(self) -> _dtypes.DType:
        """The dtype of the gradients it accumulates."""
        return self._dtype

    @contextlib.contextmanager
    def _on_accumulator(self) -> Iterator[None]:
        # The reference cannot cross tasks: every op of it runs where it lives.
        with self._accumulator_ref.graph.colocate_with(self._accumulator_ref.op):
            yield

    def num_accumulated(self, name: Optional[str] = None) -> Tensor:
        """An int32 scalar: the number of gradients held now."""
        with self._on_accumulator():
            return make_tensor("AccumulatorNumAccumulated", [self._accumulator_ref],
                               _dtypes.int32, {}, name=name or "num_accumulated")

    def set_global_step(self, new_global_step: Any, name: Optional[str] = None) -> Operation:
        """An op that sets the staleness threshold: gradients of an older local step,
        held or arriving later, are dropped."""
        with self._on_accumulator():
            step = _as_int64(new_global_step, "new_global_step")
            return make_op("AccumulatorSetGlobalStep", [self._accumulator_ref, step], [], {},
                           name=name or "AccumulatorSetGlobalStep")

    def close(self, name: Optional[str] = None) -> Operation:
        """An op that closes the accumulator (a tensorfleet addition): a blocked or later
        ``take_grad`` fails with CancelledError and later gradients are dropped."""
        with self._on_accumulator():
            return make_op("AccumulatorClose", [self._accumulator_ref], [], {},
                           name=name or "AccumulatorClose")

    def _check_dtype(self, t: Tensor, what: str) -> None:
        if t.dtype.base_dtype is not self._dtype:
            raise TypeError(f"{what} has dtype {t.dtype.name} but accumulator {self._name!r} "
                            f"accumulates {self._dtype.name}")


def _accumulator_op(op_type: str, dtype: _dtypes.DType, shape: TensorShape,
                    shared_name: Optional[str], reduction_type: str, name: str) -> Tensor:
    if dtype not in (_dtypes.float16, _dtypes.float32, _dtypes.float64):
        raise TypeError(f"An accumulator holds float16, float32 or float64 gradients, not "
                        f"{dtype.name}")
    if reduction_type not in ("MEAN", "SUM"):
        raise ValueError(f"reduction_type must be 'MEAN' or 'SUM', got {reduction_type!r}")
    attrs = {"dtype": dtype, "shape": shape, "container": "", "shared_name": shared_name or "",
             "reduction_type": reduction_type}
    return make_tensor(op_type, [], _dtypes.string, attrs, name=name)


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """``tf.ConditionalAccumulator``: averages dense gradients, dropping stale ones.

    Args:
      dtype: the gradients' dtype (a floating point type).
      shape: the gradients' shape; unknown dims are fixed by the first gradient.
      shared_name: share the accumulator under this name with every session (and
        graph) on its task; by default it is shared under the op's name.
      name: the accumulator op's name.
      reduction_type: ``"MEAN"`` (average, the default) or ``"SUM"``.
    """

    def __init__(self, dtype: Any, shape: Any = None, shared_name: Optional[str] = None,
                 name: str = "conditional_accumulator", reduction_type: str = "MEAN"):
        dt = _dtypes.as_dtype(dtype)
        shp = unknown_shape() if shape is None else as_shape(shape)
        ref = _accumulator_op("ConditionalAccumulator", dt, shp, shared_name, reduction_type,
                              name)
        super().__init__(dt, shp, ref)

    def apply_grad(self, grad: Any, local_step: Any = 0,
                   name: Optional[str] = None) -> Operation:
        """An op adding ``grad``, computed at ``local_step``; a stale one is dropped.

        Raises:
          ValueError: if ``grad``'s shape does not match the accumulator's.
        """
        g = convert_to_tensor(grad, dtype=self._dtype)
        self._check_dtype(g, "The gradient")
        if not g.shape.is_compatible_with(self._shape):
            raise ValueError(f"Shape mismatch: accumulator {self._name!r} has shape "
                             f"{self._shape} but the gradient has shape {g.shape}")
        with self._on_accumulator():
            step = _as_int64(local_step, "local_step")
            return make_op("AccumulatorApplyGradient", [self._accumulator_ref, step, g], [],
                           {"dtype": self._dtype}, name=name or "AccumulatorApplyGradient")

    def take_grad(self, num_required: Any, name: Optional[str] = None) -> Tensor:
        """A tensor: the average of the gradients held, once ``num_required`` arrived
        (blocking until then); the accumulator is emptied."""
        with self._on_accumulator():
            n = convert_to_tensor(num_required, dtype=_dtypes.int32, name="num_required")
            return make_tensor("AccumulatorTakeGradient", [self._accumulator_ref, n],
                               self._dtype, {"dtype": self._dtype},
                               name=name or "AccumulatorTakeGradient")


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """``tf.SparseConditionalAccumulator``: averages ``IndexedSlices`` gradients.

    As in TensorFlow, the average is taken index by index: the rows given for an
    index are summed over the gradients applied and divided by the number of
    gradients that named that index, so a row that only one of two replicas
    touched keeps that replica's whole gradient. Repeated indices within one
    gradient are summed and count once.

    Args: as for ``ConditionalAccumulator``.
    """

    def __init__(self, dtype: Any, shape: Any = None, shared_name: Optional[str] = None,
                 name: str = "sparse_conditional_accumulator", reduction_type: str = "MEAN"):
        dt = _dtypes.as_dtype(dtype)
        shp = unknown_shape() if shape is None else as_shape(shape)
        ref = _accumulator_op("SparseConditionalAccumulator", dt, shp, shared_name,
                              reduction_type, name)
        super().__init__(dt, shp, ref)

    def apply_indexed_slices_grad(self, grad: IndexedSlices, local_step: Any = 0,
                                  name: Optional[str] = None) -> Operation:
        """An op adding the ``IndexedSlices`` gradient ``grad`` computed at ``local_step``."""
        if not isinstance(grad, IndexedSlices):
            raise TypeError(f"apply_indexed_slices_grad needs an IndexedSlices, got {grad!r}")
        return self.apply_grad(grad.indices, grad.values, grad.dense_shape, local_step, name)

    def apply_grad(self, grad_indices: Any, grad_values: Any, grad_shape: Any = None,
                   local_step: Any = 0, name: Optional[str] = None) -> Operation:
        """An op adding rows ``grad_indices`` with ``grad_values`` (and, optionally, the
        dense shape ``grad_shape``) computed at ``local_step``."""
        vals = convert_to_tensor(grad_values, dtype=self._dtype)
        self._check_dtype(vals, "The gradient values")
        idx = convert_to_tensor(grad_indices, dtype=None if isinstance(grad_indices, Tensor)
                                else _dtypes.int64)
        if not idx.dtype.is_integer:
            raise TypeError(f"grad_indices must be integers, got {idx.dtype.name}")
        if self._shape.ndims is not None and vals.shape.ndims is not None:
            row = TensorShape(self._shape.as_list()[1:])
            if vals.shape.ndims != self._shape.ndims or not row.is_compatible_with(
                    TensorShape(vals.shape.as_list()[1:])):
                raise ValueError(f"Shape mismatch: accumulator {self._name!r} has shape "
                                 f"{self._shape} but the gradient values have shape "
                                 f"{vals.shape}")
        has_shape = grad_shape is not None
        with self._on_accumulator():
            step = _as_int64(local_step, "local_step")
            if has_shape:
                shp = convert_to_tensor(grad_shape, dtype=None if isinstance(grad_shape, Tensor)
                                        else _dtypes.int64)
            else:
                shp = convert_to_tensor([], dtype=_dtypes.int64, name="no_shape")
            if idx.dtype is not _dtypes.int64:
                idx = cast(idx, _dtypes.int64)
            if shp.dtype is not _dtypes.int64:
                shp = cast(shp, _dtypes.int64)
            return make_op("SparseAccumulatorApplyGradient",
                           [self._accumulator_ref, step, idx, vals, shp], [],
                           {"dtype": self._dtype, "has_known_shape": has_shape},
                           name=name or "SparseAccumulatorApplyGradient")

    def take_grad(self, num_required: Any,
                  name: Optional[str] = None) -> Tuple[Tensor, Tensor, Tensor]:
        """``(indices, values, dense_shape)``: the averaged rows once ``num_required``
        gradients arrived (blocking until then); the accumulator is emptied."""
        with self._on_accumulator():
            n = convert_to_tensor(num_required, dtype=_dtypes.int32, name="num_required")
            op = make_op("SparseAccumulatorTakeGradient", [self._accumulator_ref, n],
                         [_dtypes.int64, self._dtype, _dtypes.int64], {"dtype": self._dtype},
                         name=name or "SparseAccumulatorTakeGradient")
        return op.outputs[0], op.outputs[1], op.outputs[2]

    def take_indexed_slices_grad(self, num_required: Any,
                                 name: Optional[str] = None) -> IndexedSlices:
        """Like ``take_grad``, as an ``IndexedSlices``."""
        indices, values, shape = self.take_grad(num_required, name=name)
        return IndexedSlices(values=values, indices=indices, dense_shape=shape)


__all__ = ["ConditionalAccumulatorBase", "ConditionalAccumulator",
           "SparseConditionalAccumulator"]
