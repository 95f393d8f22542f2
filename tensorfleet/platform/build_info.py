"""What this build of tensorfleet is: its version, the graph format version it writes and
reads, and how it was built (``tf.version``, ``tf.sysconfig``).

tensorfleet is pure Python (its kernels are numpy and optional C libraries loaded at run
time), so the compiler figure is the one that built the running Python interpreter, and
no CUDA, ROCm or TensorRT build is ever reported.
"""

from __future__ import annotations

import os
import platform
from typing import Dict

from tensorfleet.framework.serialization import GRAPH_FORMAT_VERSION

VERSION = "0.1.0"
# Builds made from a source tree without git metadata report TensorFlow's word for it.
GIT_VERSION = "unknown"
COMPILER_VERSION = platform.python_compiler()
# The graph format written by Graph.as_graph_def and the range import_graph_def accepts.
GRAPH_DEF_VERSION = GRAPH_FORMAT_VERSION
GRAPH_DEF_VERSION_MIN_CONSUMER = GRAPH_FORMAT_VERSION
GRAPH_DEF_VERSION_MIN_PRODUCER = GRAPH_FORMAT_VERSION


def get_build_info() -> Dict[str, object]:
    """The build's properties, with TensorFlow's keys: no GPU runtime is built in."""
    return {"is_cuda_build": False, "is_rocm_build": False, "is_tensorrt_build": False,
            "cpu_compiler": COMPILER_VERSION}


def get_lib() -> str:
    """The directory of the installed tensorfleet package."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
