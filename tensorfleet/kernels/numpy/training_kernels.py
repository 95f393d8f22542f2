"""numpy kernels of the optimizer update ops (``tensorfleet.training.training_ops``).

The updates run on every training step of every variable, so they work in place:
the variable and its slots are modified through their resource's buffer, and the
one temporary a dense update needs is a scratch array kept per op and reused
across steps (a small free list, so that concurrent steps of one session never
share a scratch buffer). Python floats are used for the hyperparameters so that
numpy keeps the variable's dtype instead of promoting to float64.

Sparse kernels sum the gradient rows of duplicate indices first, then update
each touched row once.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.numpy import blocked_updates
from tensorfleet.kernels.sparse_rows import sum_duplicates
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.kernels.variable_resource import VariableResource


class _NoLock:
    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


_NO_LOCK = _NoLock()


def _lock(ctx: KernelContext, res: VariableResource) -> Any:
    return res.lock if ctx.attrs.get("use_locking") else _NO_LOCK


def _bad(ctx: KernelContext, msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(ctx.op_name, None, msg)


def _scalar(ctx: KernelContext, x: Any, what: str) -> float:
    if type(x) is float:
        return x
    a = np.asarray(x)
    if a.ndim != 0:
        raise _bad(ctx, f"{what} is not a scalar: shape {list(a.shape)}")
    return float(a)


def _scratch(ctx: KernelContext, like: np.ndarray) -> np.ndarray:
    pool = ctx.state.get("scratch")
    if pool is None:
        pool = ctx.state["scratch"] = []
    try:
        buf = pool.pop()
    except IndexError:
        return np.empty_like(like)
    if buf.shape != like.shape or buf.dtype != like.dtype:
        return np.empty_like(like)
    return buf


def _release(ctx: KernelContext, buf: np.ndarray) -> None:
    ctx.state["scratch"].append(buf)


def _dense_grad(ctx: KernelContext, var: np.ndarray, grad: Any) -> np.ndarray:
    g = grad if type(grad) is np.ndarray else np.asarray(grad)
    if g.shape != var.shape:
        raise _bad(ctx, f"var and grad do not have the same shape: {list(var.shape)} vs "
                        f"{list(g.shape)}")
    return g


def _slot(ctx: KernelContext, var: np.ndarray, res: VariableResource) -> np.ndarray:
    s = res.read()
    if s.shape != var.shape:
        raise _bad(ctx, f"slot {res.name} has shape {list(s.shape)}, the variable "
                        f"{list(var.shape)}")
    return s


def _rows(ctx: KernelContext, var: np.ndarray, values: Any,
          indices: Any) -> Tuple[np.ndarray, np.ndarray]:
    """Validated, de-duplicated ``(values, indices)`` of a sparse gradient."""
    vals = np.asarray(values)
    idx = np.asarray(indices)
    if var.ndim < 1:
        raise _bad(ctx, "a sparse update needs a variable of rank >= 1, got a scalar")
    if idx.ndim != 1:
        raise _bad(ctx, f"indices must be a vector, got shape {list(idx.shape)}")
    if idx.dtype.kind not in "iu":
        raise _bad(ctx, f"indices must be integers, got {idx.dtype}")
    if vals.shape[:1] != idx.shape or vals.shape[1:] != var.shape[1:]:
        raise _bad(ctx, f"grad must have shape [{idx.size}] + {list(var.shape[1:])} for "
                        f"{idx.size} indices, got {list(vals.shape)}")
    if idx.size:
        n = var.shape[0]
        if idx.min() < 0 or idx.max() >= n:
            pos = int(np.flatnonzero((idx < 0) | (idx >= n))[0])
            raise _bad(ctx, f"indices[{pos}] = {int(idx[pos])} is not in [0, {n})")
    return sum_duplicates(vals, idx)


# -- dense updates --------------------------------------------------------------------------

def _scaled(g: np.ndarray, scale: Optional[np.ndarray]) -> np.ndarray:
    return g if scale is None else np.multiply(g, scale)


@register_kernel("ApplyGradientDescent")
def _apply_gd(ctx: KernelContext, var_r: VariableResource, alpha: Any,
              delta: Any, grad_scale: Optional[np.ndarray] = None) -> VariableResource:
    var = var_r.read()
    g = _dense_grad(ctx, var, delta)
    lr = _scalar(ctx, alpha, "alpha")
    with _lock(ctx, var_r):
        if blocked_updates.applies(var, g):
            blocked_updates.gradient_descent(var, g, lr, grad_scale)
            return var_r
        g = _scaled(g, grad_scale)
        buf = _scratch(ctx, var)
        np.multiply(g, lr, out=buf)
        np.subtract(var, buf, out=var)
        _release(ctx, buf)
    return var_r


@register_kernel("ApplyMomentum")
def _apply_momentum(ctx: KernelContext, var_r: VariableResource, acc_r: VariableResource,
                    lr: Any, grad: Any, momentum: Any,
                    grad_scale: Optional[np.ndarray] = None) -> VariableResource:
    var = var_r.read()
    acc = _slot(ctx, var, acc_r)
    g = _dense_grad(ctx, var, grad)
    lr = _scalar(ctx, lr, "lr")
    mu = _scalar(ctx, momentum, "momentum")
    with _lock(ctx, var_r):
        if blocked_updates.applies(var, acc, g):
            blocked_updates.momentum(var, acc, g, lr, mu, bool(ctx.attrs.get("use_nesterov")),
                                     grad_scale)
            return var_r
        g = _scaled(g, grad_scale)
        acc *= mu
        acc += g
        buf = _scratch(ctx, var)
        if ctx.attrs.get("use_nesterov"):
            # var -= lr * (grad + momentum * accum), with the updated accum.
            np.multiply(acc, mu, out=buf)
            buf += g
            buf *= lr
        else:
            np.multiply(acc, lr, out=buf)
        np.subtract(var, buf, out=var)
        _release(ctx, buf)
    return var_r


@register_kernel("ApplyAdagrad")
def _apply_adagrad(ctx: KernelContext, var_r: VariableResource, acc_r: VariableResource,
                   lr: Any, grad: Any) -> VariableResource:
    var = var_r.read()
    acc = _slot(ctx, var, acc_r)
    g = _dense_grad(ctx, var, grad)
    lr = _scalar(ctx, lr, "lr")
    with _lock(ctx, var_r):
        buf = _scratch(ctx, var)
        np.square(g, out=buf)
        acc += buf
        np.sqrt(acc, out=buf)
        np.divide(g, buf, out=buf)
        buf *= lr
        np.subtract(var, buf, out=var)
        _release(ctx, buf)
    return var_r


def _adam_lr(ctx: KernelContext, b1p: Any, b2p: Any, lr: Any) -> float:
    b1p = _scalar(ctx, b1p, "beta1_power")
    b2p = _scalar(ctx, b2p, "beta2_power")
    if b1p >= 1.0:
        raise _bad(ctx, f"beta1_power must be below 1, got {b1p}")
    return _scalar(ctx, lr, "lr") * math.sqrt(max(1.0 - b2p, 0.0)) / (1.0 - b1p)


@register_kernel("ApplyAdam")
def _apply_adam(ctx: KernelContext, var_r: VariableResource, m_r: VariableResource,
                v_r: VariableResource, b1p: Any, b2p: Any, lr: Any, beta1: Any, beta2: Any,
                epsilon: Any, grad: Any,
                grad_scale: Optional[np.ndarray] = None) -> VariableResource:
    var = var_r.read()
    m = _slot(ctx, var, m_r)
    v = _slot(ctx, var, v_r)
    g = _dense_grad(ctx, var, grad)
    lr_t = _adam_lr(ctx, b1p, b2p, lr)
    b1 = _scalar(ctx, beta1, "beta1")
    b2 = _scalar(ctx, beta2, "beta2")
    eps = _scalar(ctx, epsilon, "epsilon")
    with _lock(ctx, var_r):
        if blocked_updates.applies(var, m, v, g):
            blocked_updates.adam(var, m, v, g, lr_t, b1, b2, eps,
                                 bool(ctx.attrs.get("use_nesterov")), grad_scale)
            return var_r
        g = _scaled(g, grad_scale)
        buf = _scratch(ctx, var)
        # In-place scalar multiplies are the cheapest passes numpy has, so the
        # moments are decayed in place rather than updated as m += (g - m)*(1 - b1).
        np.multiply(g, 1.0 - b1, out=buf)
        m *= b1
        m += buf
        np.square(g, out=buf)
        buf *= 1.0 - b2
        v *= b2
        v += buf
        np.sqrt(v, out=buf)
        buf += eps
        if ctx.attrs.get("use_nesterov"):
            # Numerator m*beta1 + (1-beta1)*g, computed without a second scratch array.
            np.divide(1.0, buf, out=buf)
            np.multiply(buf, lr_t, out=buf)
            var -= buf * (m * b1 + g * (1.0 - b1))
        else:
            np.divide(m, buf, out=buf)
            buf *= lr_t
            np.subtract(var, buf, out=var)
        _release(ctx, buf)
    return var_r


# The updates that take their gradient times a scalar without a pass to make it (which
# input is the gradient: ``runtime.kernel_fusion.SCALED_UPDATES``).
SCALED_GRADIENT_UPDATES = {"ApplyGradientDescent": _apply_gd,
                           "ApplyMomentum": _apply_momentum,
                           "ApplyAdam": _apply_adam}


@register_kernel("_ApplyScaledGradient")
def _apply_scaled_gradient(ctx: KernelContext, *ins: Any) -> VariableResource:
    """The update named by the ``update`` attribute, with its gradient ``g * scale``:
    its inputs, the gradient ``g`` in place of the product, then the scalar ``scale``
    (``tensorfleet.runtime.kernel_fusion``)."""
    update = SCALED_GRADIENT_UPDATES[ctx.attrs["update"]]
    *args, scale = ins
    scale = np.asarray(scale)
    if scale.ndim != 0:
        raise _bad(ctx, f"the gradient's scale is not a scalar: shape {list(scale.shape)}")
    return update(ctx, *args, grad_scale=scale)


def _rmsprop_dense(ctx: KernelContext, var_r: VariableResource, mg_r: Any,
                   ms_r: VariableResource, mom_r: VariableResource, lr: Any, rho: Any,
                   momentum: Any, epsilon: Any, grad: Any) -> VariableResource:
    var = var_r.read()
    ms = _slot(ctx, var, ms_r)
    mom = _slot(ctx, var, mom_r)
    mg = None if mg_r is None else _slot(ctx, var, mg_r)
    g = _dense_grad(ctx, var, grad)
    lr = _scalar(ctx, lr, "lr")
    rho = _scalar(ctx, rho, "rho")
    mu = _scalar(ctx, momentum, "momentum")
    eps = _scalar(ctx, epsilon, "epsilon")
    with _lock(ctx, var_r):
        buf = _scratch(ctx, var)
        np.square(g, out=buf)
        buf *= 1.0 - rho
        ms *= rho
        ms += buf
        if mg is not None:
            np.multiply(g, 1.0 - rho, out=buf)
            mg *= rho
            mg += buf
            # denominator sqrt(ms - mg**2 + eps): the variance, not the raw second moment.
            np.multiply(mg, mg, out=buf)
            np.subtract(ms, buf, out=buf)
            buf += eps
        else:
            np.add(ms, eps, out=buf)
        np.sqrt(buf, out=buf)
        np.divide(g, buf, out=buf)
        buf *= lr
        mom *= mu
        mom += buf
        np.subtract(var, mom, out=var)
        _release(ctx, buf)
    return var_r


@register_kernel("ApplyRMSProp")
def _apply_rmsprop(ctx: KernelContext, var_r: VariableResource, ms_r: VariableResource,
                   mom_r: VariableResource, lr: Any, rho: Any, momentum: Any, epsilon: Any,
                   grad: Any) -> VariableResource:
    return _rmsprop_dense(ctx, var_r, None, ms_r, mom_r, lr, rho, momentum, epsilon, grad)


@register_kernel("ApplyCenteredRMSProp")
def _apply_centered_rmsprop(ctx: KernelContext, var_r: VariableResource,
                            mg_r: VariableResource, ms_r: VariableResource,
                            mom_r: VariableResource, lr: Any, rho: Any, momentum: Any,
                            epsilon: Any, grad: Any) -> VariableResource:
    return _rmsprop_dense(ctx, var_r, mg_r, ms_r, mom_r, lr, rho, momentum, epsilon, grad)


# -- sparse updates: only the rows named by the indices ------------------------------------

@register_kernel("SparseApplyGradientDescent")
def _sparse_gd(ctx: KernelContext, var_r: VariableResource, alpha: Any, grad: Any,
               indices: Any) -> VariableResource:
    var = var_r.read()
    g, idx = _rows(ctx, var, grad, indices)
    lr = _scalar(ctx, alpha, "alpha")
    with _lock(ctx, var_r):
        var[idx] -= g * lr
    return var_r


@register_kernel("SparseApplyMomentum")
def _sparse_momentum(ctx: KernelContext, var_r: VariableResource, acc_r: VariableResource,
                     lr: Any, grad: Any, indices: Any, momentum: Any) -> VariableResource:
    var = var_r.read()
    acc = _slot(ctx, var, acc_r)
    g, idx = _rows(ctx, var, grad, indices)
    lr = _scalar(ctx, lr, "lr")
    mu = _scalar(ctx, momentum, "momentum")
    with _lock(ctx, var_r):
        a = acc[idx]
        a *= mu
        a += g
        acc[idx] = a
        if ctx.attrs.get("use_nesterov"):
            a *= mu
            a += g
        a *= lr
        var[idx] -= a
    return var_r


@register_kernel("SparseApplyAdagrad")
def _sparse_adagrad(ctx: KernelContext, var_r: VariableResource, acc_r: VariableResource,
                    lr: Any, grad: Any, indices: Any) -> VariableResource:
    var = var_r.read()
    acc = _slot(ctx, var, acc_r)
    g, idx = _rows(ctx, var, grad, indices)
    lr = _scalar(ctx, lr, "lr")
    with _lock(ctx, var_r):
        a = acc[idx]
        a += g * g
        acc[idx] = a
        np.sqrt(a, out=a)
        np.divide(g, a, out=a)
        a *= lr
        var[idx] -= a
    return var_r


@register_kernel("SparseApplyAdam")
def _sparse_adam(ctx: KernelContext, var_r: VariableResource, m_r: VariableResource,
                 v_r: VariableResource, b1p: Any, b2p: Any, lr: Any, beta1: Any, beta2: Any,
                 epsilon: Any, grad: Any, indices: Any) -> VariableResource:
    # TensorFlow 1.x semantics (not "lazy" Adam): both moments decay on every row and
    # every row moves by its first moment, so this costs as much as a dense update;
    # rows that never received a gradient keep m == 0 and therefore do not move.
    var = var_r.read()
    m = _slot(ctx, var, m_r)
    v = _slot(ctx, var, v_r)
    g, idx = _rows(ctx, var, grad, indices)
    lr_t = _adam_lr(ctx, b1p, b2p, lr)
    b1 = _scalar(ctx, beta1, "beta1")
    b2 = _scalar(ctx, beta2, "beta2")
    eps = _scalar(ctx, epsilon, "epsilon")
    with _lock(ctx, var_r):
        m *= b1
        m[idx] += g * (1.0 - b1)
        v *= b2
        v[idx] += (g * g) * (1.0 - b2)
        buf = _scratch(ctx, var)
        np.sqrt(v, out=buf)
        buf += eps
        np.divide(m, buf, out=buf)
        buf *= lr_t
        np.subtract(var, buf, out=var)
        _release(ctx, buf)
    return var_r


def _rmsprop_sparse(ctx: KernelContext, var_r: VariableResource, mg_r: Any,
                    ms_r: VariableResource, mom_r: VariableResource, lr: Any, rho: Any,
                    momentum: Any, epsilon: Any, grad: Any, indices: Any) -> VariableResource:
    var = var_r.read()
    ms = _slot(ctx, var, ms_r)
    mom = _slot(ctx, var, mom_r)
    mg = None if mg_r is None else _slot(ctx, var, mg_r)
    g, idx = _rows(ctx, var, grad, indices)
    lr = _scalar(ctx, lr, "lr")
    rho = _scalar(ctx, rho, "rho")
    mu = _scalar(ctx, momentum, "momentum")
    eps = _scalar(ctx, epsilon, "epsilon")
    with _lock(ctx, var_r):
        ms_rows = ms[idx]
        ms_rows += (g * g - ms_rows) * (1.0 - rho)
        ms[idx] = ms_rows
        if mg is not None:
            mg_rows = mg[idx]
            mg_rows += (g - mg_rows) * (1.0 - rho)
            mg[idx] = mg_rows
            ms_rows -= mg_rows * mg_rows
        ms_rows += eps
        np.sqrt(ms_rows, out=ms_rows)
        step = g * lr
        step /= ms_rows
        mom_rows = mom[idx]
        mom_rows *= mu
        mom_rows += step
        mom[idx] = mom_rows
        var[idx] -= mom_rows
    return var_r


@register_kernel("SparseApplyRMSProp")
def _sparse_rmsprop(ctx: KernelContext, var_r: VariableResource, ms_r: VariableResource,
                    mom_r: VariableResource, lr: Any, rho: Any, momentum: Any, epsilon: Any,
                    grad: Any, indices: Any) -> VariableResource:
    return _rmsprop_sparse(ctx, var_r, None, ms_r, mom_r, lr, rho, momentum, epsilon, grad,
                           indices)


@register_kernel("SparseApplyCenteredRMSProp")
def _sparse_centered_rmsprop(ctx: KernelContext, var_r: VariableResource,
                             mg_r: VariableResource, ms_r: VariableResource,
                             mom_r: VariableResource, lr: Any, rho: Any, momentum: Any,
                             epsilon: Any, grad: Any, indices: Any) -> VariableResource:
    return _rmsprop_sparse(ctx, var_r, mg_r, ms_r, mom_r, lr, rho, momentum, epsilon, grad,
                           indices)


