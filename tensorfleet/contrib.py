"""``tf.contrib``: the few contrib names the TensorFlow 1.x examples use."""

import types

framework = types.SimpleNamespace()
