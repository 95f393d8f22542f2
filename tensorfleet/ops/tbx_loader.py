"""Loads tensorboardX's protobuf and record-writer modules without its package root.

tensorboardX's ``__init__`` imports its SummaryWriter, which imports PyTorch when it
is installed: seconds of start-up for a process that only writes event files. Only
the leaf modules are needed here, so they are imported under a bare stand-in of the
package, which is removed again afterwards so that a program importing tensorboardX
itself later still gets the real package.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types
from typing import Any

_lock = threading.Lock()


def tbx_module(name: str) -> Any:
    """``tensorboardX.<name>`` (e.g. ``proto.summary_pb2``, ``record_writer``)."""
    full = f"tensorboardX.{name}"
    mod = sys.modules.get(full)
    if mod is not None:
        return mod
    with _lock:
        if "tensorboardX" in sys.modules:
            return importlib.import_module(full)
        spec = importlib.util.find_spec("tensorboardX")
        if spec is None or not spec.submodule_search_locations:
            raise ImportError("tensorboardX is required to write summaries: "
                              "pip install tensorboardX")
        stub = types.ModuleType("tensorboardX")
        stub.__path__ = list(spec.submodule_search_locations)  # type: ignore[attr-defined]
        stub.__spec__ = spec
        sys.modules["tensorboardX"] = stub
        try:
            return importlib.import_module(full)
        finally:
            if sys.modules.get("tensorboardX") is stub:
                del sys.modules["tensorboardX"]


__all__ = ["tbx_module"]
