"""numpy kernels of the FFT ops (``ops/spectral_ops.py``), computed by ``scipy.fft``,
which keeps single precision (complex64 in, complex64 out) as TensorFlow does."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.platform.deferred_scipy import fft as _fft
from tensorfleet.kernels.registry import KernelContext, register_kernel

_TRANSFORMS = {
    "FFT": ("c2c", 1), "IFFT": ("ic2c", 1), "FFT2D": ("c2c", 2), "IFFT2D": ("ic2c", 2),
    "FFT3D": ("c2c", 3), "IFFT3D": ("ic2c", 3), "RFFT": ("r2c", 1), "IRFFT": ("c2r", 1),
    "RFFT2D": ("r2c", 2), "IRFFT2D": ("c2r", 2), "RFFT3D": ("r2c", 3), "IRFFT3D": ("c2r", 3),
    "FFTND": ("c2c", 0), "IFFTND": ("ic2c", 0), "RFFTND": ("r2c", 0), "IRFFTND": ("c2r", 0)}
_FUNCS = {"c2c": _fft.fftn, "ic2c": _fft.ifftn, "r2c": _fft.rfftn,
          "c2r": _fft.irfftn}


def _make(op_type: str) -> None:
    kind, k = _TRANSFORMS[op_type]
    fn = _FUNCS[kind]

    def kern(ctx: KernelContext, x: Any, fft_length: Any = None, axes: Any = None) -> Any:
        x = np.asarray(x)
        ax = (list(range(x.ndim - k, x.ndim)) if k
              else [int(a) % x.ndim for a in np.asarray(axes).reshape(-1)])
        if kind == "c2r":
            s = [int(n) for n in np.asarray(fft_length).reshape(-1)]
            out = fn(x, s=s, axes=ax)
            return out.astype(ctx.attrs["Treal"].np, copy=False)
        out = fn(x, axes=ax)
        return out.astype(ctx.attrs["Tcomplex"].np, copy=False)
    register_kernel(op_type)(kern)


for _t in _TRANSFORMS:
    _make(_t)
