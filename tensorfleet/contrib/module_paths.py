"""The ``tensorflow.contrib.layers.python.layers`` import path that TF 1.x programs use
(``from tensorflow.contrib.layers.python.layers import batch_norm``), pointing at
``tf.contrib.layers``: importing ``tensorfleet.contrib`` registers it in
``sys.modules`` under ``tensorfleet.contrib.layers.python.layers``."""

from __future__ import annotations

import sys
import types

from tensorfleet.contrib import layers as _layers

_PACKAGE = "tensorfleet.contrib.layers.python"


def register() -> None:
    """Registers the path (idempotent)."""
    if _PACKAGE in sys.modules:
        return
    pkg = types.ModuleType(_PACKAGE, "``tensorflow.contrib.layers.python``: ``layers`` is "
                                     "``tf.contrib.layers``.")
    pkg.__path__ = []  # a package: other submodules are a ModuleNotFoundError
    pkg.layers = _layers
    sys.modules[_PACKAGE] = pkg
    sys.modules[_PACKAGE + ".layers"] = _layers
    _layers.python = pkg


# Importing this module is what makes the path importable.
register()

__all__ = ["register"]
