"""``tf.keras.datasets.reuters``: the Reuters newswires, word index and topic names."""

from tensorfleet.keras.text_datasets import load_reuters as load_data
from tensorfleet.keras.text_datasets import reuters_label_names as get_label_names
from tensorfleet.keras.text_datasets import reuters_word_index as get_word_index

__all__ = ["get_label_names", "get_word_index", "load_data"]
