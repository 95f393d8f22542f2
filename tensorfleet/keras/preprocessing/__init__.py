"""``tf.keras.preprocessing``: sequence padding."""

from tensorfleet.keras.preprocessing import sequence  # noqa: F401
