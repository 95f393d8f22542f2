"""Kernels: the registry ``(op type, device type) -> kernel`` and one folder per backend.

``numpy/`` holds the reference kernels, one module per op family; the resource classes that
kernels of any backend share (variables, queues, accumulators, dataset values) sit here beside
the registry. Importing this package registers the reference kernels.
"""

from tensorfleet.kernels import numpy as _numpy  # noqa: F401  (registers the numpy kernels)
from tensorfleet.kernels.registry import get_kernel, register_kernel  # noqa: F401
# The oneDNN CPU kernels register beside the numpy ones; which run is chosen on the
# first kernel lookup (tensorfleet.kernels.backends).
from tensorfleet.kernels import backends, onednn  # noqa: F401,E402
