"""The base of the array op family: constants, packing, shapes, reshapes, casts and
bitcasts.

Joining and splitting (``array_concat_ops``) and slicing, gathering and padding
(``array_indexing_ops``) build on this module; ``array_ops`` re-exports the whole family,
so ``tf.<name>`` and ``array_ops.<name>`` find it there.
"""

from __future__ import annotations

import builtins
import logging
from typing import Any, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework import graph as _graph
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, as_shape, scalar, unknown_shape
from tensorfleet.framework import value_range
from tensorfleet.ops.op_util import const_value, make_tensor, same_shape

logger = logging.getLogger(__name__)

# ``range`` and ``slice`` are re-exported from array_indexing_ops below and shadow the builtins.
_builtin_range = builtins.range
_builtin_slice = builtins.slice

_PLAIN = (int, float, bool, complex, str, bytes, np.ndarray, np.generic)


# -- static values of small int tensors (shapes, axes, perms) -----------------------------

def partial_values(t: Tensor) -> Optional[List[Optional[int]]]:
    """The entries of a 1-D int tensor known at build time: ints, None where unknown.

    Returns None when not even the length is known. Used by shape functions of ops
    taking shapes as tensors, so ``reshape(x, [n, -1])`` keeps a static rank.
    """
    v = const_value(t)
    if v is not None:
        return [int(e) for e in np.reshape(v, [-1])]
    op = t.op
    if op.type == "Pack" and op.attrs.get("axis", 0) in (0, -1):
        return [_scalar_partial(i) for i in op.inputs]
    if op.type == "StridedSlice":
        picked = _sliced_partial(op)
        if isinstance(picked, list):
            return picked
    if op.type == "Shape" and op.inputs[0].shape.ndims is not None:
        return op.inputs[0].shape.as_list()
    if op.type == "ConcatV2" and const_value(op.inputs[-1]) is not None:
        parts = [partial_values(i) for i in op.inputs[:-1]]
        if all(p is not None for p in parts):
            return [e for p in parts for e in p]  # type: ignore[union-attr]
    if t.shape.ndims == 1 and t.shape[0] is not None:
        return [None] * t.shape[0]
    return None


def _sliced_partial(op: Any) -> Any:
    """``shape(x)[i]`` or ``shape(x)[a:b]`` evaluated on the known entries, else None."""
    a = op.attrs
    if a["ellipsis_mask"] or a["new_axis_mask"] or op.inputs[0].shape.ndims != 1:
        return None
    src = partial_values(op.inputs[0])
    spec = [const_value(i) for i in op.inputs[1:]]
    if src is None or any(v is None or np.size(v) != 1 for v in spec):
        return None
    b, e, st = (int(np.reshape(v, [-1])[0]) for v in spec)
    if a["shrink_axis_mask"] & 1:
        return src[b] if -len(src) <= b < len(src) else None
    if st == 0:
        return None
    return src[_builtin_slice(None if a["begin_mask"] & 1 else b,
                              None if a["end_mask"] & 1 else e, st)]


def _scalar_partial(t: Tensor) -> Optional[int]:
    cv = const_value(t)
    if cv is not None:
        return int(cv) if np.ndim(cv) == 0 else None
    if t.op.type == "StridedSlice":
        v = _sliced_partial(t.op)
        return v if isinstance(v, int) else None
    return None


def shape_from_tensor(t: Tensor) -> TensorShape:
    """The static ``TensorShape`` described by a 1-D shape tensor (dims may be unknown)."""
    vals = partial_values(t)
    if vals is None:
        return unknown_shape()
    for v in vals:
        if v is not None and v < 0:
            raise ValueError(f"Dimension {v} must be >= 0 in shape {vals}")
    return TensorShape(vals)


def _scalar_int(t: Tensor) -> Optional[int]:
    v = const_value(t)
    return None if v is None else int(np.reshape(v, [-1])[0])


def _is_plain(v: Any) -> bool:
    return isinstance(v, _PLAIN) or (isinstance(v, (list, tuple)) and all(_is_plain(e) for e in v))


