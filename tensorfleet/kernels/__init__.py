"""Kernels: the registry ``(op type, device type) -> kernel`` and one folder per backend.

``numpy/`` holds the reference kernels, one module per op family; the resource classes that
kernels of any backend share (variables, queues, accumulators, dataset values) sit here beside
the registry. The kernels are imported, and so registered, on first need
(``registry.load_kernel_library``): the first lookup of a kernel, or the first use of a
public ``tensorfleet`` name.
"""

from tensorfleet.kernels.registry import get_kernel, register_kernel  # noqa: F401
