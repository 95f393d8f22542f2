"""numpy kernels of the math ops.

Each kernel allocates its result once and works in place on that fresh array
where it needs several steps; inputs are never written to. Python scalars in
numpy 2 expressions are "weak", so float32 inputs give float32 results.
"""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel



def _quiet_fp() -> Any:
    """Division and logarithms of zero give inf/nan as in TensorFlow, without warnings.

    A fresh ``errstate`` each time: one instance cannot be entered twice, and
    kernels run on several threads at once.
    """
    return np.errstate(divide="ignore", invalid="ignore", over="ignore")


def _simple(op_type: str, fn: Any) -> None:
    register_kernel(op_type)(lambda ctx, *xs: fn(*xs))


for _op, _fn in {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Maximum": np.maximum,
    "Minimum": np.minimum, "Less": np.less, "LessEqual": np.less_equal, "Greater": np.greater,
    "GreaterEqual": np.greater_equal, "LogicalAnd": np.logical_and,
    "LogicalOr": np.logical_or, "LogicalNot": np.logical_not, "Neg": np.negative,
    "Square": np.square, "Abs": np.abs, "Sign": np.sign, "Tanh": np.tanh, "Floor": np.floor,
    "Ceil": np.ceil, "Round": np.round, "Sin": np.sin, "Cos": np.cos, "IsFinite": np.isfinite,
    "IsNan": np.isnan, "IsInf": np.isinf,
}.items():
    _simple(_op, _fn)


def _quiet(op_type: str, fn: Any) -> None:
    def kern(ctx: KernelContext, *xs: Any) -> np.ndarray:
        with _quiet_fp():
            return fn(*xs)
    register_kernel(op_type)(kern)


for _op, _fn in {"Exp": np.exp, "Expm1": np.expm1, "Log": np.log, "Log1p": np.log1p,
                 "Sqrt": np.sqrt}.items():
    _quiet(_op, _fn)


@register_kernel("AddN")
def _add_n(ctx: KernelContext, *xs: Any) -> np.ndarray:
    out = np.add(xs[0], xs[1])
    for x in xs[2:]:
        out += x
    return out


def _compare_eq(fn: Any) -> Any:
    def kern(ctx: KernelContext, x: Any, y: Any) -> np.ndarray:
        r = fn(x, y)
        return r if getattr(r, "dtype", None) == np.bool_ else np.asarray(r, dtype=np.bool_)
    return kern


register_kernel("Equal")(_compare_eq(np.equal))
register_kernel("NotEqual")(_compare_eq(np.not_equal))


def _int_zero_check(ctx: KernelContext, y: np.ndarray) -> None:
    if y.dtype.kind in "iu" and not np.all(y):
        raise errors.InvalidArgumentError(ctx.op_name, None,
                                          f"Integer division by zero in {ctx.op_type}")


@register_kernel("RealDiv")
def _realdiv(ctx: KernelContext, x: Any, y: Any) -> np.ndarray:
    with _quiet_fp():
        return np.true_divide(x, y)


@register_kernel("FloorDiv")
def _floordiv(ctx: KernelContext, x: Any, y: Any) -> np.ndarray:
    _int_zero_check(ctx, y)
    with _quiet_fp():
        return np.floor_divide(x, y)


@register_kernel("FloorMod")
def _floormod(ctx: KernelContext, x: Any, y: Any) -> np.ndarray:
    _int_zero_check(ctx, y)
    with _quiet_fp():
        return np.mod(x, y)


@register_kernel("Pow")
def _pow(ctx: KernelContext, x: Any, y: Any) -> np.ndarray:
    if y.dtype.kind in "iu" and np.any(y < 0):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, "Integers to negative integer powers are not allowed")
    with _quiet_fp():
        return np.power(x, y)


@register_kernel("SquaredDifference")
def _squared_difference(ctx: KernelContext, x: Any, y: Any) -> np.ndarray:
    d = np.subtract(x, y)
    return np.multiply(d, d, out=d)


@register_kernel("Rsqrt")
def _rsqrt(ctx: KernelContext, x: Any) -> np.ndarray:
    with _quiet_fp():
        # asarray: a 0-d input gives a numpy scalar, which cannot be an ``out``.
        r = np.asarray(np.sqrt(x))
        return np.divide(1, r, out=r)


@register_kernel("Reciprocal")
def _reciprocal(ctx: KernelContext, x: Any) -> np.ndarray:
    with _quiet_fp():
        return np.divide(1, x)


@register_kernel("Sigmoid")
def _sigmoid(ctx: KernelContext, x: Any) -> np.ndarray:
    # 0.5 * (1 + tanh(x / 2)) never overflows, unlike 1 / (1 + exp(-x)).
    r = np.multiply(x, 0.5)
    np.tanh(r, out=r)
    r += 1
    r *= 0.5
    return r


