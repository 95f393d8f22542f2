"""``tf.keras.export``: SavedModel archives of Keras models for serving."""

from tensorfleet.keras.export_archive import ExportArchive

__all__ = ["ExportArchive"]
