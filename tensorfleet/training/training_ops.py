"""The fused optimizer update ops (``ApplyAdam``, ``SparseApplyMomentum`` ...).

Each op takes the variable and its slots as references (``ref_inputs``), updates
them in place on the task that owns the variable and returns the variable's
reference, so that a worker only ships the gradient to the parameter server.
Hyperparameters are scalar tensor inputs, which lets learning rates come from
decay schedules computed in the graph.

Sparse variants take an ``IndexedSlices`` gradient as ``(values, indices)``; their
kernels sum duplicate indices before touching the rows.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops.op_util import make_op

# Op type -> (number of leading ref inputs, index of the gradient, sparse?)
_LAYOUTS = {
    "ApplyGradientDescent": (1, 2, False),
    "ApplyMomentum": (2, 3, False),
    "ApplyAdagrad": (2, 3, False),
    "ApplyAdam": (3, 9, False),
    "ApplyRMSProp": (3, 7, False),
    "ApplyCenteredRMSProp": (4, 8, False),
    "SparseApplyGradientDescent": (1, 2, True),
    "SparseApplyMomentum": (2, 3, True),
    "SparseApplyAdagrad": (2, 3, True),
    "SparseApplyAdam": (3, 9, True),
    "SparseApplyRMSProp": (3, 7, True),
    "SparseApplyCenteredRMSProp": (4, 8, True),
    "ApplyFtrl": (3, 3, False),
    "ApplyFtrlV2": (3, 3, False),
    "ApplyAdadelta": (3, 6, False),
    "ApplyProximalGradientDescent": (1, 4, False),
    "ApplyProximalAdagrad": (2, 5, False),
    "ApplyAdagradDA": (3, 3, False),
    "SparseApplyFtrl": (3, 3, True),
    "SparseApplyFtrlV2": (3, 3, True),
    "SparseApplyAdadelta": (3, 6, True),
    "SparseApplyProximalGradientDescent": (1, 4, True),
    "SparseApplyProximalAdagrad": (2, 5, True),
    "SparseApplyAdagradDA": (3, 3, True),
    # tensorfleet's own: Adam that reads and writes only the rows of the gradient.
    "SparseApplyLazyAdam": (3, 9, True),
}


# The sparse updates of which several, on one device and with the same
# hyperparameters, may run as one ``SparseApplyMany`` op: op type -> number of
# scalar inputs. Their kernels are a row rule each (kernels/numpy/training_group_kernels.py).
GROUPABLE_SPARSE_UPDATES = {"SparseApplyAdagrad": 1, "SparseApplyFtrl": 4,
                            "SparseApplyFtrlV2": 5}


def _check_update(refs: Sequence[Tensor], scalars: Sequence[Tensor], grad_t: Tensor,
                  idx_t: Optional[Tensor]) -> TensorShape:
    """Checks slot, gradient and index shapes against the variable's; returns it."""
    var_shape = refs[0].shape
    for t in refs[1:]:
        if not t.shape.is_compatible_with(var_shape):
            raise ValueError(f"slot {t.name} has shape {t.shape}, which does not match the "
                             f"variable's shape {var_shape}")
    for t in scalars:
        if t.shape.ndims not in (None, 0):
            raise ValueError(f"hyperparameter {t.name} must be a scalar, got shape {t.shape}")
    grad = grad_t.shape
    if idx_t is None:
        if not grad.is_compatible_with(var_shape):
            raise ValueError(f"var and grad do not have the same shape: {var_shape} vs {grad}")
    else:
        idx = idx_t.shape
        if idx.ndims not in (None, 1):
            raise ValueError(f"indices must be a vector, got shape {idx}")
        if grad.ndims is not None and var_shape.ndims is not None:
            if grad.ndims != var_shape.ndims or not TensorShape(
                    grad.as_list()[1:]).is_compatible_with(var_shape.as_list()[1:]):
                raise ValueError(f"var and grad must match in all dimensions but the first: "
                                 f"{var_shape} vs {grad}")
    return var_shape