@register_kernel("SigmoidGrad")
def _sigmoid_grad(ctx: KernelContext, y: Any, dy: Any) -> np.ndarray:
    r = np.subtract(1, y)
    r *= y
    r *= dy
    return r


@register_kernel("TanhGrad")
def _tanh_grad(ctx: KernelContext, y: Any, dy: Any) -> np.ndarray:
    r = np.multiply(y, y)
    np.subtract(1, r, out=r)
    r *= dy
    return r


@register_kernel("SqrtGrad")
def _sqrt_grad(ctx: KernelContext, y: Any, dy: Any) -> np.ndarray:
    with _quiet_fp():
        r = np.divide(dy, y)
    r *= 0.5
    return r


@register_kernel("RsqrtGrad")
def _rsqrt_grad(ctx: KernelContext, y: Any, dy: Any) -> np.ndarray:
    r = np.multiply(y, y)
    r *= y
    r *= dy
    r *= -0.5
    return r


@register_kernel("ReciprocalGrad")
def _reciprocal_grad(ctx: KernelContext, y: Any, dy: Any) -> np.ndarray:
    r = np.multiply(y, y)
    r *= dy
    np.negative(r, out=r)
    return r


# -- matrix products ------------------------------------------------------------------------

@register_kernel("MatMul")
def _matmul(ctx: KernelContext, a: Any, b: Any) -> np.ndarray:
    attrs = ctx.attrs
    # Transposed views cost nothing: BLAS reads them with its own transpose flag.
    if attrs["transpose_a"]:
        a = a.T
    if attrs["transpose_b"]:
        b = b.T
    if a.shape[1] != b.shape[0]:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Matrix size-incompatible: In[0]: {list(a.shape)}, "
            f"In[1]: {list(b.shape)}")
    return np.dot(a, b)


@register_kernel("BatchMatMulV2")
def _batch_matmul(ctx: KernelContext, a: Any, b: Any) -> np.ndarray:
    if ctx.attrs["adj_x"]:
        a = np.swapaxes(a, -1, -2)
    if ctx.attrs["adj_y"]:
        b = np.swapaxes(b, -1, -2)
    try:
        return np.matmul(a, b)
    except ValueError as e:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Incompatible shapes for batched matmul: {list(a.shape)} and "
            f"{list(b.shape)} ({e})") from None


# -- reductions -----------------------------------------------------------------------------

def _axes(axis: Any) -> Any:
    """The reduction axes as numpy wants them; numpy itself rejects out-of-range axes."""
    if axis is None:
        return None
    ax = axis.tolist() if isinstance(axis, np.ndarray) else axis
    return (ax,) if isinstance(ax, int) else tuple(ax)


def _reduction(op_type: str, fn: Any, pass_dtype: bool) -> None:
    def kern(ctx: KernelContext, x: Any, axis: Any = None) -> np.ndarray:
        ax = _axes(axis)
        if pass_dtype:
            r = fn(x, axis=ax, keepdims=ctx.attrs["keep_dims"], dtype=x.dtype)
        else:
            r = fn(x, axis=ax, keepdims=ctx.attrs["keep_dims"])
        return r if isinstance(r, np.ndarray) else np.asarray(r)
    register_kernel(op_type)(kern)


def _ones(ctx: KernelContext, n: int, dtype: Any) -> np.ndarray:
    ones = ctx.state.get("ones")
    if ones is None or ones.shape[0] != n or ones.dtype != dtype:
        ones = ctx.state["ones"] = np.ones(n, dtype)
    return ones


@register_kernel("Sum")
def _sum(ctx: KernelContext, x: Any, axis: Any = None) -> np.ndarray:
    ax = _axes(axis)
    keep = ctx.attrs["keep_dims"]
    if ax and x.size >= _BLAS_MIN_SIZE and x.ndim >= 2 and x.dtype in _BLAS_DTYPES and \
            x.flags.c_contiguous:
        # Summing away leading (or trailing) axes is a matrix-vector product with
        # ones: BLAS does it several times faster than a numpy reduction. This is
        # the gradient of every bias add, so it runs in each training step.
        nd = x.ndim
        norm = sorted({a % nd for a in ax})
        k = len(norm)
        if k < nd and (norm == list(range(k)) or norm == list(range(nd - k, nd))):
            lead = norm[0] == 0
            split = k if lead else nd - k
            rows = int(np.prod(x.shape[:split], dtype=np.int64))
            m = x.reshape(rows, -1)
            r = (_ones(ctx, rows, x.dtype) @ m) if lead else (m @ _ones(ctx, m.shape[1], x.dtype))
            if keep:
                return r.reshape(tuple(1 if i in norm else d for i, d in enumerate(x.shape)))
            return r.reshape(x.shape[split:] if lead else x.shape[:split])
    r = np.sum(x, axis=ax, keepdims=keep, dtype=x.dtype)
    return r if isinstance(r, np.ndarray) else np.asarray(r)