def convert_list(values: Sequence[Any], dtype: Any = None, op_name: str = "Pack") -> List[Tensor]:
    """Converts list entries to tensors of one dtype; Python numbers take the tensors' dtype."""
    out: List[Any] = [None] * len(values)
    dt = _dtypes.as_dtype(dtype) if dtype is not None else None
    for i, v in enumerate(values):
        if isinstance(v, (list, tuple)) and not _is_plain(v):
            out[i] = stack(list(v), name="packed", _dtype=dt)
        elif not _is_plain(v):
            out[i] = convert_to_tensor(v)
        if out[i] is not None and dt is None:
            dt = out[i].dtype
    if dt is None and values:
        try:
            dt = _dtypes.dtype_of_value(list(values))
        except (TypeError, ValueError):
            dt = None
    for i, v in enumerate(values):
        if out[i] is None:
            out[i] = convert_to_tensor(v, dtype=dt)
    types = [t.dtype.name for t in out]
    if len(set(types)) > 1 or (dt is not None and out and out[0].dtype is not dt):
        raise TypeError(f"Tensors in list passed to 'values' of '{op_name}' Op have types "
                        f"[{', '.join(types)}] that don't all match.")
    return out


def shape_tensor(shape: Any, name: str = "shape") -> Tensor:
    """A shape given as list, tuple, TensorShape or Tensor, as a 1-D int tensor."""
    if isinstance(shape, TensorShape):
        if not shape.is_fully_defined():
            raise ValueError(f"Cannot use partially known shape {shape} as a shape value")
        shape = shape.as_list()
    if isinstance(shape, (int, np.integer)):
        shape = [int(shape)]
    if isinstance(shape, (list, tuple)):
        if _is_plain(shape):
            vals = np.asarray(shape, dtype=np.int64).reshape([len(shape)])
            # int32 as TensorFlow, int64 when a dimension does not fit (never wrapped).
            fits = not vals.size or (vals.min() >= -2 ** 31 and vals.max() < 2 ** 31)
            return constant(vals.astype(np.int32) if fits else vals, name=name)
        return stack(list(shape), name=name)
    t = convert_to_tensor(shape)
    if not t.dtype.is_integer:
        raise TypeError(f"A shape must be an int32 or int64 tensor, got {t.dtype.name} ({t.name})")
    return t


def _axis_tensor(axis: Any, name: str = "axis") -> Tensor:
    if isinstance(axis, Tensor):
        return axis
    return convert_to_tensor(axis, dtype=_dtypes.int32, name=name)


def _norm_axis(axis: int, rank: Optional[int], what: str = "axis") -> int:
    if rank is None:
        return axis
    if not -rank <= axis < rank:
        raise ValueError(f"{what} {axis} is out of range for a tensor of rank {rank} "
                         f"(expected [{-rank}, {rank}))")
    return axis % rank


# -- registrations ------------------------------------------------------------------------

def _fill_shape(op: Any) -> List[TensorShape]:
    if op.inputs[1].shape.ndims not in (None, 0):
        raise ValueError(f"Fill value must be a scalar, got shape {op.inputs[1].shape}")
    return [shape_from_tensor(op.inputs[0])]


def _known_part_if_same_unknown(x: Tensor, s: Tensor, pos: int) -> Optional[int]:
    """Product of x's known dims when entry ``pos`` of shape tensor ``s`` is ``shape(x)[k]``
    and k is x's only unknown dim; None otherwise."""
    if s.op.type != "Pack" or x.shape.ndims is None:
        return None
    el = s.op.inputs[pos].op
    if el.type != "StridedSlice" or not el.attrs["shrink_axis_mask"] & 1:
        return None
    src = el.inputs[0].op
    k = const_value(el.inputs[1])
    if src.type != "Shape" or src.inputs[0] is not x or k is None:
        return None
    dims = x.shape.as_list()
    k = int(np.reshape(k, [-1])[0])
    if not -len(dims) <= k < len(dims) or dims[k] is not None or dims.count(None) != 1:
        return None
    n = 1
    for d in dims:
        n *= d if d is not None else 1
    return n


