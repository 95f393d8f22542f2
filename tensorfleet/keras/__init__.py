"""``tf.keras``: Keras as TF 1.x programs use it, in graph mode.

Layers called on tensors, ``Model``/``Sequential`` with ``compile``/``fit``/
``evaluate``/``predict``, running in the default graph through
``backend.get_session()``.
"""

from tensorfleet.keras import activations, backend, initializers, layers  # noqa: F401
from tensorfleet.keras import callbacks, constraints, losses, metrics, optimizers  # noqa: F401
from tensorfleet.keras import estimator, experimental, export, mixed_precision  # noqa: F401
from tensorfleet.keras import models, regularizers, saving  # noqa: F401
from tensorfleet.api import keras_applications as applications  # noqa: F401
from tensorfleet.api import keras_datasets as datasets  # noqa: F401
from tensorfleet.api import keras_preprocessing as preprocessing  # noqa: F401
from tensorfleet.api import keras_utils as utils  # noqa: F401
from tensorfleet.keras.layers import Input  # noqa: F401
from tensorfleet.keras.models import Model, Sequential  # noqa: F401
