"""numpy kernels of the matrix functions (``ops/matrix_functions.py``), from
``scipy.linalg``, one matrix of the batch at a time."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from tensorfleet.platform.deferred_scipy import linalg

from tensorfleet.kernels.registry import KernelContext, register_kernel


def _batched(fn: Callable, *xs: np.ndarray) -> np.ndarray:
    x0 = np.asarray(xs[0])
    out = np.empty(x0.shape, dtype=x0.dtype)
    flat = [np.asarray(x).reshape((-1,) + x0.shape[-2:]) for x in xs]
    view = out.reshape((-1,) + x0.shape[-2:])
    for i in range(view.shape[0]):
        view[i] = fn(*(f[i].astype(np.complex128 if x0.dtype.kind == "c" else np.float64)
                       for f in flat))
    return out


def _sqrtm(a: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        root = linalg.sqrtm(a)
    if a.dtype.kind != "c":
        # A real matrix with a real square root gets it; otherwise nan, as TensorFlow.
        if np.iscomplexobj(root) and np.abs(root.imag).max(initial=0) > 1e-8 * max(
                1.0, np.abs(root).max(initial=0)):
            return np.full(a.shape, np.nan)
        root = root.real
    return root


@register_kernel("MatrixExponential")
def _expm(ctx: KernelContext, x: Any) -> np.ndarray:
    return _batched(linalg.expm, x)


@register_kernel("MatrixLogarithm")
def _logm(ctx: KernelContext, x: Any) -> np.ndarray:
    def one(a: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return linalg.logm(a)
    return _batched(one, x)


@register_kernel("MatrixSquareRoot")
def _sqrtm_kernel(ctx: KernelContext, x: Any) -> np.ndarray:
    return _batched(_sqrtm, x)


@register_kernel("MatrixExponentialGrad")
def _expm_grad(ctx: KernelContext, a: Any, g: Any) -> np.ndarray:
    # The adjoint of the Fréchet derivative L(A, .) is L(A^H, .).
    return _batched(lambda m, gm: linalg.expm_frechet(m.conj().T, gm,
                                                            compute_expm=False), a, g)


@register_kernel("MatrixSquareRootGrad")
def _sqrtm_grad(ctx: KernelContext, root: Any, g: Any) -> np.ndarray:
    # S S = A gives dS S + S dS = dA; the adjoint solves S^H X + X S^H = G.
    return _batched(lambda s, gm: linalg.solve_sylvester(s.conj().T, s.conj().T, gm),
                    root, g)
