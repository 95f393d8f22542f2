"""``tf.keras.utils``: labels to one-hot and ordinal targets, files in the Keras cache,
images as arrays, data as indexable batches and their enqueuers, progress bars, and the
custom-object registry with object serialization."""

from tensorfleet.keras.batch_sequence import (GeneratorEnqueuer, OrderedEnqueuer, Sequence,
    SequenceEnqueuer)
from tensorfleet.keras.layer_graph import get_source_inputs
from tensorfleet.keras.object_config import (deserialize_keras_object,
    serialize_keras_object)
from tensorfleet.keras.object_registry import (CustomObjectScope, custom_object_scope,
    get_custom_objects, get_registered_name, get_registered_object,
    register_keras_serializable)
from tensorfleet.keras.preprocessing.image_arrays import (array_to_img, img_to_array,
    load_img, save_img)
from tensorfleet.keras.preprocessing.sequence import pad_sequences
from tensorfleet.keras.progbar import (Progbar, disable_interactive_logging,
    enable_interactive_logging, is_interactive_logging_enabled)
from tensorfleet.keras.utils import get_file, normalize, to_categorical, to_ordinal

from tensorfleet.api import keras_utils_legacy as legacy

__all__ = ["array_to_img", "custom_object_scope", "CustomObjectScope",
           "deserialize_keras_object", "disable_interactive_logging",
           "enable_interactive_logging", "GeneratorEnqueuer", "get_custom_objects",
           "get_file", "get_registered_name", "get_registered_object", "get_source_inputs",
           "img_to_array", "is_interactive_logging_enabled", "legacy", "load_img",
           "normalize", "OrderedEnqueuer", "pad_sequences", "Progbar",
           "register_keras_serializable", "save_img", "Sequence", "SequenceEnqueuer",
           "serialize_keras_object", "to_categorical", "to_ordinal"]
