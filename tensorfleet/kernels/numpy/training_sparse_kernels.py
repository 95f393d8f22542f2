"""numpy kernels of the FTRL, Adadelta, proximal, Adagrad-DA and lazy Adam updates.

These are the optimizers of large sparse models (click-through rates, wide
embeddings), so each rule is written once, as a function that updates a block of
rows in place, and used twice:

* the dense kernel (``ApplyFtrl`` ...) runs it on the whole variable and slots;
* the sparse kernel (``SparseApplyFtrl`` ...) sums the gradient rows of repeated
  indices, gathers the touched rows of the variable and of every slot, runs the
  rule on those copies and scatters them back. Rows that are not named are never
  read or written, so a parameter server's work and memory traffic follow the
  number of ids looked up, not the size of the table.

Hyperparameters arrive as scalar tensors and are used as Python floats so that
numpy keeps the variable's dtype.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.kernels.numpy.training_kernels import (_adam_lr, _bad, _dense_grad, _lock, _rows,
                                                  _scalar, _slot)
from tensorfleet.kernels.variable_resource import VariableResource

# A rule updates (var, *slots) in place from the gradient rows ``g``.
Rule = Callable[..., None]


def _run_dense(ctx: KernelContext, refs: Sequence[VariableResource], grad: Any, rule: Rule,
               *hyper: Any) -> VariableResource:
    var = refs[0].read()
    slots = [_slot(ctx, var, r) for r in refs[1:]]
    g = _dense_grad(ctx, var, grad)
    with _lock(ctx, refs[0]):
        rule(var, *slots, g, *hyper)
    return refs[0]


def _run_sparse(ctx: KernelContext, refs: Sequence[VariableResource], grad: Any,
                indices: Any, rule: Rule, *hyper: Any) -> VariableResource:
    var = refs[0].read()
    slots = [_slot(ctx, var, r) for r in refs[1:]]
    g, idx = _rows(ctx, var, grad, indices)
    if idx.size == 0:
        return refs[0]
    with _lock(ctx, refs[0]):
        # Fancy indexing copies the rows; the rule works on the copies, which are
        # written back in one scatter each.
        blocks = [a[idx] for a in [var] + slots]
        rule(*blocks, g, *hyper)
        for a, b in zip([var] + slots, blocks):
            a[idx] = b
    return refs[0]


def _nonneg(ctx: KernelContext, x: Any, what: str) -> float:
    v = _scalar(ctx, x, what)
    if not v >= 0.0:
        raise _bad(ctx, f"{what} is not a non-negative scalar: {v}")
    return v


def _positive(ctx: KernelContext, x: Any, what: str) -> float:
    v = _scalar(ctx, x, what)
    if not v > 0.0:
        raise _bad(ctx, f"{what} is not a positive scalar: {v}")
    return v


def _shrink(prox: np.ndarray, threshold: Any, scale: Any, out: np.ndarray) -> None:
    """``out = sign(prox) * max(|prox| - threshold, 0) / scale`` (soft thresholding)."""
    mag = np.abs(prox)
    mag -= threshold
    np.maximum(mag, 0.0, out=mag)
    np.copysign(mag, prox, out=mag)
    np.divide(mag, scale, out=out)


# -- the rules --------------------------------------------------------------------------------

def _ftrl_rule(var: np.ndarray, accum: np.ndarray, linear: np.ndarray, g: np.ndarray,
               lr: float, l1: float, l2: float, shrinkage: float, lr_power: float) -> None:
    # The shrinkage term enters the linear term only; accum sums the raw gradient.
    g_lin = g + (2.0 * shrinkage) * var if shrinkage > 0.0 else g
    new_accum = accum + g * g
    if lr_power == -0.5:
        new_pow = np.sqrt(new_accum)
        old_pow = np.sqrt(accum)
    else:
        new_pow = np.power(new_accum, -lr_power)
        old_pow = np.power(accum, -lr_power)
    old_pow -= new_pow
    old_pow /= lr                      # -(sigma): (old^-p - new^-p) / lr
    old_pow *= var
    linear += g_lin
    linear += old_pow
    new_pow /= lr
    new_pow += 2.0 * l2                # the quadratic coefficient
    num = np.copysign(np.full_like(linear, l1), linear) if l1 > 0.0 else np.zeros_like(linear)
    num -= linear
    num /= new_pow
    num[np.abs(linear) <= l1] = 0.0
    var[...] = num
    accum[...] = new_accum


def _adadelta_rule(var: np.ndarray, accum: np.ndarray, accum_update: np.ndarray,
                   g: np.ndarray, lr: float, rho: float, eps: float) -> None:
    accum *= rho
    accum += (g * g) * (1.0 - rho)
    update = np.sqrt(accum_update + eps)
    update /= np.sqrt(accum + eps)
    update *= g
    var -= update * lr
    accum_update *= rho
    update *= update
    update *= 1.0 - rho
    accum_update += update


def _proximal_gd_rule(var: np.ndarray, g: np.ndarray, alpha: float, l1: float,
                      l2: float) -> None:
    prox = var - g * alpha
    if l1 > 0.0:
        _shrink(prox, alpha * l1, 1.0 + alpha * l2, var)
    else:
        np.divide(prox, 1.0 + alpha * l2, out=var)


def _proximal_adagrad_rule(var: np.ndarray, accum: np.ndarray, g: np.ndarray, lr: float,
                           l1: float, l2: float) -> None:
    accum += g * g
    step = np.sqrt(accum)
    np.divide(lr, step, out=step)      # the per-coordinate learning rate
    prox = var - g * step
    scale = step * l2
    scale += 1.0
    if l1 > 0.0:
        _shrink(prox, step * l1, scale, var)
    else:
        np.divide(prox, scale, out=var)


def _adagrad_da_rule(var: np.ndarray, g_acc: np.ndarray, gg_acc: np.ndarray, g: np.ndarray,
                     lr: float, l1: float, l2: float, step: float) -> None:
    g_acc += g
    gg_acc += g * g
    denom = np.sqrt(gg_acc)
    denom += l2 * step * lr
    if l1 > 0.0:
        _shrink(g_acc, step * l1, denom, var)
    else:
        np.divide(g_acc, denom, out=var)
    var *= -lr


def _lazy_adam_rule(var: np.ndarray, m: np.ndarray, v: np.ndarray, g: np.ndarray,
                    lr_t: float, b1: float, b2: float, eps: float) -> None:
    m *= b1
    m += g * (1.0 - b1)
    v *= b2
    v += (g * g) * (1.0 - b2)
    denom = np.sqrt(v)
    denom += eps
    var -= (m / denom) * lr_t


# -- hyperparameters, checked as TensorFlow's kernels check them --------------------------------

def _ftrl_hypers(ctx: KernelContext, lr: Any, l1: Any, l2: Any, shrinkage: Any,
                 lr_power: Any) -> tuple:
    power = _scalar(ctx, lr_power, "lr_power")
    if not power <= 0.0:
        raise _bad(ctx, f"lr_power is not a non-positive scalar: {power}")
    return (_positive(ctx, lr, "lr"), _nonneg(ctx, l1, "l1 regularization strength"),
            _nonneg(ctx, l2, "l2 regularization strength"),
            0.0 if shrinkage is None else _nonneg(ctx, shrinkage,
                                                  "l2 shrinkage regularization strength"),
            power)


def _prox_hypers(ctx: KernelContext, lr: Any, l1: Any, l2: Any) -> tuple:
    return (_scalar(ctx, lr, "lr"), _nonneg(ctx, l1, "l1 regularization strength"),
            _nonneg(ctx, l2, "l2 regularization strength"))


def _da_hypers(ctx: KernelContext, lr: Any, l1: Any, l2: Any, global_step: Any) -> tuple:
    step = np.asarray(global_step)
    if step.ndim != 0 or step.dtype.kind not in "iu":
        raise _bad(ctx, f"global_step must be an integer scalar, got {step.dtype} of shape "
                        f"{list(step.shape)}")
    return _prox_hypers(ctx, lr, l1, l2) + (float(step),)


def _adam_hypers(ctx: KernelContext, b1p: Any, b2p: Any, lr: Any, beta1: Any, beta2: Any,
                 epsilon: Any) -> tuple:
    return (_adam_lr(ctx, b1p, b2p, lr), _scalar(ctx, beta1, "beta1"),
            _scalar(ctx, beta2, "beta2"), _scalar(ctx, epsilon, "epsilon"))


# -- dense kernels ------------------------------------------------------------------------------

@register_kernel("ApplyFtrl")
def _apply_ftrl(ctx: KernelContext, var: Any, accum: Any, linear: Any, grad: Any, lr: Any,
                l1: Any, l2: Any, lr_power: Any) -> VariableResource:
    return _run_dense(ctx, (var, accum, linear), grad, _ftrl_rule,
                      *_ftrl_hypers(ctx, lr, l1, l2, None, lr_power))


@register_kernel("ApplyFtrlV2")
def _apply_ftrl_v2(ctx: KernelContext, var: Any, accum: Any, linear: Any, grad: Any, lr: Any,
                   l1: Any, l2: Any, shrinkage: Any, lr_power: Any) -> VariableResource:
    return _run_dense(ctx, (var, accum, linear), grad, _ftrl_rule,
                      *_ftrl_hypers(ctx, lr, l1, l2, shrinkage, lr_power))


@register_kernel("ApplyAdadelta")
def _apply_adadelta(ctx: KernelContext, var: Any, accum: Any, accum_update: Any, lr: Any,
                    rho: Any, epsilon: Any, grad: Any) -> VariableResource:
    return _run_dense(ctx, (var, accum, accum_update), grad, _adadelta_rule,
                      _scalar(ctx, lr, "lr"), _scalar(ctx, rho, "rho"),
                      _scalar(ctx, epsilon, "epsilon"))


@register_kernel("ApplyProximalGradientDescent")
def _apply_proximal_gd(ctx: KernelContext, var: Any, alpha: Any, l1: Any, l2: Any,
                       delta: Any) -> VariableResource:
    return _run_dense(ctx, (var,), delta, _proximal_gd_rule, *_prox_hypers(ctx, alpha, l1, l2))


@register_kernel("ApplyProximalAdagrad")
def _apply_proximal_adagrad(ctx: KernelContext, var: Any, accum: Any, lr: Any, l1: Any,
                            l2: Any, grad: Any) -> VariableResource:
    return _run_dense(ctx, (var, accum), grad, _proximal_adagrad_rule,
                      *_prox_hypers(ctx, lr, l1, l2))


@register_kernel("ApplyAdagradDA")
def _apply_adagrad_da(ctx: KernelContext, var: Any, g_acc: Any, gg_acc: Any, grad: Any,
                      lr: Any, l1: Any, l2: Any, global_step: Any) -> VariableResource:
    return _run_dense(ctx, (var, g_acc, gg_acc), grad, _adagrad_da_rule,
                      *_da_hypers(ctx, lr, l1, l2, global_step))


# -- sparse kernels: only the rows named by the indices -------------------------------------------

@register_kernel("SparseApplyFtrl")
def _sparse_ftrl(ctx: KernelContext, var: Any, accum: Any, linear: Any, grad: Any,
                 indices: Any, lr: Any, l1: Any, l2: Any, lr_power: Any) -> VariableResource:
    return _run_sparse(ctx, (var, accum, linear), grad, indices, _ftrl_rule,
                       *_ftrl_hypers(ctx, lr, l1, l2, None, lr_power))


@register_kernel("SparseApplyFtrlV2")
def _sparse_ftrl_v2(ctx: KernelContext, var: Any, accum: Any, linear: Any, grad: Any,
                    indices: Any, lr: Any, l1: Any, l2: Any, shrinkage: Any,
                    lr_power: Any) -> VariableResource:
    return _run_sparse(ctx, (var, accum, linear), grad, indices, _ftrl_rule,
                       *_ftrl_hypers(ctx, lr, l1, l2, shrinkage, lr_power))


@register_kernel("SparseApplyAdadelta")
def _sparse_adadelta(ctx: KernelContext, var: Any, accum: Any, accum_update: Any, lr: Any,
                     rho: Any, epsilon: Any, grad: Any, indices: Any) -> VariableResource:
    return _run_sparse(ctx, (var, accum, accum_update), grad, indices, _adadelta_rule,
                       _scalar(ctx, lr, "lr"), _scalar(ctx, rho, "rho"),
                       _scalar(ctx, epsilon, "epsilon"))


@register_kernel("SparseApplyProximalGradientDescent")
def _sparse_proximal_gd(ctx: KernelContext, var: Any, alpha: Any, l1: Any, l2: Any,
                        grad: Any, indices: Any) -> VariableResource:
    return _run_sparse(ctx, (var,), grad, indices, _proximal_gd_rule,
                       *_prox_hypers(ctx, alpha, l1, l2))


@register_kernel("SparseApplyProximalAdagrad")
def _sparse_proximal_adagrad(ctx: KernelContext, var: Any, accum: Any, lr: Any, l1: Any,
                             l2: Any, grad: Any, indices: Any) -> VariableResource:
    return _run_sparse(ctx, (var, accum), grad, indices, _proximal_adagrad_rule,
                       *_prox_hypers(ctx, lr, l1, l2))


@register_kernel("SparseApplyAdagradDA")
def _sparse_adagrad_da(ctx: KernelContext, var: Any, g_acc: Any, gg_acc: Any, grad: Any,
                       indices: Any, lr: Any, l1: Any, l2: Any,
                       global_step: Any) -> VariableResource:
    return _run_sparse(ctx, (var, g_acc, gg_acc), grad, indices, _adagrad_da_rule,
                       *_da_hypers(ctx, lr, l1, l2, global_step))


@register_kernel("SparseApplyLazyAdam")
def _sparse_lazy_adam(ctx: KernelContext, var: Any, m: Any, v: Any, b1p: Any, b2p: Any,
                      lr: Any, beta1: Any, beta2: Any, epsilon: Any, grad: Any,
                      indices: Any) -> VariableResource:
    return _run_sparse(ctx, (var, m, v), grad, indices, _lazy_adam_rule,
                       *_adam_hypers(ctx, b1p, b2p, lr, beta1, beta2, epsilon))


__all__: list = []