_BLAS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
# Below this many elements numpy's own reduction is cheaper than setting up BLAS.
_BLAS_MIN_SIZE = 4096
_reduction("Prod", np.prod, True)
_reduction("All", np.all, False)
_reduction("Any", np.any, False)


def _extremum(op_type: str, ufunc: Any, lowest: bool) -> None:
    def kern(ctx: KernelContext, x: Any, axis: Any = None) -> np.ndarray:
        ax = _axes(axis)
        keep = ctx.attrs["keep_dims"]
        if x.size == 0:
            # Empty reductions give the identity (lowest/highest value) as in TF.
            info = np.finfo(x.dtype) if x.dtype.kind == "f" else np.iinfo(x.dtype)
            init = -np.inf if lowest and x.dtype.kind == "f" else (
                np.inf if x.dtype.kind == "f" else (info.min if lowest else info.max))
            return np.asarray(ufunc.reduce(x, axis=ax, keepdims=keep, initial=init))
        return np.asarray(ufunc.reduce(x, axis=ax, keepdims=keep))
    register_kernel(op_type)(kern)


_extremum("Max", np.maximum, True)
_extremum("Min", np.minimum, False)


@register_kernel("Mean")
def _mean(ctx: KernelContext, x: Any, axis: Any = None) -> np.ndarray:
    ax = _axes(axis)
    keep = ctx.attrs["keep_dims"]
    if x.dtype.kind in "fc":
        if x.size:
            # add.reduce then one division: np.mean does the same with more overhead.
            total = np.add.reduce(x, axis=ax, keepdims=keep)
            return np.asarray(total / (x.size // total.size))
        with _quiet_fp():
            return np.asarray(np.mean(x, axis=ax, keepdims=keep))
    total = np.sum(x, axis=ax, keepdims=keep, dtype=np.int64)
    count = x.size // max(np.asarray(total).size, 1)
    if count == 0:
        return np.zeros(np.shape(total), dtype=x.dtype)
    # Integer means truncate toward zero, like C division.
    return np.asarray(np.trunc(total / count)).astype(x.dtype)


def _arg_kernel(fn: Any) -> Any:
    def kern(ctx: KernelContext, x: Any) -> np.ndarray:
        ax = ctx.attrs["axis"]
        if x.shape[ax] == 0:
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"Reduction axis {ax} is empty in shape {list(x.shape)}")
        return np.asarray(fn(x, axis=ax)).astype(ctx.attrs["output_type"].np, copy=False)
    return kern


register_kernel("ArgMax")(_arg_kernel(np.argmax))
register_kernel("ArgMin")(_arg_kernel(np.argmin))


def _cumulative(fn: Any, identity: int) -> Any:
    def kern(ctx: KernelContext, x: Any) -> np.ndarray:
        ax, exclusive, reverse = ctx.attrs["axis"], ctx.attrs["exclusive"], ctx.attrs["reverse"]
        src = np.flip(x, ax) if reverse else x
        out = fn(src, axis=ax, dtype=x.dtype)
        if exclusive:
            # Shift by one along the axis, the identity entering at the front.
            shifted = np.empty_like(out)
            lead = [slice(None)] * x.ndim
            rest = [slice(None)] * x.ndim
            lead[ax] = slice(0, 1)
            rest[ax] = slice(1, None)
            shifted[tuple(lead)] = identity
            tail = [slice(None)] * x.ndim
            tail[ax] = slice(0, -1)
            shifted[tuple(rest)] = out[tuple(tail)]
            out = shifted
        return np.ascontiguousarray(np.flip(out, ax)) if reverse else out
    return kern


register_kernel("Cumsum")(_cumulative(np.cumsum, 0))
register_kernel("Cumprod")(_cumulative(np.cumprod, 1))


# -- shape helpers for gradients -------------------------------------------------------------

@register_kernel("BroadcastGradientArgs")
def _broadcast_gradient_args(ctx: KernelContext, s0: Any, s1: Any) -> Tuple[np.ndarray, ...]:
    a, b = [int(d) for d in np.asarray(s0).reshape(-1)], [int(d) for d in
                                                           np.asarray(s1).reshape(-1)]
    n = max(len(a), len(b))
    pa, pb = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    ra, rb = [], []
    for i, (p, q) in enumerate(zip(pa, pb)):
        if p != q and p != 1 and q != 1:
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"Incompatible shapes: {a} vs. {b}")
        if i < n - len(a) or (p == 1 and q != 1):
            ra.append(i)
        if i < n - len(b) or (q == 1 and p != 1):
            rb.append(i)
    return np.asarray(ra, dtype=np.int32), np.asarray(rb, dtype=np.int32)


@register_kernel("ReducedShape")
def _reduced_shape(ctx: KernelContext, shape: Any, axes: Any = None) -> np.ndarray:
    out = np.array(shape, dtype=np.int32).reshape(-1)
    if axes is None:
        out[:] = 1
    else:
        out[np.asarray(axes, dtype=np.int64).reshape(-1) % max(out.size, 1)] = 1
    return out
