"""numpy kernels of the array ops: constants, shapes, reshaping, casting and bitcasting,
joining, splitting.

Kernels return views of their inputs where numpy allows it (reshape, transpose,
split, unstack): kernels never write to their inputs, so sharing is safe and
avoids a copy per op. The slicing/gathering kernels are in ``array_indexing_kernels``.
"""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel


def invalid(ctx: KernelContext, msg: str) -> errors.InvalidArgumentError:
    """An InvalidArgumentError naming the op of ``ctx``."""
    return errors.InvalidArgumentError(ctx.op_name, None, f"{ctx.op_type}: {msg}")


def norm_axis(ctx: KernelContext, axis: Any, rank: int) -> int:
    """``axis`` as a non-negative int; InvalidArgumentError when out of range."""
    a = int(axis)
    if not -rank <= a < max(rank, 1):
        raise invalid(ctx, f"axis {a} is out of range for a tensor of rank {rank} "
                      f"(expected [{-rank}, {rank}))")
    return a % rank if rank else 0


def shape_arg(ctx: KernelContext, s: Any) -> Tuple[int, ...]:
    """A 1-D shape tensor as a tuple of non-negative ints."""
    dims = tuple(int(d) for d in np.reshape(s, [-1]))
    if any(d < 0 for d in dims):
        raise invalid(ctx, f"dimensions must be non-negative, got {list(dims)}")
    return dims


@register_kernel("Const")
def _const(ctx: KernelContext) -> np.ndarray:
    return ctx.attrs["value"]


@register_kernel("Placeholder")
def _placeholder(ctx: KernelContext) -> Any:
    raise errors.InvalidArgumentError(
        ctx.op_name, None, f"You must feed a value for placeholder tensor '{ctx.op_name}' with "
        f"dtype {ctx.attrs['dtype'].name} and shape {ctx.attrs['shape']}")


@register_kernel("PlaceholderWithDefault")
@register_kernel("Identity")
@register_kernel("StopGradient")
def _identity(ctx: KernelContext, x: Any) -> Any:
    return x


@register_kernel("IdentityN")
def _identity_n(ctx: KernelContext, *xs: Any) -> tuple:
    return tuple(xs)


@register_kernel("ZerosLike")
def _zeros_like(ctx: KernelContext, x: Any) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype == object:
        return np.full(x.shape, b"", dtype=object)
    return np.zeros_like(x)


@register_kernel("OnesLike")
def _ones_like(ctx: KernelContext, x: Any) -> np.ndarray:
    return np.ones_like(np.asarray(x))


@register_kernel("Fill")
def _fill(ctx: KernelContext, dims: Any, value: Any) -> np.ndarray:
    v = np.asarray(value)
    if v.ndim != 0:
        raise invalid(ctx, f"value must be a scalar, got shape {list(v.shape)}")
    shp = shape_arg(ctx, dims)
    if v.dtype != object and not v.any():
        return np.zeros(shp, dtype=v.dtype)  # calloc'd: cheaper than writing a fill value
    return np.full(shp, v, dtype=v.dtype)


@register_kernel("Shape")
def _shape(ctx: KernelContext, x: Any) -> np.ndarray:
    shp = np.shape(x)
    cached = ctx.state.get("shape")
    if cached is not None and cached[0] == shp:
        return cached[1]
    out = np.array(shp, dtype=ctx.attrs["out_type"].np)
    out.setflags(write=False)  # shared across runs, so nobody may write it
    ctx.state["shape"] = (shp, out)
    return out


@register_kernel("Size")
def _size(ctx: KernelContext, x: Any) -> np.ndarray:
    return np.array(np.size(x), dtype=ctx.attrs["out_type"].np)


@register_kernel("Rank")
def _rank(ctx: KernelContext, x: Any) -> np.ndarray:
    return np.array(np.ndim(x), dtype=np.int32)


@register_kernel("Reshape")
def _reshape(ctx: KernelContext, x: Any, shape: Any) -> np.ndarray:
    x = np.asarray(x)
    try:
        return x.reshape(shape)
    except (ValueError, TypeError):
        dims = [int(d) for d in np.reshape(shape, [-1])]
        raise invalid(ctx, f"Input to reshape is a tensor with {x.size} values, but the "
                      f"requested shape {dims} does not fit (only one -1 is allowed and "
                      f"other sizes must be >= 0)") from None


@register_kernel("ExpandDims")
def _expand_dims(ctx: KernelContext, x: Any, dim: Any) -> np.ndarray:
    x = np.asarray(x)
    d = int(np.reshape(dim, [-1])[0])
    if not -x.ndim - 1 <= d <= x.ndim:
        raise invalid(ctx, f"dim {d} is out of range for a tensor of rank {x.ndim}")
    return np.expand_dims(x, d)


@register_kernel("Squeeze")
def _squeeze(ctx: KernelContext, x: Any) -> np.ndarray:
    x = np.asarray(x)
    axes = ctx.attrs["squeeze_dims"]
    if not axes:
        return x.squeeze()
    norm = tuple(norm_axis(ctx, a, x.ndim) for a in axes)
    for a in norm:
        if x.shape[a] != 1:
            raise invalid(ctx, f"Can not squeeze dim[{a}], expected a dimension of 1, got "
                          f"{x.shape[a]}")
    return x.squeeze(axis=norm)


