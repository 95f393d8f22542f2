"""Which CPU kernel backend runs: oneDNN where it loads, the numpy reference otherwise.

The numpy kernels define what every op means and run everywhere. The ``onednn``
backend runs the compute-heavy ops (convolutions, pooling, large matrix products)
through oneDNN and is preferred wherever its library loads; where it does not (no
wheel for the platform, a broken install), one INFO line says so and the numpy
kernels run.

Selecting explicitly:

* ``TENSORFLEET_CPU_KERNELS=numpy`` or ``=onednn`` in the environment, read on the
  first kernel lookup; ``onednn`` then fails loudly when the library cannot load;
* ``tensorfleet.set_cpu_kernel_backend("numpy")`` (or ``"onednn"``, or None for the
  default choice) from Python, for graphs run after the call.

``tensorfleet.cpu_kernel_backend()`` says which backend is in use; the choice is
also logged (INFO) when it is made.
"""

from __future__ import annotations

import logging
import os
from typing import Optional

from tensorfleet.kernels import registry

logger = logging.getLogger(__name__)

ENV = "TENSORFLEET_CPU_KERNELS"
NUMPY = "numpy"
ONEDNN = "onednn"
BACKENDS = (NUMPY, ONEDNN)


def _check(name: str, where: str) -> str:
    if name not in BACKENDS:
        raise ValueError(f"Unknown CPU kernel backend {name!r} in {where}: choose one of "
                         f"{list(BACKENDS)}")
    return name


def _load_onednn() -> None:
    """Loads the oneDNN library and registers its kernels (LibraryUnavailable if not)."""
    from tensorfleet.kernels.onednn import library
    library.load()
    import tensorfleet.kernels.onednn  # noqa: F401  (registers the kernels)


def _choose(requested: Optional[str], where: str) -> Optional[str]:
    """The registry's backend name for ``requested`` (None: the default choice)."""
    from tensorfleet.kernels.onednn.library import LibraryUnavailable
    if requested == NUMPY:
        logger.info("CPU kernels: numpy (selected by %s)", where)
        return None
    try:
        _load_onednn()
    except LibraryUnavailable as e:
        if requested == ONEDNN:
            raise LibraryUnavailable(f"CPU kernel backend 'onednn' selected by {where} "
                                     f"cannot load: {e}") from e
        logger.info("CPU kernels: numpy (oneDNN unavailable: %s)", e)
        return None
    logger.info("CPU kernels: onednn%s", f" (selected by {where})" if requested else "")
    return ONEDNN


def _default_chooser() -> Optional[str]:
    raw = os.environ.get(ENV)
    if raw:
        return _choose(_check(raw.strip().lower(), f"the environment variable {ENV}"),
                       f"{ENV}={raw}")
    return _choose(None, "default")


def set_cpu_kernel_backend(name: Optional[str]) -> None:
    """Selects the CPU kernels for graphs run from now on: ``"numpy"`` (the
    reference), ``"onednn"``, or None for the default (oneDNN where it loads, then
    ``TENSORFLEET_CPU_KERNELS`` when set).

    Raises:
      ValueError: ``name`` is not a known backend.
      OSError: ``"onednn"`` was asked for and its library cannot load.
    """
    if name is None:
        registry.set_backend_chooser("CPU", _default_chooser)
        return
    if not isinstance(name, str):
        raise ValueError(f"A CPU kernel backend is one of {list(BACKENDS)} or None, "
                         f"got {name!r}")
    choice = _choose(_check(name.lower(), "set_cpu_kernel_backend"), "set_cpu_kernel_backend")
    registry.set_active_backend("CPU", choice)


def cpu_kernel_backend() -> str:
    """The CPU kernel backend in use: ``"onednn"`` or ``"numpy"`` (choosing it now if
    no kernel has been looked up yet)."""
    return registry.active_backend("CPU") or NUMPY


registry.set_backend_chooser("CPU", _default_chooser)

__all__ = ["set_cpu_kernel_backend", "cpu_kernel_backend", "ENV", "BACKENDS"]
