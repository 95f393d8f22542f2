"""``tf.app``: ``run`` and ``flags``, as in TensorFlow 1.x programs."""

from tensorfleet.platform.app import run
from tensorfleet.api import flags

__all__ = ["flags", "run"]
