"""``tf.keras.saving``: model files and the registry of custom objects."""

from tensorfleet.keras.model_saving import load_model, save_model
from tensorfleet.keras.object_registry import (custom_object_scope, deserialize_keras_object,
                                               get_custom_objects, get_registered_name,
                                               get_registered_object,
                                               register_keras_serializable,
                                               serialize_keras_object)

__all__ = ["load_model", "save_model", "custom_object_scope", "deserialize_keras_object",
           "get_custom_objects", "get_registered_name", "get_registered_object",
           "register_keras_serializable", "serialize_keras_object"]
