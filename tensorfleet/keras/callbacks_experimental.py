"""``tf.keras.callbacks.experimental``: the dynamic-embedding refresh callback."""

from tensorfleet.keras.embedding_update_callback import UpdateEmbeddingCallback

__all__ = ["UpdateEmbeddingCallback"]