def _update_shape(op: Operation) -> List[TensorShape]:
    n_refs, g_idx, sparse = _LAYOUTS[op.type]
    ins = op.inputs
    scalars = list(ins[n_refs:g_idx]) + list(ins[g_idx + 1 + sparse:])
    return [_check_update(ins[:n_refs], scalars, ins[g_idx],
                          ins[g_idx + 1] if sparse else None)]


def _many_layout(op: Operation) -> Tuple[int, int, int]:
    """(variables, references per variable, scalars) of a ``SparseApplyMany`` op."""
    update, n = op.attrs.get("update"), int(op.attrs.get("N", 0))
    if update not in GROUPABLE_SPARSE_UPDATES:
        raise ValueError(f"SparseApplyMany: update must be one of "
                         f"{sorted(GROUPABLE_SPARSE_UPDATES)}, got {update!r}")
    n_refs = _LAYOUTS[update][0]
    n_scalars = GROUPABLE_SPARSE_UPDATES[update]
    if n < 1 or op.attrs.get("num_refs") != n * n_refs or \
            len(op.inputs) != n * (n_refs + 2) + n_scalars:
        raise ValueError(f"SparseApplyMany of {update}: {len(op.inputs)} inputs do not make "
                         f"N={n} variables of {n_refs} references, their gradients and "
                         f"indices, and {n_scalars} scalars")
    return n, n_refs, n_scalars


def _many_shape(op: Operation) -> List[TensorShape]:
    n, n_refs, n_scalars = _many_layout(op)
    ins = op.inputs
    scalars = ins[len(ins) - n_scalars:]
    base = n * n_refs
    for i in range(n):
        _check_update(ins[i * n_refs:(i + 1) * n_refs], scalars, ins[base + i],
                      ins[base + n + i])
    return []


for _name, (_n_refs, _, _) in _LAYOUTS.items():
    register_op(_name, _update_shape, stateful=True, ref_inputs=range(_n_refs), ref_output=True)
register_op("SparseApplyMany", _many_shape, stateful=True, ref_count_attr="num_refs")


def _ref(var: Any, what: str, op_type: str) -> Tensor:
    """The reference tensor of a Variable (or a ref tensor passed directly)."""
    getter = getattr(var, "_ref", None)
    t = getter() if getter is not None else getattr(var, "_variable", var)
    if not isinstance(t, Tensor) or not (t.op.op_def.ref_output and t.value_index == 0):
        raise TypeError(f"{op_type} needs a variable for {what!r}, got {var!r}; pass a "
                        f"tf.Variable (a value tensor cannot be updated in place)")
    return t


def _apply(op_type: str, refs: Sequence[Any], scalars: Sequence[Any], grad: Any,
           indices: Any = None, name: Optional[str] = None, trailing: Sequence[Any] = (),
           **attrs: Any) -> Tensor:
    """Builds one update op; ``refs[0]`` is the variable, the rest its slots.

    Inputs are ``refs, scalars, grad, [indices], trailing`` (the momentum ops take
    ``momentum`` after the gradient, as TensorFlow's do).
    """
    ref_ts = [_ref(r, n, op_type) for r, n in zip(refs, ("var", "slot", "slot", "slot"))]
    grad_t = convert_to_tensor(grad)
    ins = ref_ts + [convert_to_tensor(s) for s in scalars] + [grad_t]
    if indices is not None:
        ins.append(convert_to_tensor(indices))
    ins.extend(convert_to_tensor(s) for s in trailing)
    op = make_op(op_type, ins, [ref_ts[0].dtype], attrs, name=name or op_type)
    return op.outputs[0]


def apply_gradient_descent(var: Any, alpha: Any, delta: Any, use_locking: bool = False,
                           name: Optional[str] = None) -> Tensor:
    """``var -= alpha * delta`` in place."""
    return _apply("ApplyGradientDescent", [var], [alpha], delta, name=name,
                  use_locking=bool(use_locking))


