"""tf.data.experimental.ignore_errors (expected values from TensorFlow 2.21 on the same
pipelines)."""

import logging

import pytest

import tensorfleet as tf

E = tf.data.experimental


def _inverse(x):
    return tf.debugging.check_numerics(1.0 / x, "error")


def test_ignore_errors_matches_tensorflow(caplog):
    ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0, 0.0, 4.0]).map(_inverse)
    assert list(tf.data.NumpyIterator(ds.apply(E.ignore_errors()))) == [1.0, 0.5, 0.25]
    with caplog.at_level(logging.WARNING):
        assert list(tf.data.NumpyIterator(ds.apply(E.ignore_errors(log_warning=True)))) == [
            1.0, 0.5, 0.25]
    assert "dropped an element whose map failed" in caplog.text
    assert list(tf.data.NumpyIterator(ds.filter(lambda x: x > 0.3).apply(
        E.ignore_errors()))) == [1.0, 0.5]
    # A filter whose predicate fails drops that element too.
    pred = tf.data.Dataset.from_tensor_slices([1.0, 0.0, 4.0]).filter(
        lambda x: _inverse(x) > 0.0)
    assert list(tf.data.NumpyIterator(pred.apply(E.ignore_errors()))) == [1.0, 4.0]
    # A batch holding the failed element fails as a whole, ending the sequence.
    assert [b.tolist() for b in tf.data.NumpyIterator(ds.batch(2).apply(
        E.ignore_errors()))] == [[1.0, 0.5]]
    with tf.Graph().as_default(), tf.Session() as s:
        assert s.run(E.cardinality(ds.apply(E.ignore_errors()))) == E.UNKNOWN_CARDINALITY
    with pytest.raises(tf.errors.InvalidArgumentError):
        list(tf.data.NumpyIterator(ds))
    with pytest.raises(TypeError, match="log_warning"):
        E.ignore_errors(log_warning="yes")
