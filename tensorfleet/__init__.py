"""tensorfleet: distributed TensorFlow-style training in Python.

``import tensorfleet as tf`` gives the TensorFlow 1.x names that distributed training
programs use. Every top-level name is declared in ``tensorfleet/api/tf.py`` and every
namespace (``tf.nn``, ``tf.train`` ...) in a module of ``tensorfleet/api/``. They are
loaded on first use (``tensorfleet/public_names.py``), so that the ``tensorfleet``
command starts without loading the kernels and ops it does not need.
"""

import sys as _sys

from tensorfleet import public_names as _public_names

_public_names.install(_sys.modules[__name__])
