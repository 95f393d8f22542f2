"""``tf.keras``: Keras as TF 1.x programs use it, in graph mode.

Layers called on tensors, ``Model``/``Sequential`` with ``compile``/``fit``/
``evaluate``/``predict``, running in the default graph through
``backend.get_session()``.
"""

from tensorfleet.keras import activations, backend, initializers, layers  # noqa: F401
from tensorfleet.keras import callbacks, constraints, losses, metrics, optimizers  # noqa: F401
from tensorfleet.keras import datasets, models, preprocessing, regularizers  # noqa: F401
from tensorfleet.keras import estimator, experimental, export, mixed_precision  # noqa: F401
from tensorfleet.keras import saving, utils  # noqa: F401
from tensorfleet.keras.layers import Input  # noqa: F401
from tensorfleet.keras.models import Model, Sequential  # noqa: F401
