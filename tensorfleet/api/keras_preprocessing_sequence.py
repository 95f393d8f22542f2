"""``tf.keras.preprocessing.sequence``: padding, skip-gram pairs with their sampling
table, and windows over time series."""

from tensorfleet.keras.preprocessing.sequence import pad_sequences
from tensorfleet.keras.preprocessing.skipgrams import make_sampling_table, skipgrams
from tensorfleet.keras.preprocessing.timeseries_generator import TimeseriesGenerator

__all__ = ["make_sampling_table", "pad_sequences", "skipgrams", "TimeseriesGenerator"]
