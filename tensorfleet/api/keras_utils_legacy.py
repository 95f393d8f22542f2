"""``tf.keras.utils.legacy``: object serialization in the TF 1.x config format."""

from tensorfleet.keras.object_config import (
    legacy_deserialize_keras_object as deserialize_keras_object,
    legacy_serialize_keras_object as serialize_keras_object)

__all__ = ["deserialize_keras_object", "serialize_keras_object"]