def apply_momentum(var: Any, accum: Any, lr: Any, grad: Any, momentum: Any,
                   use_locking: bool = False, use_nesterov: bool = False,
                   name: Optional[str] = None) -> Tensor:
    """Momentum update: ``accum = accum * momentum + grad; var -= lr * accum``
    (Nesterov: ``var -= lr * (grad + momentum * accum)``)."""
    return _apply("ApplyMomentum", [var, accum], [lr], grad, name=name, trailing=[momentum],
                  use_locking=bool(use_locking), use_nesterov=bool(use_nesterov))


def apply_adagrad(var: Any, accum: Any, lr: Any, grad: Any, use_locking: bool = False,
                  name: Optional[str] = None) -> Tensor:
    """Adagrad update: ``accum += grad**2; var -= lr * grad / sqrt(accum)``."""
    return _apply("ApplyAdagrad", [var, accum], [lr], grad, name=name,
                  use_locking=bool(use_locking))


def apply_adam(var: Any, m: Any, v: Any, beta1_power: Any, beta2_power: Any, lr: Any,
               beta1: Any, beta2: Any, epsilon: Any, grad: Any, use_locking: bool = False,
               use_nesterov: bool = False, name: Optional[str] = None) -> Tensor:
    """Adam update with the bias correction folded into the step size."""
    return _apply("ApplyAdam", [var, m, v], [beta1_power, beta2_power, lr, beta1, beta2,
                                             epsilon], grad, name=name,
                  use_locking=bool(use_locking), use_nesterov=bool(use_nesterov))


def apply_rms_prop(var: Any, ms: Any, mom: Any, lr: Any, rho: Any, momentum: Any,
                   epsilon: Any, grad: Any, use_locking: bool = False,
                   name: Optional[str] = None) -> Tensor:
    """RMSProp update: ``ms = rho*ms + (1-rho)*g**2; mom = momentum*mom +
    lr*g/sqrt(ms+eps); var -= mom``."""
    return _apply("ApplyRMSProp", [var, ms, mom], [lr, rho, momentum, epsilon], grad,
                  name=name, use_locking=bool(use_locking))


def apply_centered_rms_prop(var: Any, mg: Any, ms: Any, mom: Any, lr: Any, rho: Any,
                            momentum: Any, epsilon: Any, grad: Any, use_locking: bool = False,
                            name: Optional[str] = None) -> Tensor:
    """Centered RMSProp: the second moment is reduced by the squared running mean."""
    return _apply("ApplyCenteredRMSProp", [var, mg, ms, mom], [lr, rho, momentum, epsilon],
                  grad, name=name, use_locking=bool(use_locking))


def sparse_apply_gradient_descent(var: Any, alpha: Any, grad: Any, indices: Any,
                                  use_locking: bool = False,
                                  name: Optional[str] = None) -> Tensor:
    """``var[indices] -= alpha * grad`` with duplicate indices summed."""
    return _apply("SparseApplyGradientDescent", [var], [alpha], grad, indices, name=name,
                  use_locking=bool(use_locking))


def sparse_apply_momentum(var: Any, accum: Any, lr: Any, grad: Any, indices: Any,
                          momentum: Any, use_locking: bool = False, use_nesterov: bool = False,
                          name: Optional[str] = None) -> Tensor:
    """Momentum update of the rows ``indices`` only."""
    return _apply("SparseApplyMomentum", [var, accum], [lr], grad, indices, name=name,
                  trailing=[momentum], use_locking=bool(use_locking),
                  use_nesterov=bool(use_nesterov))


def sparse_apply_adagrad(var: Any, accum: Any, lr: Any, grad: Any, indices: Any,
                         use_locking: bool = False, name: Optional[str] = None) -> Tensor:
    """Adagrad update of the rows ``indices`` only."""
    return _apply("SparseApplyAdagrad", [var, accum], [lr], grad, indices, name=name,
                  use_locking=bool(use_locking))


