"""N-d gathers and scatters, their in-place forms on variables, and set-like array ops
(``unique_with_counts``, ``setdiff1d``, ``bincount``).

``gather_nd``/``scatter_nd`` index with the last axis of ``indices``: each
index vector picks an element or a slice. ``scatter_nd_update``/``_add``/``_sub``
change a variable in place like ``tf.scatter_update`` does (a ref input, run on
the variable's task, under its lock when ``use_locking``). The row-wise
``scatter_*`` ops on variables live in ``state_ops``.
"""

from __future__ import annotations

import collections
from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, unknown_shape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.op_util import const_value, make_op, make_tensor
from tensorfleet.ops.state_ops import _on_variable, _ref_of, _value_for, scatter_update

UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])
ListDiff = collections.namedtuple("ListDiff", ["out", "idx"])


def _gather_nd_shape(op: Any) -> List[TensorShape]:
    p, i = op.inputs[0].shape, op.inputs[1].shape
    if p.ndims is None or i.ndims is None or i[-1] is None:
        return [unknown_shape()]
    m = i[-1]
    if m > p.ndims:
        raise ValueError(f"index innermost dimension length must be <= params rank; saw: "
                         f"{m} vs. {p.ndims}")
    return [TensorShape(i.as_list()[:-1] + p.as_list()[m:])]


def _scatter_nd_shape(op: Any) -> List[TensorShape]:
    v = const_value(op.inputs[2])
    return [unknown_shape() if v is None else TensorShape([int(d) for d in v])]


def _scatter_nd_ref_shape(op: Any) -> List[TensorShape]:
    ref, idx, upd = (t.shape for t in op.inputs)
    if None not in (ref.ndims, idx.ndims, upd.ndims) and idx.ndims > 0 and \
            idx[-1] is not None:
        want = TensorShape(idx.as_list()[:-1] + ref.as_list()[idx[-1]:])
        if not want.is_compatible_with(upd):
            raise ValueError(f"updates has shape {upd} but indices {idx} and variable {ref} "
                             f"need {want}")
    return [ref]


register_op("GatherNd", _gather_nd_shape)
register_op("ScatterNd", _scatter_nd_shape)
for _t in ("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub", "TensorScatterMax",
           "TensorScatterMin"):
    register_op(_t, lambda op: [op.inputs[0].shape])
for _t in ("ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub"):
    register_op(_t, _scatter_nd_ref_shape, stateful=True, ref_inputs=(0,), ref_output=True)
register_op("UniqueWithCounts", lambda op: [TensorShape([None]), op.inputs[0].shape,
                                            TensorShape([None])])
register_op("ListDiff", lambda op: [TensorShape([None]), TensorShape([None])])
register_op("Bincount", lambda op: [TensorShape([None])])


def _indices(indices: Any, fname: str) -> Tensor:
    i = convert_to_tensor(indices)
    if i.dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"{fname}: indices must be int32 or int64, got {i.dtype.name}")
    if i.shape.ndims == 0:
        raise ValueError(f"{fname}: indices must have rank >= 1, got a scalar")
    return i


def gather_nd(params: Any, indices: Any, name: Optional[str] = None,
              batch_dims: int = 0) -> Tensor:
    """Slices of ``params`` picked by the index vectors along the last axis of ``indices``:
    the result has shape ``indices.shape[:-1] + params.shape[indices.shape[-1]:]``.

    Raises:
      ValueError: for batch_dims other than 0 or index vectors longer than params' rank.
    """
    if batch_dims != 0:
        raise ValueError(f"gather_nd: batch_dims={batch_dims} is not supported (only 0)")
    p = convert_to_tensor(params)
    i = _indices(indices, "gather_nd")
    return make_tensor("GatherNd", [p, i], p.dtype, name=name or "GatherNd")


def scatter_nd(indices: Any, updates: Any, shape: Any, name: Optional[str] = None) -> Tensor:
    """A zero tensor of ``shape`` with ``updates`` added at ``indices`` (repeats add up)."""
    i = _indices(indices, "scatter_nd")
    u = convert_to_tensor(updates)
    s = shape if isinstance(shape, Tensor) else convert_to_tensor(
        [int(d) for d in shape], dtype=i.dtype)
    if s.dtype is not i.dtype:
        s = A.cast(s, i.dtype)
    return make_tensor("ScatterNd", [i, u, s], u.dtype, name=name or "ScatterNd")


