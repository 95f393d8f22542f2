"""``tensorfleet.python``: the ``tensorflow.python...`` import paths of TF 1.x programs
(``from tensorfleet.python.framework import ops``), each a tensorfleet module."""

from tensorfleet.python import device_lib, modules  # noqa: F401  (importing registers them)