def _reshape_shape(op: Any) -> List[TensorShape]:
    x, s = op.inputs
    vals = partial_values(s)
    if vals is None:
        return [unknown_shape()]
    if vals.count(-1) > 1:
        raise ValueError(f"Cannot infer multiple unknown dimensions in shape {vals}")
    if any(v is not None and v < -1 for v in vals):
        raise ValueError(f"Size of a reshape dimension must be >= -1, got shape {vals}")
    n_in = x.shape.num_elements()
    known = 1
    for v in vals:
        if v is not None and v != -1:
            known *= v
    if -1 in vals:
        i = vals.index(-1)
        same = None
        if n_in is None and vals.count(None) == 1:
            # reshape(x, [shape(x)[k], -1]) with only x's dim k unknown: the unknown
            # factor is the same on both sides, so the -1 is still known.
            same = _known_part_if_same_unknown(x, s, vals.index(None))
        if n_in is not None and None not in vals and known > 0:
            if n_in % known:
                raise ValueError(f"Cannot reshape a tensor with {n_in} elements to shape "
                                 f"{vals} ({known} elements)")
            vals[i] = n_in // known
        elif same is not None and known > 0 and same % known == 0:
            vals[i] = same // known
        else:
            vals[i] = None
    elif n_in is not None and None not in vals and known != n_in:
        raise ValueError(f"Cannot reshape a tensor with {n_in} elements to shape {vals} "
                         f"({known} elements)")
    return [TensorShape(vals)]


def _transpose_shape(op: Any) -> List[TensorShape]:
    x, p = op.inputs
    perm = const_value(p)
    rank = x.shape.ndims
    if perm is None:
        n = p.shape[0] if p.shape.ndims == 1 else None
        return [unknown_shape(n if n is not None else rank)]
    perm = [int(i) for i in np.reshape(perm, [-1])]
    if rank is not None and len(perm) != rank:
        raise ValueError(f"Dimension must be {rank} but is {len(perm)} (perm {perm})")
    if sorted(perm) != list(np.arange(len(perm))):
        raise ValueError(f"perm {perm} is not a permutation of 0..{len(perm) - 1}")
    if rank is None:
        return [unknown_shape(len(perm))]
    dims = x.shape.as_list()
    return [TensorShape([dims[i] for i in perm])]


def _expand_dims_shape(op: Any) -> List[TensorShape]:
    x, d = op.inputs
    dim = _scalar_int(d)
    if x.shape.ndims is None:
        return [unknown_shape()]
    if dim is None:
        return [unknown_shape(x.shape.ndims + 1)]
    dim = _norm_axis(dim, x.shape.ndims + 1, "dim")
    dims = x.shape.as_list()
    return [TensorShape(dims[:dim] + [1] + dims[dim:])]


