"""tensorfleet: distributed TensorFlow-style training in Python.

``import tensorfleet as tf`` gives the TensorFlow 1.x names that distributed training
programs use. Every top-level name is declared in ``tensorfleet/api/tf.py`` and every
namespace (``tf.nn``, ``tf.train`` ...) in a module of ``tensorfleet/api/``.
"""

import sys as _sys

from tensorfleet import kernels as _kernels  # noqa: F401  (registers the kernels)
from tensorfleet.distributed import remote as _remote  # noqa: F401  (registers grpc:// sessions)
from tensorfleet.api.tf import *  # noqa: F401,F403,E402  (every tf.* name)
from tensorfleet.api.tf import __all__ as _public  # noqa: E402

# tf.compat.v1 is tensorfleet itself, also as ``import tensorfleet.compat.v1 as tf``.
compat.v1 = _sys.modules[__name__]  # noqa: F405
_sys.modules[__name__ + ".compat.v1"] = compat.v1  # noqa: F405

# The namespaces declared in tensorfleet.api are reached under their public names too:
# `import tensorfleet.nn_layers.functional`, `from tensorfleet.platform.gfile import Exists`.
for _name in _public:
    _value = globals()[_name]
    if getattr(_value, "__name__", "").startswith(__name__ + ".api."):
        _sys.modules.setdefault(f"{__name__}.{_name}", _value)
del _name, _value

from tensorfleet.platform.build_info import VERSION as __version__  # noqa: E402
VERSION = __version__  # tf.VERSION: the version string under its 1.x name


def __getattr__(name: str):
    # tf.Summary, tf.Event, tf.SessionLog: loaded on first use (see tensorfleet.api.summary).
    if name in ("Summary", "Event", "SessionLog", "SummaryMetadata", "HistogramProto"):
        from tensorfleet.ops import summary_ops
        return getattr(summary_ops, name)
    raise AttributeError(f"module 'tensorfleet' has no attribute {name!r}")
