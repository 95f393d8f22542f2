"""numpy kernel of the ``Lu`` op (``ops/lu_ops.py``): LAPACK's getrf through
``scipy.linalg.lu_factor``, its row swaps turned into a permutation."""

from __future__ import annotations

import warnings
from typing import Any, List

import numpy as np
from tensorfleet.platform.deferred_scipy import linalg

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel


@register_kernel("Lu")
def _lu(ctx: KernelContext, x: Any) -> List[np.ndarray]:
    x = np.asarray(x)
    n = x.shape[-1]
    flat = x.reshape((-1, n, n))
    packed = np.empty_like(flat)
    perms = np.empty((flat.shape[0], n), dtype=ctx.attrs["output_idx_type"].np)
    for i, m in enumerate(flat):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            # A singular matrix is reported below as TensorFlow reports it.
            warnings.simplefilter("ignore")
            lu_m, piv = linalg.lu_factor(m, check_finite=False)
        if not np.all(np.isfinite(lu_m)) or np.any(np.diag(lu_m) == 0):
            raise errors.InvalidArgumentError(ctx.op_name, None,
                                              "Input is not invertible.")
        order = np.arange(n)
        for row, swap in enumerate(piv):
            order[[row, swap]] = order[[swap, row]]
        packed[i], perms[i] = lu_m, order
    return [packed.reshape(x.shape), perms.reshape(x.shape[:-1])]
