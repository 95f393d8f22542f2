"""Array ops that rearrange, broadcast or tile the elements of a tensor, or compute where
elements go: ``tf.roll``, ``tf.meshgrid``, ``tf.broadcast_to``,
``tf.broadcast_static_shape``, ``tf.broadcast_dynamic_shape``, ``tf.where_v2``,
``tf.space_to_depth`` / ``tf.depth_to_space``, ``tf.space_to_batch_nd`` /
``tf.batch_to_space_nd`` and their 2-D forms ``tf.space_to_batch`` / ``tf.batch_to_space``
(with ``tf.required_space_to_batch_paddings``, the paddings and crops they need),
``tf.parallel_stack``, ``tf.shape_n``, ``tf.lin_space`` / ``tf.linspace``,
``tf.searchsorted``, ``tf.unravel_index``, ``tf.saturate_cast`` and ``tf.arg_max`` /
``tf.arg_min`` (the TF 0.x spellings of ``argmax`` / ``argmin``).

Beside them are the TF 1.x helpers for building such tensors: ``tf.dimension_value``,
``tf.convert_to_tensor_or_sparse_tensor``, ``tf.convert_to_tensor_or_indexed_slices``,
``tf.init_scope`` and ``tf.get_seed``.

Each op is a composite of the base array and math ops, so its gradient comes from theirs;
the values follow TensorFlow's.
"""

from __future__ import annotations

import builtins
import contextlib
from typing import Any, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import (Tensor, convert_to_tensor, get_default_graph,
                                         get_seed, name_scope)
from tensorfleet.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from tensorfleet.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorfleet.framework.tensor_shape import Dimension, TensorShape, as_shape, broadcast_shape
from tensorfleet.ops.array_ops_core import (cast, expand_dims, fill, identity, ones, reshape,
                                            shape, size, stack, zeros)
from tensorfleet.ops.array_concat_ops import concat
from tensorfleet.ops.array_indexing_ops import (gather, pad, range as _range, slice as _slice,
                                                transpose, where)
from tensorfleet.ops.control_flow_ops import Assert
from tensorfleet.ops.math_ops_core import (add, equal, floordiv, floormod, less, less_equal,
                                           logical_or, maximum, minimum, multiply, subtract)
from tensorfleet.ops.math_ops_reduce import argmax, argmin, cumprod, reduce_all, reduce_sum
from tensorfleet.ops.op_util import convert_pair

__all__ = ["arg_max", "arg_min", "lin_space", "linspace", "meshgrid", "roll", "broadcast_to",
           "broadcast_static_shape", "broadcast_dynamic_shape", "shape_n",
           "parallel_stack", "dimension_value", "saturate_cast", "where_v2", "searchsorted",
           "unravel_index", "space_to_depth", "depth_to_space", "init_scope", "get_seed",
           "space_to_batch_nd", "batch_to_space_nd", "space_to_batch", "batch_to_space",
           "required_space_to_batch_paddings", "convert_to_tensor_or_sparse_tensor",
           "convert_to_tensor_or_indexed_slices"]


def arg_max(input: Any, dimension: Any = None, name: Optional[str] = None,  # noqa: A002
            output_type: Any = _dtypes.int64) -> Tensor:
    """The TF 0.x/1.x spelling of ``tf.argmax`` (``dimension`` is the axis)."""
    return argmax(input, dimension, name=name, output_type=output_type)


def arg_min(input: Any, dimension: Any = None, name: Optional[str] = None,  # noqa: A002
            output_type: Any = _dtypes.int64) -> Tensor:
    """The TF 0.x/1.x spelling of ``tf.argmin`` (``dimension`` is the axis)."""
    return argmin(input, dimension, name=name, output_type=output_type)