def _tensor_scatter(op_type: str, tensor: Any, indices: Any, updates: Any,
                    name: Optional[str]) -> Tensor:
    t = convert_to_tensor(tensor)
    i = _indices(indices, op_type)
    u = convert_to_tensor(updates, dtype=t.dtype)
    return make_tensor(op_type, [t, i, u], t.dtype, name=name or op_type)


def tensor_scatter_update(tensor: Any, indices: Any, updates: Any,
                          name: Optional[str] = None) -> Tensor:
    """A copy of ``tensor`` with the elements or slices at ``indices`` replaced."""
    return _tensor_scatter("TensorScatterUpdate", tensor, indices, updates, name)


def tensor_scatter_add(tensor: Any, indices: Any, updates: Any,
                       name: Optional[str] = None) -> Tensor:
    """A copy of ``tensor`` with ``updates`` added at ``indices``."""
    return _tensor_scatter("TensorScatterAdd", tensor, indices, updates, name)


def tensor_scatter_sub(tensor: Any, indices: Any, updates: Any,
                       name: Optional[str] = None) -> Tensor:
    """A copy of ``tensor`` with ``updates`` subtracted at ``indices``."""
    return _tensor_scatter("TensorScatterSub", tensor, indices, updates, name)


def tensor_scatter_max(tensor: Any, indices: Any, updates: Any,
                       name: Optional[str] = None) -> Tensor:
    """A copy of ``tensor`` holding, at ``indices``, the maximum of its element and every
    update for that position."""
    return _tensor_scatter("TensorScatterMax", tensor, indices, updates, name)


def tensor_scatter_min(tensor: Any, indices: Any, updates: Any,
                       name: Optional[str] = None) -> Tensor:
    """A copy of ``tensor`` holding, at ``indices``, the minimum of its element and every
    update for that position."""
    return _tensor_scatter("TensorScatterMin", tensor, indices, updates, name)


# The later TensorFlow names of the ops above.
tensor_scatter_nd_max = tensor_scatter_max
tensor_scatter_nd_min = tensor_scatter_min
tensor_scatter_nd_update = tensor_scatter_update
tensor_scatter_nd_add = tensor_scatter_add
tensor_scatter_nd_sub = tensor_scatter_sub


def _scatter_nd_ref(op_type: str, ref: Any, indices: Any, updates: Any, use_locking: Any,
                    name: Optional[str]) -> Tensor:
    r = _ref_of(ref, op_type)
    i = _indices(indices, op_type)
    upd = _value_for(r, updates, f"{op_type} on {r.op.name}")
    with _on_variable(r):
        return make_tensor(op_type, [r, i, upd], r.dtype, {"use_locking": bool(use_locking)},
                           name=name or op_type)


def scatter_nd_update(ref: Any, indices: Any, updates: Any, use_locking: bool = True,
                      name: Optional[str] = None) -> Tensor:
    """Overwrites the elements or slices of the variable at ``indices`` with ``updates``."""
    return _scatter_nd_ref("ScatterNdUpdate", ref, indices, updates, use_locking, name)


def scatter_nd_add(ref: Any, indices: Any, updates: Any, use_locking: bool = False,
                   name: Optional[str] = None) -> Tensor:
    """Adds ``updates`` to the variable at ``indices``; repeated indices add up."""
    return _scatter_nd_ref("ScatterNdAdd", ref, indices, updates, use_locking, name)


def scatter_nd_sub(ref: Any, indices: Any, updates: Any, use_locking: bool = False,
                   name: Optional[str] = None) -> Tensor:
    """Subtracts ``updates`` from the variable at ``indices``; repeats subtract each time."""
    return _scatter_nd_ref("ScatterNdSub", ref, indices, updates, use_locking, name)