def sparse_apply_adam(var: Any, m: Any, v: Any, beta1_power: Any, beta2_power: Any, lr: Any,
                      beta1: Any, beta2: Any, epsilon: Any, grad: Any, indices: Any,
                      use_locking: bool = False, name: Optional[str] = None) -> Tensor:
    """Adam with a sparse gradient, with TensorFlow 1.x semantics: both moments decay
    on every row, the gradient is added to its rows, and every row of ``var`` moves
    by its (possibly non-zero) first moment. Rows never touched keep zero moments and
    so stay unchanged."""
    return _apply("SparseApplyAdam", [var, m, v], [beta1_power, beta2_power, lr, beta1, beta2,
                                                   epsilon], grad, indices, name=name,
                  use_locking=bool(use_locking))


def sparse_apply_rms_prop(var: Any, ms: Any, mom: Any, lr: Any, rho: Any, momentum: Any,
                          epsilon: Any, grad: Any, indices: Any, use_locking: bool = False,
                          name: Optional[str] = None) -> Tensor:
    """RMSProp update of the rows ``indices`` only (their slots too)."""
    return _apply("SparseApplyRMSProp", [var, ms, mom], [lr, rho, momentum, epsilon], grad,
                  indices, name=name, use_locking=bool(use_locking))


def sparse_apply_centered_rms_prop(var: Any, mg: Any, ms: Any, mom: Any, lr: Any, rho: Any,
                                   momentum: Any, epsilon: Any, grad: Any, indices: Any,
                                   use_locking: bool = False,
                                   name: Optional[str] = None) -> Tensor:
    """Centered RMSProp update of the rows ``indices`` only."""
    return _apply("SparseApplyCenteredRMSProp", [var, mg, ms, mom], [lr, rho, momentum,
                                                                     epsilon], grad, indices,
                  name=name, use_locking=bool(use_locking))


def apply_ftrl(var: Any, accum: Any, linear: Any, grad: Any, lr: Any, l1: Any, l2: Any,
               lr_power: Any, use_locking: bool = False, name: Optional[str] = None) -> Tensor:
    """FTRL-Proximal update (McMahan et al.): ``accum`` holds the summed squared
    gradients, ``linear`` the linear term; ``var`` is solved for in closed form."""
    return _apply("ApplyFtrl", [var, accum, linear], [], grad, name=name,
                  trailing=[lr, l1, l2, lr_power], use_locking=bool(use_locking))


def apply_ftrl_v2(var: Any, accum: Any, linear: Any, grad: Any, lr: Any, l1: Any, l2: Any,
                  l2_shrinkage: Any, lr_power: Any, use_locking: bool = False,
                  name: Optional[str] = None) -> Tensor:
    """FTRL with an L2 shrinkage term: ``grad + 2 * l2_shrinkage * var`` enters the
    linear term (the squared-gradient sum still uses ``grad``)."""
    return _apply("ApplyFtrlV2", [var, accum, linear], [], grad, name=name,
                  trailing=[lr, l1, l2, l2_shrinkage, lr_power], use_locking=bool(use_locking))


def apply_adadelta(var: Any, accum: Any, accum_update: Any, lr: Any, rho: Any, epsilon: Any,
                   grad: Any, use_locking: bool = False, name: Optional[str] = None) -> Tensor:
    """Adadelta update (Zeiler): running averages of squared gradients and of
    squared updates set the step size."""
    return _apply("ApplyAdadelta", [var, accum, accum_update], [lr, rho, epsilon], grad,
                  name=name, use_locking=bool(use_locking))


def apply_proximal_gradient_descent(var: Any, alpha: Any, l1: Any, l2: Any, delta: Any,
                                    use_locking: bool = False,
                                    name: Optional[str] = None) -> Tensor:
    """A gradient step followed by the proximal operator of ``l1|x| + l2/2 x**2``."""
    return _apply("ApplyProximalGradientDescent", [var], [alpha, l1, l2], delta, name=name,
                  use_locking=bool(use_locking))