def lin_space(start: Any, stop: Any, num: Any, name: Optional[str] = None) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (``[start]`` when
    ``num`` is 1), as TensorFlow's ``LinSpace``: ``start + i * (stop - start) / (num - 1)``."""
    with name_scope(name or "LinSpace"):
        a = convert_to_tensor(start)
        if not a.dtype.is_floating:
            raise TypeError(f"start of lin_space must be a float, got {a.dtype.name}")
        b = convert_to_tensor(stop, dtype=a.dtype)
        n = num if isinstance(num, Tensor) else convert_to_tensor(num, dtype=_dtypes.int32)
        if not isinstance(num, Tensor) and int(num) < 1:
            raise ValueError(f"Requires num > 0: {int(num)}")
        steps = cast(maximum(subtract(n, 1), 1), a.dtype)
        delta = (b - a) / steps
        return add(a, multiply(cast(_range(n), a.dtype), delta))


linspace = lin_space


def meshgrid(*args: Any, **kwargs: Any) -> List[Tensor]:
    """N-D coordinate grids from 1-D coordinate vectors; ``indexing`` 'xy' (default) or 'ij'."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"'{list(kwargs)[0]}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing parameter must be either 'xy' or 'ij'")
    with name_scope(name):
        ndim = len(args)
        s0 = (1,) * ndim
        if not ndim:
            return []
        out = [reshape(convert_to_tensor(x), s0[:i] + (-1,) + s0[i + 1:])
               for i, x in enumerate(args)]
        shapes = [size(x) for x in args]
        dt = out[0].dtype
        if indexing == "xy" and ndim > 1:
            out[0] = reshape(out[0], (1, -1) + (1,) * (ndim - 2))
            out[1] = reshape(out[1], (-1, 1) + (1,) * (ndim - 2))
            shapes[0], shapes[1] = shapes[1], shapes[0]
        mult = ones(stack(shapes), dt)
        return [multiply(x, mult) for x in out]


def _norm_axis(a: int, ndims: Optional[int], what: str) -> int:
    if a < 0:
        if ndims is None:
            raise ValueError(f"{what} needs a non-negative axis when the rank is unknown, got {a}")
        a += ndims
    if ndims is not None and not 0 <= a < ndims:
        raise ValueError(f"axis {a} is out of range for a tensor of rank {ndims}")
    return a


def roll(input: Any, shift: Any, axis: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Elements shifted ``shift`` places along ``axis`` (wrapping round), as ``np.roll``;
    ``shift`` and ``axis`` may be lists of equal length; ``axis`` must be known."""
    with name_scope(name or "Roll"):
        x = convert_to_tensor(input)
        static = x.shape
        shifts = list(shift) if isinstance(shift, (list, tuple)) else [shift]
        axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        if len(shifts) != len(axes):
            raise ValueError("shift and axis must have the same size")
        for s, a in zip(shifts, axes):
            a = _norm_axis(int(a), x.shape.ndims, "roll")
            n = shape(x)[a]
            s = s if isinstance(s, Tensor) else convert_to_tensor(int(s), dtype=_dtypes.int32)
            idx = floormod(subtract(_range(n), cast(s, _dtypes.int32)), n)
            x = gather(x, idx, axis=a)
        x.set_shape(static)
        return x


