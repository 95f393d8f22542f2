"""``tf.keras.datasets.imdb``: the IMDB reviews and word index from the Keras cache."""

from tensorfleet.keras.text_datasets import imdb_word_index as get_word_index
from tensorfleet.keras.text_datasets import load_imdb as load_data

__all__ = ["get_word_index", "load_data"]
