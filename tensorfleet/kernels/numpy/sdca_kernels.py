"""numpy kernel of ``SdcaFprint``: FarmHash ``Fingerprint128`` of each string (the C
implementation of the ``pyfarmhash`` package), its two 64-bit halves as int64."""

from __future__ import annotations

from typing import Any

import farmhash
import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.numpy.string_kernels import as_bytes
from tensorfleet.kernels.registry import KernelContext, register_kernel


@register_kernel("SdcaFprint")
def _sdca_fprint(ctx: KernelContext, x: Any) -> np.ndarray:
    values = np.asarray(x, dtype=object)
    if values.ndim != 1:
        raise invalid(ctx, f"input must be a vector, got shape {values.shape}")
    try:
        pairs = [farmhash.fingerprint128(as_bytes(v)) for v in values]
    except TypeError as e:
        raise invalid(ctx, f"input must hold strings: {e}") from None
    return np.array(pairs, dtype=np.uint64).reshape(len(pairs), 2).view(np.int64)
