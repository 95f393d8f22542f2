"""``tf.keras.saving``: model files and the registry of custom objects."""

from tensorfleet.keras.model_saving import load_model, save_model
from tensorfleet.keras.object_registry import (custom_object_scope, get_custom_objects,
                                               get_registered_name, get_registered_object,
                                               register_keras_serializable)
# the {"class_name", "config"} form the model files of this namespace use
from tensorfleet.keras.object_config import (
    legacy_deserialize_keras_object as deserialize_keras_object,
    legacy_serialize_keras_object as serialize_keras_object)

__all__ = ["load_model", "save_model", "custom_object_scope", "deserialize_keras_object",
           "get_custom_objects", "get_registered_name", "get_registered_object",
           "register_keras_serializable", "serialize_keras_object"]