def apply_proximal_adagrad(var: Any, accum: Any, lr: Any, l1: Any, l2: Any, grad: Any,
                           use_locking: bool = False, name: Optional[str] = None) -> Tensor:
    """An Adagrad step followed by the proximal operator of the L1/L2 penalties."""
    return _apply("ApplyProximalAdagrad", [var, accum], [lr, l1, l2], grad, name=name,
                  use_locking=bool(use_locking))


def apply_adagrad_da(var: Any, gradient_accumulator: Any, gradient_squared_accumulator: Any,
                     grad: Any, lr: Any, l1: Any, l2: Any, global_step: Any,
                     use_locking: bool = False, name: Optional[str] = None) -> Tensor:
    """Adagrad dual averaging: ``var`` is recomputed from the summed gradients and
    summed squared gradients at (int64) step ``global_step``."""
    return _apply("ApplyAdagradDA", [var, gradient_accumulator, gradient_squared_accumulator],
                  [], grad, name=name, trailing=[lr, l1, l2, global_step],
                  use_locking=bool(use_locking))


def sparse_apply_ftrl(var: Any, accum: Any, linear: Any, grad: Any, indices: Any, lr: Any,
                      l1: Any, l2: Any, lr_power: Any, use_locking: bool = False,
                      name: Optional[str] = None) -> Tensor:
    """FTRL update of the rows ``indices`` only (their slots too)."""
    return _apply("SparseApplyFtrl", [var, accum, linear], [], grad, indices, name=name,
                  trailing=[lr, l1, l2, lr_power], use_locking=bool(use_locking))


def sparse_apply_ftrl_v2(var: Any, accum: Any, linear: Any, grad: Any, indices: Any, lr: Any,
                         l1: Any, l2: Any, l2_shrinkage: Any, lr_power: Any,
                         use_locking: bool = False, name: Optional[str] = None) -> Tensor:
    """FTRL with L2 shrinkage, on the rows ``indices`` only."""
    return _apply("SparseApplyFtrlV2", [var, accum, linear], [], grad, indices, name=name,
                  trailing=[lr, l1, l2, l2_shrinkage, lr_power], use_locking=bool(use_locking))


def sparse_apply_adadelta(var: Any, accum: Any, accum_update: Any, lr: Any, rho: Any,
                          epsilon: Any, grad: Any, indices: Any, use_locking: bool = False,
                          name: Optional[str] = None) -> Tensor:
    """Adadelta update of the rows ``indices`` only."""
    return _apply("SparseApplyAdadelta", [var, accum, accum_update], [lr, rho, epsilon], grad,
                  indices, name=name, use_locking=bool(use_locking))


def sparse_apply_proximal_gradient_descent(var: Any, alpha: Any, l1: Any, l2: Any, grad: Any,
                                           indices: Any, use_locking: bool = False,
                                           name: Optional[str] = None) -> Tensor:
    """Proximal gradient descent on the rows ``indices`` only."""
    return _apply("SparseApplyProximalGradientDescent", [var], [alpha, l1, l2], grad, indices,
                  name=name, use_locking=bool(use_locking))


def sparse_apply_proximal_adagrad(var: Any, accum: Any, lr: Any, l1: Any, l2: Any, grad: Any,
                                  indices: Any, use_locking: bool = False,
                                  name: Optional[str] = None) -> Tensor:
    """Proximal Adagrad on the rows ``indices`` only."""
    return _apply("SparseApplyProximalAdagrad", [var, accum], [lr, l1, l2], grad, indices,
                  name=name, use_locking=bool(use_locking))


