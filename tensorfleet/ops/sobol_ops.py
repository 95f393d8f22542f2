"""``tf.math.sobol_sample``: points of the Sobol low-discrepancy sequence (Joe and Kuo's
direction numbers, unscrambled, from ``scipy.stats.qmc``), leaving out the origin as
TensorFlow does. The sizes must be known when the graph is built; the points enter the
graph as a constant."""

from __future__ import annotations

from typing import Any, Optional


from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor
from tensorfleet.ops.array_ops_core import constant
from tensorfleet.ops.signal_frames import static_int

_MAX_DIM = 21201  # the dimensions Joe and Kuo's table covers


def sobol_sample(dim: Any, num_results: Any, skip: Any = 0, dtype: Any = _dtypes.float32,
                 name: Optional[str] = None) -> Tensor:
    """``[num_results, dim]`` Sobol points in ``[0, 1)``, starting after the first
    ``skip`` points of the sequence (the origin excluded)."""
    d = static_int(dim, "dim")
    n = static_int(num_results, "num_results")
    s = static_int(skip, "skip")
    dt = _dtypes.as_dtype(dtype)
    if dt not in (_dtypes.float32, _dtypes.float64):
        raise ValueError(f"sobol_sample makes float32 or float64 points, not {dt.name}")
    if not 1 <= d <= _MAX_DIM:
        raise ValueError(f"dim must be in [1, {_MAX_DIM}], got {d}")
    if n < 0 or s < 0:
        raise ValueError(f"num_results and skip must be non-negative, got {n} and {s}")
    # scipy.stats takes most of a second to import: only when a Sobol sequence is built.
    from scipy.stats import qmc
    engine = qmc.Sobol(d, scramble=False)
    engine.fast_forward(1 + s)
    points = engine.random(n) if n else engine.random(0)
    return constant(points.astype(dt.np), dtype=dt, name=name or "SobolSample")
