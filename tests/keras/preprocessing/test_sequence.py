"""tf.keras.preprocessing.sequence: skip-gram pairs, the sampling table, and windows over a
time series."""

import numpy as np
import pytest

import tensorfleet as tf

seq = tf.keras.preprocessing.sequence


def test_skipgrams_pairs_each_word_with_its_window():
    couples, labels = seq.skipgrams([1, 2, 3], vocabulary_size=4, window_size=1,
                                    negative_samples=0, shuffle=False)
    assert couples == [[1, 2], [2, 1], [2, 3], [3, 2]] and labels == [1, 1, 1, 1]
    couples, labels = seq.skipgrams([1, 0, 3, 4], 10, window_size=2, negative_samples=1.0,
                                    seed=3)
    assert len(couples) == 8 and sorted(labels) == [0] * 4 + [1] * 4
    for (w, c), label in zip(couples, labels):
        assert 1 <= c < 10 and w in (1, 3, 4)
    again = seq.skipgrams([1, 0, 3, 4], 10, window_size=2, seed=3)
    assert again == (couples, labels)  # the seed makes it repeatable
    _, cat = seq.skipgrams([1, 2], 3, window_size=1, negative_samples=0, categorical=True)
    assert cat == [[0, 1], [0, 1]]


def test_make_sampling_table_follows_zipf():
    table = seq.make_sampling_table(5, sampling_factor=1e-5)
    rank = np.array([1, 1, 2, 3, 4], dtype=float)
    f = 1e-5 * (rank * (np.log(rank) + 0.577) + 0.5 - 1 / (12 * rank))
    np.testing.assert_allclose(table, np.minimum(1, f / np.sqrt(f)))
    assert np.all(np.diff(table[1:]) > 0)  # rarer words are kept more often


def test_timeseries_generator_windows_and_targets():
    data = np.arange(20).reshape(10, 2)
    targets = np.arange(10) * 10
    gen = seq.TimeseriesGenerator(data, targets, length=3, sampling_rate=1, batch_size=2)
    assert len(gen) == 4
    x, y = gen[0]
    np.testing.assert_array_equal(x, [data[0:3], data[1:4]])
    np.testing.assert_array_equal(y, [30, 40])
    x, y = gen[3]
    np.testing.assert_array_equal(y, [90])  # the last batch holds what is left
    rev = seq.TimeseriesGenerator(data, targets, length=4, sampling_rate=2, stride=3,
                                  reverse=True, batch_size=8)
    x, y = rev[0]
    np.testing.assert_array_equal(x[0], data[[2, 0]])
    np.testing.assert_array_equal(y, [40, 70])
    assert isinstance(gen, tf.keras.utils.Sequence) and len(list(gen)) == 4
    with pytest.raises(ValueError, match="same length"):
        seq.TimeseriesGenerator(data, targets[:5], length=3)
    with pytest.raises(ValueError, match="disallowed"):
        seq.TimeseriesGenerator(data, targets, length=10)
