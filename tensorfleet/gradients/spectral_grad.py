"""Gradients of the FFT ops (``ops/spectral_ops.py``): each transform is linear, so its
gradient is the adjoint transform. With TensorFlow's convention for complex gradients
that is ``N * ifft`` for ``fft`` and ``fft / N`` for ``ifft``; the real transforms fold
in the Hermitian symmetry (only ``n // 2 + 1`` frequencies are kept)."""

from __future__ import annotations

from typing import Any, List

import numpy as np

from tensorfleet.framework.graph import convert_to_tensor
from tensorfleet.gradients.registry import register_gradient
from tensorfleet.ops import complex_ops as C
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import spectral_ops as F
from tensorfleet.ops.array_indexing_ops import pad


def _lengths(op: Any) -> List[int]:
    if len(op.inputs) > 1:
        return [int(n) for n in np.asarray(F.const_value(op.inputs[1])).reshape(-1)]
    dims = op.inputs[0].shape.as_list()
    return [dims[a] for a in F.op_axes(op)]


def _scale(x: Any, factor: float) -> Any:
    return M.multiply(x, convert_to_tensor(factor, dtype=x.dtype))


def _grad(op: Any, grad: Any) -> List[Any]:
    kind = F.TRANSFORMS[op.type][0]
    axes, lengths = F.op_axes(op), _lengths(op)
    n = float(np.prod(lengths))
    extra = [None] * (len(op.inputs) - 1)
    if kind == "c2c":
        return [_scale(F.transform("IFFTND", grad, axes, lengths), n)] + extra
    if kind == "ic2c":
        return [_scale(F.transform("FFTND", grad, axes, lengths), 1.0 / n)] + extra
    last = lengths[-1]
    if kind == "r2c":
        paddings = [[0, 0] for _ in range(grad.shape.ndims)]
        paddings[axes[-1]][1] = last - (last // 2 + 1)
        full = F.transform("IFFTND", pad(grad, paddings), axes, lengths)
        return [_scale(C.real(full), n)] + extra
    # c2r: the kept frequencies other than 0 (and n/2 for even n) stand for two.
    half = F.transform("RFFTND", grad, axes, lengths)
    mask = np.full(last // 2 + 1, 2.0 / n)
    mask[0] = 1.0 / n
    if last % 2 == 0:
        mask[-1] = 1.0 / n
    shape = [1] * grad.shape.ndims
    shape[axes[-1]] = len(mask)
    return [M.multiply(half, convert_to_tensor(mask.reshape(shape).astype(half.dtype.np)))] \
        + extra


for _t in F.TRANSFORMS:
    register_gradient(_t)(_grad)