def sparse_apply_adagrad_da(var: Any, gradient_accumulator: Any,
                            gradient_squared_accumulator: Any, grad: Any, indices: Any, lr: Any,
                            l1: Any, l2: Any, global_step: Any, use_locking: bool = False,
                            name: Optional[str] = None) -> Tensor:
    """Adagrad dual averaging on the rows ``indices`` only."""
    return _apply("SparseApplyAdagradDA",
                  [var, gradient_accumulator, gradient_squared_accumulator], [], grad, indices,
                  name=name, trailing=[lr, l1, l2, global_step], use_locking=bool(use_locking))


def sparse_apply_lazy_adam(var: Any, m: Any, v: Any, beta1_power: Any, beta2_power: Any,
                           lr: Any, beta1: Any, beta2: Any, epsilon: Any, grad: Any,
                           indices: Any, use_locking: bool = False,
                           name: Optional[str] = None) -> Tensor:
    """Adam on the rows ``indices`` only: their moments decay and they move; every
    other row of ``var``, ``m`` and ``v`` is left as it is (``LazyAdamOptimizer``)."""
    return _apply("SparseApplyLazyAdam", [var, m, v], [beta1_power, beta2_power, lr, beta1,
                                                       beta2, epsilon], grad, indices,
                  name=name, use_locking=bool(use_locking))


def sparse_apply_many(update: str, refs: Sequence[Sequence[Any]], grads: Sequence[Any],
                      indices: Sequence[Any], scalars: Sequence[Any], use_locking: bool = False,
                      name: Optional[str] = None) -> Operation:
    """One op that applies the sparse update ``update`` (a key of
    ``GROUPABLE_SPARSE_UPDATES``) to several variables of one device.

    ``refs[i]`` is variable i and its slots, in the order of the single op; every
    variable takes its gradient ``(grads[i], indices[i])`` and the same ``scalars``
    (the single op's hyperparameters, in its order). The values are those of one
    single op per variable; what is saved is the call and the row rule run once
    over the rows of all of them.
    """
    if update not in GROUPABLE_SPARSE_UPDATES:
        raise ValueError(f"sparse_apply_many: update must be one of "
                         f"{sorted(GROUPABLE_SPARSE_UPDATES)}, got {update!r}")
    n_refs = _LAYOUTS[update][0]
    if not refs or len(grads) != len(refs) or len(indices) != len(refs) or \
            any(len(r) != n_refs for r in refs):
        raise ValueError(f"sparse_apply_many: {update} needs, per variable, {n_refs} "
                         f"references, a gradient and indices; got {len(refs)} reference "
                         f"lists, {len(grads)} gradients and {len(indices)} index vectors")
    ref_ts = [_ref(r, what, update) for group in refs
              for r, what in zip(group, ("var", "slot", "slot", "slot"))]
    ins = ref_ts + [convert_to_tensor(g) for g in grads] + \
        [convert_to_tensor(i) for i in indices] + [convert_to_tensor(s) for s in scalars]
    return make_op("SparseApplyMany", ins, [],
                   {"update": update, "N": len(refs), "num_refs": len(ref_ts),
                    "use_locking": bool(use_locking)}, name=name or "SparseApplyMany")


__all__ = [
    "GROUPABLE_SPARSE_UPDATES", "sparse_apply_many", "apply_ftrl", "apply_ftrl_v2", "apply_adadelta", "apply_proximal_gradient_descent",
    "apply_proximal_adagrad", "apply_adagrad_da", "sparse_apply_ftrl", "sparse_apply_ftrl_v2",
    "sparse_apply_adadelta", "sparse_apply_proximal_gradient_descent",
    "sparse_apply_proximal_adagrad", "sparse_apply_adagrad_da", "sparse_apply_lazy_adam",
    "apply_gradient_descent", "apply_momentum", "apply_adagrad", "apply_adam",
    "apply_rms_prop", "apply_centered_rms_prop", "sparse_apply_gradient_descent",
    "sparse_apply_momentum", "sparse_apply_adagrad", "sparse_apply_adam",
    "sparse_apply_rms_prop", "sparse_apply_centered_rms_prop",
]