def broadcast_to(input: Any, shape: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """``input`` broadcast (numpy rules) to ``shape``."""
    with name_scope(name or "BroadcastTo"):
        x = convert_to_tensor(input)
        z = zeros(shape, x.dtype)
        if x.dtype is _dtypes.bool:
            return logical_or(x, z)
        if x.dtype is _dtypes.string:
            raise TypeError("broadcast_to of string tensors is not supported")
        return add(x, z)


def broadcast_static_shape(shape_x: Any, shape_y: Any) -> TensorShape:
    """The static broadcast of two ``TensorShape``s; ValueError when incompatible."""
    return broadcast_shape(as_shape(shape_x), as_shape(shape_y))


def broadcast_dynamic_shape(shape_x: Any, shape_y: Any, name: Optional[str] = None) -> Tensor:
    """The broadcast of two 1-D shape tensors, as a 1-D tensor; an incompatible pair fails
    when run."""
    with name_scope(name or "BroadcastArgs"):
        a = convert_to_tensor(shape_x)
        b = convert_to_tensor(shape_y, dtype=a.dtype)
        r = maximum(size(a), size(b))
        ap = concat([fill(stack([subtract(r, size(a))]), cast(1, a.dtype)), a], 0)
        bp = concat([fill(stack([subtract(r, size(b))]), cast(1, a.dtype)), b], 0)
        ok = reduce_all(logical_or(logical_or(equal(ap, 1), equal(bp, 1)), equal(ap, bp)))
        check = Assert(ok, ["Incompatible shapes:", a, b])
        with get_default_graph().control_dependencies([check]):
            return identity(where(equal(ap, 1), bp, ap))


def shape_n(input: Sequence[Any], out_type: Any = _dtypes.int32,  # noqa: A002
            name: Optional[str] = None) -> List[Tensor]:
    """The shape of each tensor of a list."""
    with name_scope(name or "ShapeN"):
        return [shape(x, out_type=out_type) for x in input]


def parallel_stack(values: Sequence[Any], name: str = "parallel_stack") -> Tensor:
    """``tf.stack`` along a new first axis (TensorFlow copies the inputs in parallel)."""
    return stack(list(values), axis=0, name=name)


def dimension_value(dimension: Any) -> Optional[int]:
    """The int (or None) of a ``Dimension``; anything else unchanged."""
    return dimension.value if isinstance(dimension, Dimension) else dimension


def saturate_cast(value: Any, dtype: Any, name: Optional[str] = None) -> Tensor:
    """``value`` clipped to the range of ``dtype`` and then cast to it."""
    with name_scope(name or "saturate_cast"):
        x = convert_to_tensor(value)
        dt = _dtypes.as_dtype(dtype)
        if x.dtype.is_floating or x.dtype.is_integer:
            if dt.min > x.dtype.min:
                x = maximum(x, _limit_in(dt.min, x.dtype, np.inf))
            if dt.max < x.dtype.max:
                x = minimum(x, _limit_in(dt.max, x.dtype, -np.inf))
        return cast(x, dt)


def _limit_in(limit: Any, dt: Any, inward: float) -> Any:
    """``limit`` as a value of ``dt``, stepped towards ``inward`` while rounding has carried
    it past ``limit`` (float32(2**31 - 1) is 2**31, which no int32 holds)."""
    v = np.array(limit).astype(dt.np)
    if dt.is_floating:
        while (float(v) > limit) if inward < 0 else (float(v) < limit):
            v = np.nextafter(v, inward).astype(dt.np)
    return v


def where_v2(condition: Any, x: Any = None, y: Any = None, name: Optional[str] = None) -> Tensor:
    """``tf.where`` with numpy broadcasting of ``condition``, ``x`` and ``y``; alone, the
    coordinates of the true entries."""
    if x is None and y is None:
        return where(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    with name_scope(name or "SelectV2"):
        c = convert_to_tensor(condition)
        tx, ty = convert_pair(x, y)
        full = broadcast_dynamic_shape(
            broadcast_dynamic_shape(shape(c), shape(tx)), shape(ty))
        static = broadcast_shape(broadcast_shape(c.shape, tx.shape), ty.shape)
        outs = []
        for t in (c, tx, ty):
            if not (t.shape.is_fully_defined() and static.is_fully_defined()
                    and t.shape.as_list() == static.as_list()):
                t = broadcast_to(t, full)
                t.set_shape(static)
            outs.append(t)
        return where(outs[0], outs[1], outs[2])


def searchsorted(sorted_sequence: Any, values: Any, side: str = "left",
                 out_type: Any = _dtypes.int32, name: Optional[str] = None) -> Tensor:
    """Insertion points of ``values`` into the innermost dimension of ``sorted_sequence``
    (the leading dimensions of both must agree); ``side`` 'left' or 'right'."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', got {side!r}")
    with name_scope(name or "searchsorted"):
        seq = convert_to_tensor(sorted_sequence)
        v = convert_to_tensor(values, dtype=seq.dtype)
        cmp = (less if side == "left" else less_equal)(expand_dims(seq, -2), expand_dims(v, -1))
        return reduce_sum(cast(cmp, out_type), axis=-1)


def unravel_index(indices: Any, dims: Any, name: Optional[str] = None) -> Tensor:
    """Coordinates in an array of shape ``dims`` of flat ``indices`` (a scalar or 1-D): shape
    ``[len(dims)]`` or ``[len(dims), len(indices)]``."""
    with name_scope(name or "UnravelIndex"):
        i = convert_to_tensor(indices)
        d = convert_to_tensor(dims, dtype=i.dtype)
        strides = cumprod(d, exclusive=True, reverse=True)
        if i.shape.ndims == 0:
            return floormod(floordiv(i, strides), d)
        return floormod(floordiv(expand_dims(i, 0), expand_dims(strides, -1)),
                        expand_dims(d, -1))


def _nhwc(data_format: str, what: str) -> None:
    if data_format != "NHWC":
        raise ValueError(f"{what} supports data_format 'NHWC' only, got {data_format!r}")


def space_to_depth(input: Any, block_size: int, name: Optional[str] = None,  # noqa: A002
                   data_format: str = "NHWC") -> Tensor:
    """Blocks of ``block_size x block_size`` pixels moved into the channel dimension."""
    _nhwc(data_format, "space_to_depth")
    bs = int(block_size)
    if bs < 2:
        raise ValueError(f"Value for attr 'block_size' of {bs} must be at least 2")
    with name_scope(name or "SpaceToDepth"):
        x = convert_to_tensor(input)
        s = shape(x)
        b, h, w, c = s[0], s[1], s[2], s[3]
        y = reshape(x, stack([b, floordiv(h, bs), bs, floordiv(w, bs), bs, c]))
        y = transpose(y, [0, 1, 3, 2, 4, 5])
        out = reshape(y, stack([b, floordiv(h, bs), floordiv(w, bs), c * (bs * bs)]))
        st = x.shape
        if st.ndims == 4:
            d = st.as_list()
            out.set_shape([d[0], None if d[1] is None else d[1] // bs,
                           None if d[2] is None else d[2] // bs,
                           None if d[3] is None else d[3] * bs * bs])
        return out


def depth_to_space(input: Any, block_size: int, name: Optional[str] = None,  # noqa: A002
                   data_format: str = "NHWC") -> Tensor:
    """The inverse of ``space_to_depth``: channels moved out into ``block_size`` blocks."""
    _nhwc(data_format, "depth_to_space")
    bs = int(block_size)
    if bs < 2:
        raise ValueError(f"Value for attr 'block_size' of {bs} must be at least 2")
    with name_scope(name or "DepthToSpace"):
        x = convert_to_tensor(input)
        s = shape(x)
        b, h, w, c = s[0], s[1], s[2], s[3]
        cc = floordiv(c, bs * bs)
        y = reshape(x, stack([b, h, w, bs, bs, cc]))
        y = transpose(y, [0, 1, 3, 2, 4, 5])
        out = reshape(y, stack([b, h * bs, w * bs, cc]))
        st = x.shape
        if st.ndims == 4:
            d = st.as_list()
            out.set_shape([d[0], None if d[1] is None else d[1] * bs,
                           None if d[2] is None else d[2] * bs,
                           None if d[3] is None else d[3] // (bs * bs)])
        return out


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """A scope for creating state: outer control dependencies are cleared."""
    with get_default_graph().control_dependencies(None):
        yield


def _block_shape(block_shape: Any) -> List[int]:
    if isinstance(block_shape, Tensor):
        raise TypeError("block_shape must be a Python or numpy list of ints here")
    b = [int(v) for v in np.asarray(block_shape).reshape(-1)]
    if not b or any(v < 1 for v in b):
        raise ValueError(f"block_shape must be positive ints, got {b}")
    return b


def _static_pairs(pairs: Any, m: int) -> Optional[List[List[int]]]:
    """``paddings``/``crops`` as M [before, after] int pairs when given as Python or numpy
    values (None for a tensor); ValueError for another shape."""
    if isinstance(pairs, Tensor):
        return None
    a = np.asarray(pairs)
    if a.shape != (m, 2):
        raise ValueError(f"paddings/crops must have shape [{m}, 2], got {list(a.shape)}")
    return [[int(v) for v in row] for row in a]


def space_to_batch_nd(input: Any, block_shape: Any, paddings: Any,  # noqa: A002
                      name: Optional[str] = None) -> Tensor:
    """``input`` zero-padded by ``paddings`` ([M, 2]) in its M spatial dimensions after the
    batch, then each ``block_shape`` block of positions moved into the batch dimension."""
    bs = _block_shape(block_shape)
    m = len(bs)
    with name_scope(name or "SpaceToBatchND"):
        x = convert_to_tensor(input)
        r = x.shape.ndims
        if r is None or r < m + 1:
            raise ValueError(f"input of space_to_batch_nd needs a known rank of at least {m + 1}")
        pads = convert_to_tensor(paddings, dtype=_dtypes.int32)
        full_pads = concat([[[0, 0]], pads, zeros([r - 1 - m, 2], _dtypes.int32)], 0)
        padded = pad(x, full_pads)
        s = shape(padded)
        batch = s[0]
        split = [batch]
        for i, b in enumerate(bs):
            split += [floordiv(s[1 + i], b), b]
        rest = [s[j] for j in builtins.range(1 + m, r)]
        y = reshape(padded, stack(split + rest))
        perm = ([2 + 2 * i for i in builtins.range(m)] + [0]
                + [1 + 2 * i for i in builtins.range(m)]
                + list(builtins.range(1 + 2 * m, 1 + 2 * m + len(rest))))
        y = transpose(y, perm)
        prod = 1
        for b in bs:
            prod *= b
        out = reshape(y, stack([batch * prod] + [split[1 + 2 * i] for i in builtins.range(m)]
                               + rest))
        d = x.shape.as_list()
        pv = _static_pairs(paddings, m)
        out.set_shape([None if d[0] is None else d[0] * prod]
                      + [None if pv is None or d[1 + i] is None
                         else (d[1 + i] + pv[i][0] + pv[i][1]) // bs[i]
                         for i in builtins.range(m)] + d[1 + m:])
        return out


def batch_to_space_nd(input: Any, block_shape: Any, crops: Any,  # noqa: A002
                      name: Optional[str] = None) -> Tensor:
    """The inverse of ``space_to_batch_nd``: batch entries moved back into ``block_shape``
    blocks of the M spatial dimensions, which are then cropped by ``crops`` ([M, 2])."""
    bs = _block_shape(block_shape)
    m = len(bs)
    with name_scope(name or "BatchToSpaceND"):
        x = convert_to_tensor(input)
        r = x.shape.ndims
        if r is None or r < m + 1:
            raise ValueError(f"input of batch_to_space_nd needs a known rank of at least {m + 1}")
        prod = 1
        for b in bs:
            prod *= b
        s = shape(x)
        batch = floordiv(s[0], prod)
        spatial = [s[1 + i] for i in builtins.range(m)]
        rest = [s[j] for j in builtins.range(1 + m, r)]
        y = reshape(x, stack(list(bs) + [batch] + spatial + rest))
        perm = [m]
        for i in builtins.range(m):
            perm += [m + 1 + i, i]
        perm += list(builtins.range(2 * m + 1, 2 * m + 1 + len(rest)))
        y = transpose(y, perm)
        y = reshape(y, stack([batch] + [spatial[i] * bs[i] for i in builtins.range(m)] + rest))
        c = convert_to_tensor(crops, dtype=_dtypes.int32)
        begin = concat([[0], c[:, 0], zeros([r - 1 - m], _dtypes.int32)], 0)
        size_ = concat([[-1], stack([spatial[i] * bs[i] for i in builtins.range(m)])
                        - c[:, 0] - c[:, 1], fill([r - 1 - m], -1)], 0)
        out = _slice(y, begin, size_)
        d = x.shape.as_list()
        cv = _static_pairs(crops, m)
        out.set_shape([None if d[0] is None else d[0] // prod]
                      + [None if cv is None or d[1 + i] is None
                         else d[1 + i] * bs[i] - cv[i][0] - cv[i][1]
                         for i in builtins.range(m)] + d[1 + m:])
        return out


def space_to_batch(input: Any, paddings: Any, block_size: Any = None,  # noqa: A002
                   name: Optional[str] = None, block_shape: Any = None) -> Tensor:
    """``space_to_batch_nd`` over the 2 spatial dimensions of an NHWC ``input`` with a square
    ``block_size`` block (or ``block_shape``)."""
    bs = block_shape if block_shape is not None else [int(block_size)] * 2
    return space_to_batch_nd(input, bs, paddings, name=name or "SpaceToBatch")


def batch_to_space(input: Any, crops: Any, block_size: Any = None,  # noqa: A002
                   name: Optional[str] = None, block_shape: Any = None) -> Tensor:
    """``batch_to_space_nd`` over the 2 spatial dimensions of an NHWC ``input`` with a square
    ``block_size`` block (or ``block_shape``)."""
    bs = block_shape if block_shape is not None else [int(block_size)] * 2
    return batch_to_space_nd(input, bs, crops, name=name or "BatchToSpace")


def required_space_to_batch_paddings(input_shape: Any, block_shape: Any,
                                     base_paddings: Any = None,
                                     name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """The ``(paddings, crops)`` for ``space_to_batch_nd`` / ``batch_to_space_nd``: extra end
    padding making ``input_shape`` plus ``base_paddings`` divisible by ``block_shape``, and
    the crops that remove it again."""
    with name_scope(name or "required_space_to_batch_paddings"):
        shp = cast(convert_to_tensor(input_shape), _dtypes.int32)
        block = cast(convert_to_tensor(block_shape), _dtypes.int32)
        if base_paddings is None:
            base = stack([shp * 0, shp * 0], 1)
        else:
            base = cast(convert_to_tensor(base_paddings), _dtypes.int32)
        start, end = base[:, 0], base[:, 1]
        extra = floormod(block - floormod(shp + start + end, block), block)
        paddings = stack([start, end + extra], 1)
        crops = stack([extra * 0, extra], 1)
        return paddings, crops


def convert_to_tensor_or_sparse_tensor(value: Any, dtype: Any = None,
                                       name: Optional[str] = None) -> Any:
    """A ``SparseTensor`` as it is (a ``SparseTensorValue`` as constants), anything else
    through ``convert_to_tensor``; ``dtype``, when given, must match."""
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype is not None and _dtypes.as_dtype(dtype) is not value.dtype:
            raise ValueError(f"Sparse dtype: requested = {_dtypes.as_dtype(dtype).name}, "
                             f"actual = {value.dtype.name}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


def convert_to_tensor_or_indexed_slices(value: Any, dtype: Any = None,
                                        name: Optional[str] = None) -> Any:
    """An ``IndexedSlices`` as it is (an ``IndexedSlicesValue`` as constants), anything else
    through ``convert_to_tensor``; ``dtype``, when given, must match."""
    if isinstance(value, IndexedSlicesValue):
        value = IndexedSlices(convert_to_tensor(value.values), convert_to_tensor(value.indices),
                              None if value.dense_shape is None
                              else convert_to_tensor(value.dense_shape))
    if isinstance(value, IndexedSlices):
        if dtype is not None and _dtypes.as_dtype(dtype) is not value.dtype:
            raise ValueError(f"Tensor conversion requested dtype {_dtypes.as_dtype(dtype).name} "
                             f"for IndexedSlices with dtype {value.dtype.name}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)
