"""``tf.contrib``: the contrib modules TensorFlow 1.x programs use, one module each."""

from tensorfleet.contrib import framework, layers, training  # noqa: F401

__all__ = ["framework", "layers", "training"]