def _squeeze_shape(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    axes = op.attrs["squeeze_dims"]
    if s.ndims is None:
        return [unknown_shape()]
    dims = s.as_list()
    if not axes:
        if None in dims:
            return [unknown_shape()]
        return [TensorShape([d for d in dims if d != 1])]
    norm = {_norm_axis(a, s.ndims) for a in axes}
    for a in norm:
        if dims[a] is not None and dims[a] != 1:
            raise ValueError(f"Can not squeeze dim[{a}], expected a dimension of 1, got "
                             f"{dims[a]}")
    return [TensorShape([d for i, d in enumerate(dims) if i not in norm])]


def _pack_shape(op: Any) -> List[TensorShape]:
    merged = unknown_shape()
    for t in op.inputs:
        try:
            merged = merged.merge_with(t.shape)
        except ValueError:
            raise ValueError(f"Shapes must be equal rank and size, but are {merged} and "
                             f"{t.shape}") from None
    if merged.ndims is None:
        return [unknown_shape()]
    axis = _norm_axis(op.attrs["axis"], merged.ndims + 1)
    dims = merged.as_list()
    return [TensorShape(dims[:axis] + [len(op.inputs)] + dims[axis:])]


def _shape_shape(op: Any) -> List[TensorShape]:
    return [TensorShape([op.inputs[0].shape.ndims])]


register_op("Const", lambda op: [TensorShape(list(op.attrs["value"].shape))])
register_op("Placeholder", lambda op: [op.attrs["shape"]], stateful=True)
register_op("PlaceholderWithDefault", lambda op: [op.attrs["shape"]])
register_op("Identity", same_shape)
register_op("StopGradient", same_shape)
register_op("ZerosLike", same_shape)
register_op("OnesLike", same_shape)
register_op("Fill", _fill_shape)
register_op("Reshape", _reshape_shape)
register_op("Transpose", _transpose_shape)
register_op("InvertPermutation", same_shape)
register_op("ExpandDims", _expand_dims_shape)
register_op("Squeeze", _squeeze_shape)
register_op("Shape", _shape_shape)
register_op("Pack", _pack_shape)
register_op("Size", lambda op: [scalar()])
register_op("Rank", lambda op: [scalar()])
register_op("Cast", same_shape)


def _bitcast_shape(op: Any) -> List[TensorShape]:
    x = op.inputs[0]
    src, dst = x.dtype.np.itemsize, _dtypes.as_dtype(op.attrs["type"]).np.itemsize
    if x.shape.ndims is None:
        return [TensorShape(None)]
    dims = x.shape.as_list()
    if src == dst:
        return [TensorShape(dims)]
    if src > dst:
        return [TensorShape(dims + [src // dst])]
    if not dims or (dims[-1] is not None and dims[-1] != dst // src):
        raise ValueError(f"Cannot bitcast from {x.dtype.name} to "
                         f"{_dtypes.as_dtype(op.attrs['type']).name}: the last dimension "
                         f"must be {dst // src}, got shape {x.shape}")
    return [TensorShape(dims[:-1])]


register_op("Bitcast", _bitcast_shape)


# -- constants and placeholders --------------------------------------------------------------

def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const",
             verify_shape: bool = False) -> Tensor:
    """A tensor holding ``value`` (numbers, nested lists, numpy arrays or strings)."""
    dt = _dtypes.as_dtype(dtype) if dtype is not None else _dtypes.dtype_of_value(value)
    if dt is _dtypes.string:
        arr = np.asarray(value, dtype=object)
        flat = [v if isinstance(v, bytes) else str(v).encode() for v in arr.reshape(-1).tolist()]
        arr = np.array(flat + [None], dtype=object)[:-1].reshape(arr.shape)
    else:
        src = np.asarray(value)
        if src.dtype.kind in "OSU":
            raise TypeError(f"Expected {dt.name}, got {value!r} of type "
                            f"'{type(value).__name__}' instead.")
        if (dt.is_integer or dt.is_bool) and src.dtype.kind == "f" and src.size and not np.all(
                np.floor(src) == src):
            raise TypeError(f"Expected {dt.name}, got {value!r} of type "
                            f"'{type(value).__name__}' instead.")
        if dt.is_integer and src.dtype.kind in "iuf" and src.dtype != dt.np:
            value_range.check_fits(name, dt.name, src, dt.np, action="convert")
        arr = src.astype(dt.np)
    if shape is not None:
        shp = [int(s) for s in (shape if isinstance(shape, (list, tuple)) else [shape])]
        if arr.size == 1 and int(np.prod(shp)) != 1:
            arr = np.full(shp, arr.reshape(-1)[0], dtype=arr.dtype)
        elif arr.size == int(np.prod(shp)):
            arr = arr.reshape(shp)
        else:
            raise TypeError(f"Expected Tensor's shape: {tuple(shp)}, got {arr.shape}.")
    arr.setflags(write=False)
    return make_tensor("Const", [], dt, {"value": arr, "dtype": dt}, name=name)


def _convert_value(value: Any, dtype: Any = None, name: str = "Const") -> Tensor:
    # Nested lists holding tensors are packed (TF's auto-pack), everything else is a Const.
    if isinstance(value, (list, tuple)) and not _is_plain(value):
        return stack(list(value), name="packed" if name == "Const" else name, _dtype=dtype)
    return constant(value, dtype=dtype, name=name)


_graph._register_constant_fn(_convert_value)


def stack(values: List[Any], axis: int = 0, name: str = "stack", _dtype: Any = None) -> Tensor:
    """Packs a list of rank-R tensors into one rank-(R+1) tensor along ``axis``."""
    if isinstance(values, Tensor) or not isinstance(values, (list, tuple)):
        raise TypeError(f"stack expects a list of tensors, got {type(values).__name__}")
    if not values:
        raise ValueError("stack requires at least one value")
    ts = convert_list(values, _dtype)
    return make_tensor("Pack", ts, ts[0].dtype, {"N": len(ts), "axis": int(axis)}, name=name)


def placeholder(dtype: Any, shape: Any = None, name: Optional[str] = None) -> Tensor:
    """A tensor whose value must be fed at run time."""
    dt = _dtypes.as_dtype(dtype)
    return make_tensor("Placeholder", [], dt, {"dtype": dt, "shape": as_shape(shape)},
                       name=name or "Placeholder")


def placeholder_with_default(input: Any, shape: Any, name: Optional[str] = None) -> Tensor:
    """Passes ``input`` through unless a value is fed."""
    x = convert_to_tensor(input)
    shp = as_shape(shape)
    if not shp.is_compatible_with(x.shape):
        raise ValueError(f"Shape {shp} is not compatible with the default's shape {x.shape}")
    return make_tensor("PlaceholderWithDefault", [x], x.dtype, {"shape": shp},
                       name=name or "PlaceholderWithDefault")


def identity(input: Any, name: Optional[str] = None) -> Tensor:
    """Returns a tensor with the same value as ``input``."""
    x = convert_to_tensor(input)
    return make_tensor("Identity", [x], x.dtype, name=name or "Identity")


def stop_gradient(input: Any, name: Optional[str] = None) -> Tensor:
    """Passes ``input`` through; no gradient flows back through it."""
    x = convert_to_tensor(input)
    return make_tensor("StopGradient", [x], x.dtype, name=name or "StopGradient")


# -- filled tensors ----------------------------------------------------------------------

def fill(dims: Any, value: Any, name: Optional[str] = None) -> Tensor:
    """A tensor of shape ``dims`` with every element equal to the scalar ``value``."""
    v = convert_to_tensor(value)
    return make_tensor("Fill", [shape_tensor(dims), v], v.dtype, name=name or "Fill")


def _scalar_of(dt: _dtypes.DType, one: bool) -> Any:
    if dt is _dtypes.string:
        return b""
    return np.array(1 if one else 0, dtype=dt.np)


def zeros(shape: Any, dtype: Any = _dtypes.float32, name: Optional[str] = None) -> Tensor:
    """A tensor of the given shape with all elements zero."""
    dt = _dtypes.as_dtype(dtype)
    return fill(shape, constant(_scalar_of(dt, False), dtype=dt), name=name or "zeros")


def ones(shape: Any, dtype: Any = _dtypes.float32, name: Optional[str] = None) -> Tensor:
    """A tensor of the given shape with all elements one."""
    dt = _dtypes.as_dtype(dtype)
    return fill(shape, constant(_scalar_of(dt, True), dtype=dt), name=name or "ones")


def zeros_like(tensor: Any, dtype: Any = None, name: Optional[str] = None,
               optimize: bool = True) -> Tensor:
    """Zeros with the shape of ``tensor`` (and its dtype unless ``dtype`` is given)."""
    x = convert_to_tensor(tensor)
    if dtype is not None and _dtypes.as_dtype(dtype) is not x.dtype:
        return zeros(shape(x), dtype, name=name or "zeros_like")
    return make_tensor("ZerosLike", [x], x.dtype, name=name or "zeros_like")


def ones_like(tensor: Any, dtype: Any = None, name: Optional[str] = None,
              optimize: bool = True) -> Tensor:
    """Ones with the shape of ``tensor`` (and its dtype unless ``dtype`` is given)."""
    x = convert_to_tensor(tensor)
    if dtype is not None and _dtypes.as_dtype(dtype) is not x.dtype:
        return ones(shape(x), dtype, name=name or "ones_like")
    return make_tensor("OnesLike", [x], x.dtype, name=name or "ones_like")


# -- shapes ------------------------------------------------------------------------------

def shape(input: Any, name: Optional[str] = None, out_type: Any = _dtypes.int32) -> Tensor:
    """The shape of ``input`` as a 1-D int tensor."""
    x = convert_to_tensor(input)
    dt = _dtypes.as_dtype(out_type)
    return make_tensor("Shape", [x], dt, {"out_type": dt}, name=name or "Shape")


def size(input: Any, name: Optional[str] = None, out_type: Any = _dtypes.int32) -> Tensor:
    """The number of elements of ``input`` as a scalar int tensor."""
    x = convert_to_tensor(input)
    dt = _dtypes.as_dtype(out_type)
    return make_tensor("Size", [x], dt, {"out_type": dt}, name=name or "Size")


def rank(input: Any, name: Optional[str] = None) -> Tensor:
    """The number of dimensions of ``input`` as a scalar int32 tensor."""
    x = convert_to_tensor(input)
    return make_tensor("Rank", [x], _dtypes.int32, name=name or "Rank")


def reshape(tensor: Any, shape: Any, name: Optional[str] = None) -> Tensor:
    """``tensor`` with its elements rearranged to ``shape`` (one entry may be -1)."""
    x = convert_to_tensor(tensor)
    return make_tensor("Reshape", [x, shape_tensor(shape)], x.dtype, name=name or "Reshape")


def expand_dims(input: Any, axis: Any = None, name: Optional[str] = None,
                dim: Any = None) -> Tensor:
    """Inserts a dimension of size 1 at ``axis`` (negative counts from the end)."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim' in expand_dims")
        axis = dim
    if axis is None:
        raise ValueError("expand_dims requires an 'axis'")
    x = convert_to_tensor(input)
    return make_tensor("ExpandDims", [x, _axis_tensor(axis, "dim")], x.dtype,
                       name=name or "ExpandDims")


def squeeze(input: Any, axis: Any = None, name: Optional[str] = None,
            squeeze_dims: Any = None) -> Tensor:
    """Removes dimensions of size 1 (only those listed in ``axis`` when given)."""
    if squeeze_dims is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'squeeze_dims' in squeeze")
        axis = squeeze_dims
    axes = [] if axis is None else [int(a) for a in (axis if isinstance(axis, (list, tuple))
                                                     else [axis])]
    x = convert_to_tensor(input)
    return make_tensor("Squeeze", [x], x.dtype, {"squeeze_dims": axes}, name=name or "Squeeze")


def invert_permutation(x: Any, name: Optional[str] = None) -> Tensor:
    """The inverse of the permutation ``x``: ``y[x[i]] = i``."""
    p = convert_to_tensor(x)
    return make_tensor("InvertPermutation", [p], p.dtype, name=name or "InvertPermutation")


# -- dtypes ------------------------------------------------------------------------------------

def cast(x: Any, dtype: Any, name: Optional[str] = None) -> Any:
    """``x`` converted to ``dtype`` (floats to ints truncate toward zero)."""
    dt = _dtypes.as_dtype(dtype)
    if isinstance(x, IndexedSlices):
        return IndexedSlices(cast(x.values, dt, name=name), x.indices, x.dense_shape)
    t = convert_to_tensor(x)
    if t.dtype is dt:
        return t
    if dt is _dtypes.string or t.dtype is _dtypes.string:
        raise TypeError(f"Cast from {t.dtype.name} to {dt.name} is not supported ({t.name})")
    return make_tensor("Cast", [t], dt, {"SrcT": t.dtype, "DstT": dt}, name=name or "Cast")


def bitcast(input: Any, type: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The bytes of ``input`` read as ``type``: a wider source gains a last dimension of
    the size ratio, a narrower one loses its last dimension (which must be the ratio)."""
    x = convert_to_tensor(input)
    dt = _dtypes.as_dtype(type)
    if x.dtype is _dtypes.string or dt is _dtypes.string:
        raise TypeError("bitcast does not take string tensors")
    return make_tensor("Bitcast", [x], dt, {"type": dt.name}, name=name or "Bitcast")


def guarantee_const(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """``input`` unchanged; TensorFlow takes it as a promise that the value is constant."""
    return identity(input, name=name or "GuaranteeConst")


def to_float(x: Any, name: str = "ToFloat") -> Any:
    """``cast(x, tf.float32)``."""
    return cast(x, _dtypes.float32, name=name)


def to_double(x: Any, name: str = "ToDouble") -> Any:
    """``cast(x, tf.float64)``."""
    return cast(x, _dtypes.float64, name=name)


def to_int32(x: Any, name: str = "ToInt32") -> Any:
    """``cast(x, tf.int32)``."""
    return cast(x, _dtypes.int32, name=name)


def to_int64(x: Any, name: str = "ToInt64") -> Any:
    """``cast(x, tf.int64)``."""
    return cast(x, _dtypes.int64, name=name)


__all__ = [
    "constant", "stack", "placeholder", "placeholder_with_default", "identity", "stop_gradient",
    "fill", "zeros", "ones", "zeros_like", "ones_like", "shape", "size", "rank", "reshape",
    "expand_dims", "squeeze", "invert_permutation", "cast", "bitcast", "guarantee_const",
    "to_float", "to_double", "to_int32", "to_int64",
]
