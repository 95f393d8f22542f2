"""``tf.contrib.tensorboard``: TensorBoard plugin helpers (the embedding projector)."""

from tensorfleet.contrib.tensorboard import plugins  # noqa: F401
