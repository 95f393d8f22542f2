"""``tf.contrib.tensorboard.plugins``: ``projector``."""

from tensorfleet.contrib.tensorboard.plugins import projector  # noqa: F401
