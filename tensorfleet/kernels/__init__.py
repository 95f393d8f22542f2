"""Kernels: the registry ``(op type, device type) -> kernel`` and one folder per backend.

``numpy/`` holds the reference kernels, one module per op family; the resource classes that
kernels of any backend share (variables, queues, accumulators, dataset values) sit here beside
the registry. The kernels are imported, and so registered, on first need
(``registry.load_kernel_library``): the first lookup of a kernel, or the first use of a
public ``tensorfleet`` name.
"""

from tensorfleet.kernels import registry as _registry
from tensorfleet.kernels.registry import get_kernel, register_kernel  # noqa: F401


def _load_library() -> None:
    from tensorfleet.kernels import numpy  # noqa: F401  (registers the numpy kernels)
    # The oneDNN CPU kernels register beside the numpy ones; which run is chosen on
    # the first kernel lookup (tensorfleet.kernels.backends).
    from tensorfleet.kernels import backends, onednn  # noqa: F401


_registry.set_library_loader(_load_library)
