"""``tf.compat.forward_compatible`` and its horizon, ``dimension_at_index`` and
``dimension_value``."""

import pytest

import tensorfleet as tf


def test_forward_compatible_follows_the_horizon(monkeypatch):
    monkeypatch.delenv("TF_FORWARD_COMPATIBILITY_DELTA_DAYS", raising=False)
    assert tf.compat.forward_compatible(2019, 6, 1)
    assert not tf.compat.forward_compatible(2040, 1, 1)
    with tf.compat.forward_compatibility_horizon(2040, 1, 2):
        assert tf.compat.forward_compatible(2040, 1, 1)
        assert not tf.compat.forward_compatible(2040, 1, 2)
    assert not tf.compat.forward_compatible(2040, 1, 1)
    monkeypatch.setenv("TF_FORWARD_COMPATIBILITY_DELTA_DAYS", str(366 * 20))
    assert tf.compat.forward_compatible(2040, 1, 1)
    with pytest.raises(ValueError, match="not a date"):
        tf.compat.forward_compatible(2020, 13, 1)


def test_dimension_at_index_and_value():
    d = tf.compat.dimension_at_index(tf.TensorShape([2, None]), 0)
    assert isinstance(d, tf.Dimension) and tf.compat.dimension_value(d) == 2
    assert tf.dimension_value(tf.dimension_at_index([2, None], -1)) is None
    assert tf.compat.dimension_value(tf.compat.dimension_at_index(None, 7)) is None
    assert tf.compat.dimension_value(5) == 5
    with pytest.raises(IndexError, match="out of range"):
        tf.compat.dimension_at_index([1, 2], 2)