@register_kernel("InvertPermutation")
def _invert_permutation(ctx: KernelContext, p: Any) -> np.ndarray:
    p = np.asarray(p)
    n = p.size
    if p.ndim != 1 or (n and (p.min() < 0 or p.max() >= n)) or (
            np.bincount(p, minlength=n) != 1).any():
        raise invalid(ctx, f"{p.tolist()} is not a permutation of 0..{n - 1}")
    out = np.empty_like(p)
    out[p] = np.arange(n, dtype=p.dtype)
    return out


@register_kernel("Transpose")
def _transpose(ctx: KernelContext, x: Any, perm: Any) -> np.ndarray:
    x = np.asarray(x)
    try:
        return x.transpose(perm)
    except (ValueError, TypeError):
        raise invalid(ctx, f"perm {np.asarray(perm).tolist()} is not a permutation of the "
                      f"{x.ndim} dimensions of an input of shape {list(x.shape)}") from None


@register_kernel("Cast")
def _cast(ctx: KernelContext, x: Any) -> np.ndarray:
    x = np.asarray(x)
    dst = ctx.attrs["DstT"].np
    if x.dtype.kind == "c" and dst.kind != "c":
        # TensorFlow keeps the real part, on purpose; numpy would warn.
        x = x.real
    return x.astype(dst, copy=False)


@register_kernel("Bitcast")
def _bitcast(ctx: KernelContext, x: Any) -> np.ndarray:
    x = np.ascontiguousarray(x)
    dst = _dtypes.as_dtype(ctx.attrs["type"]).np
    src_size, dst_size = x.dtype.itemsize, np.dtype(dst).itemsize
    if src_size == dst_size:
        return x.view(dst)
    if src_size > dst_size:
        return x.reshape(x.shape + (1,)).view(dst)
    if x.ndim == 0 or x.shape[-1] != dst_size // src_size:
        raise invalid(ctx, f"Cannot bitcast from {x.dtype} to {np.dtype(dst)}: the last "
                           f"dimension must be {dst_size // src_size}, got shape "
                           f"{list(x.shape)}")
    return x.view(dst).reshape(x.shape[:-1])


@register_kernel("ConcatV2")
def _concat(ctx: KernelContext, *ins: Any) -> np.ndarray:
    xs = [np.asarray(x) for x in ins[:-1]]
    rank = xs[0].ndim
    if rank == 0:
        raise invalid(ctx, "Can't concatenate scalars (use tf.stack instead)")
    axis = norm_axis(ctx, ins[-1], rank)
    try:
        return np.concatenate(xs, axis=axis)
    except ValueError:
        shapes = ", ".join(f"shape[{i}] = {list(x.shape)}" for i, x in enumerate(xs))
        raise invalid(ctx, f"Dimensions of inputs should match along all axes but {axis}: "
                      f"{shapes}") from None


@register_kernel("Pack")
def _pack(ctx: KernelContext, *xs: Any) -> np.ndarray:
    try:
        return np.stack(xs, axis=ctx.attrs["axis"])
    except np.exceptions.AxisError as e:
        raise invalid(ctx, str(e)) from None
    except ValueError:
        shapes = ", ".join(f"values[{i}].shape = {list(np.shape(x))}" for i, x in enumerate(xs))
        raise invalid(ctx, f"Shapes of all inputs must match: {shapes}") from None


@register_kernel("Unpack")
def _unpack(ctx: KernelContext, x: Any) -> Tuple[np.ndarray, ...]:
    x = np.asarray(x)
    axis = norm_axis(ctx, ctx.attrs["axis"], x.ndim)
    if x.shape[axis] != ctx.attrs["num"]:
        raise invalid(ctx, f"Input shape axis {axis} must equal {ctx.attrs['num']}, got shape "
                      f"{list(x.shape)}")
    if axis:
        x = np.moveaxis(x, axis, 0)
    return tuple(x)


@register_kernel("Split")
def _split(ctx: KernelContext, axis: Any, x: Any) -> Tuple[np.ndarray, ...]:
    x = np.asarray(x)
    n = ctx.attrs["num_split"]
    a = norm_axis(ctx, axis, x.ndim)
    if x.shape[a] % n:
        raise invalid(ctx, f"Number of ways to split should evenly divide the split dimension, "
                      f"but got split_dim {a} (size = {x.shape[a]}) and num_split {n}")
    return tuple(np.split(x, n, axis=a))


@register_kernel("SplitV")
def _split_v(ctx: KernelContext, x: Any, sizes: Any, axis: Any) -> Tuple[np.ndarray, ...]:
    x = np.asarray(x)
    a = norm_axis(ctx, axis, x.ndim)
    sz = [int(s) for s in np.reshape(sizes, [-1])]
    dim = x.shape[a]
    if len(sz) != ctx.attrs["num_split"] or sz.count(-1) > 1 or any(s < -1 for s in sz):
        raise invalid(ctx, f"bad size_splits {sz} for num_split {ctx.attrs['num_split']}")
    if -1 in sz:
        rest = dim - sum(s for s in sz if s != -1)
        if rest < 0:
            raise invalid(ctx, f"size_splits {sz} add up to more than dimension {dim}")
        sz[sz.index(-1)] = rest
    if sum(sz) != dim:
        raise invalid(ctx, f"Determined shape must either match input shape along split_dim "
                      f"exactly if fully specified, or be less than the size of the input along "
                      f"split_dim if not fully specified.  Got: {sum(sz)} vs. {dim}")
    return tuple(np.split(x, np.cumsum(sz[:-1]), axis=a))

