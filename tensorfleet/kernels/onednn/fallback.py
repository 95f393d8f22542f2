"""When a oneDNN kernel hands an op to its numpy reference kernel.

oneDNN runs float32 here; any other dtype, a shape or attribute oneDNN declines, and
input that is wrong (which the reference kernel reports with TensorFlow's errors) run
the numpy kernel registered for the op, so the two backends accept the same graphs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.kernels.registry import Kernel, reference_kernel

BACKEND = "onednn"


def reference(op_type: str) -> Kernel:
    """The numpy kernel of ``op_type`` on CPU."""
    k = reference_kernel(op_type)
    if k is None:
        raise RuntimeError(f"no numpy reference kernel registered for {op_type}")
    return k


def all_f32(*arrays: Any) -> bool:
    """Whether every array is a float32 numpy array (the dtype oneDNN runs here)."""
    return all(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in arrays)


__all__ = ["reference", "all_f32", "BACKEND"]