def batch_scatter_update(ref: Any, indices: Any, updates: Any, use_locking: bool = True,
                         name: Optional[str] = None) -> Tensor:
    """``scatter_update`` along the last dimension of ``indices``: for every batch
    position ``b`` of ``indices`` (all but its last dimension),
    ``ref[b..., indices[b..., j]] = updates[b..., j]``.

    Raises:
      ValueError: ``indices`` of unknown rank.
    """
    with name_scope(name, "BatchScatterUpdate"):
        idx = convert_to_tensor(indices, name="indices")
        ndims = idx.shape.ndims
        if ndims is None:
            raise ValueError("batch_scatter_update needs indices of known rank")
        if ndims <= 1:
            return scatter_update(ref, idx, updates, use_locking=use_locking)
        shape = A.shape(idx)
        grids = []
        for dim in range(ndims - 1):
            size = shape[dim]
            view = [1] * ndims
            view[dim] = -1
            grid = A.reshape(A.range(size, dtype=idx.dtype), view)
            grids.append(A.expand_dims(grid + A.zeros_like(idx), -1))
        nd = A.concat(grids + [A.expand_dims(idx, -1)], axis=-1)
        return scatter_nd_update(ref, nd, updates, use_locking=use_locking)


def _int_dtype(dt: Any, fname: str) -> _dtypes.DType:
    d = _dtypes.as_dtype(dt)
    if d not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"{fname}: the index dtype must be int32 or int64, got {d.name}")
    return d


def unique_with_counts(x: Any, out_idx: Any = _dtypes.int32,
                       name: Optional[str] = None) -> UniqueWithCounts:
    """The distinct values of the vector ``x`` in order of first appearance, each
    element's position in that list, and how often each value occurs."""
    t = convert_to_tensor(x)
    if t.shape.ndims is not None and t.shape.ndims != 1:
        raise ValueError(f"unique_with_counts: x must be a vector, got shape {t.shape}")
    odt = _int_dtype(out_idx, "unique_with_counts")
    op = make_op("UniqueWithCounts", [t], [t.dtype, odt, odt], {"out_idx": odt.name},
                 name=name or "UniqueWithCounts")
    return UniqueWithCounts(*op.outputs)


def setdiff1d(x: Any, y: Any, index_dtype: Any = _dtypes.int32,
              name: Optional[str] = None) -> ListDiff:
    """The entries of the vector ``x`` not in ``y``, in order, and their positions in ``x``."""
    tx = convert_to_tensor(x)
    ty = convert_to_tensor(y, dtype=tx.dtype)
    for t, what in ((tx, "x"), (ty, "y")):
        if t.shape.ndims is not None and t.shape.ndims != 1:
            raise ValueError(f"setdiff1d: {what} must be a vector, got shape {t.shape}")
    odt = _int_dtype(index_dtype, "setdiff1d")
    op = make_op("ListDiff", [tx, ty], [tx.dtype, odt], {"out_idx": odt.name},
                 name=name or "ListDiff")
    return ListDiff(*op.outputs)


def bincount(arr: Any, weights: Any = None, minlength: Any = None, maxlength: Any = None,
             dtype: Any = _dtypes.int32, name: Optional[str] = None) -> Tensor:
    """How often each value in ``[0, n)`` occurs in the int32 ``arr`` (or the sum of its
    ``weights``), where ``n`` is ``max(arr) + 1`` raised to ``minlength`` and cut to
    ``maxlength``; values at or beyond ``n`` are not counted.

    Raises:
      TypeError: for an ``arr`` that is not int32.
    """
    with name_scope(name, "bincount"):
        a = convert_to_tensor(arr)
        if a.dtype is not _dtypes.int32:
            raise TypeError(f"bincount: arr must be int32, got {a.dtype.name}")
        flat = A.reshape(a, [-1])
        size = M.maximum(M.add(M.reduce_max(A.concat([flat, [-1]], 0)), 1), 0)
        if minlength is not None:
            size = M.maximum(size, convert_to_tensor(minlength, dtype=_dtypes.int32))
        if maxlength is not None:
            size = M.minimum(size, convert_to_tensor(maxlength, dtype=_dtypes.int32))
        if weights is None:
            out_dt = _dtypes.as_dtype(dtype)
            w = A.zeros([0], dtype=out_dt)
        else:
            w = A.reshape(convert_to_tensor(weights), [-1])
            out_dt = w.dtype
        return make_tensor("Bincount", [flat, size, w], out_dt, name="Bincount")


__all__ = ["batch_scatter_update", "gather_nd", "scatter_nd", "tensor_scatter_update", "tensor_scatter_add",
           "tensor_scatter_sub", "tensor_scatter_nd_update", "tensor_scatter_nd_add",
           "tensor_scatter_nd_sub", "scatter_nd_update", "scatter_nd_add", "scatter_nd_sub",
           "unique_with_counts", "setdiff1d", "bincount"]
