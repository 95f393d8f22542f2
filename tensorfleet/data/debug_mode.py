"""``tf.data.experimental.enable_debug_mode``: input pipelines run one element at a time,
every map in the iterator's kernel, in the order the data set was written.

Normally the maps after the kernel's last value stage are traced into the graph after
``get_next`` and, when a ``batch`` follows them, applied to whole batches (see
``dataset_ops.py``). In debug mode every iterator built afterwards runs each map on each
element as written, so a map's side effects (prints, ``py_func`` calls) happen once per
element, and an error names the element's map, not a batched one. tensorfleet's pipelines
already run their stages in order on one thread, so this is the whole of the mode.
"""

from __future__ import annotations

import logging
import threading

logger = logging.getLogger(__name__)

_LOCK = threading.Lock()
_ENABLED = False


def enable_debug_mode() -> None:
    """Runs every map of the iterators built from now on element by element, in the
    iterator's kernel (for debugging; slower where a map could have been batched)."""
    global _ENABLED
    with _LOCK:
        _ENABLED = True
    logger.info("tf.data debug mode: maps run element by element in the iterator kernel")


def debug_mode_enabled() -> bool:
    """Whether ``enable_debug_mode`` was called in this process."""
    return _ENABLED


def _set_debug_mode(on: bool) -> None:
    """Turns the mode on or off (tests turn it off again)."""
    global _ENABLED
    with _LOCK:
        _ENABLED = bool(on)


__all__ = ["enable_debug_mode", "debug_mode_enabled"]
