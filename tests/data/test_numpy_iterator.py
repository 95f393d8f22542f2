"""tf.data.NumpyIterator: a data set's elements as numpy values in a Python loop."""

import numpy as np
import pytest

import tensorfleet as tf


def test_numpy_iterator_yields_every_element_then_stops():
    ds = tf.data.Dataset.from_tensor_slices({"a": [1, 2, 3]}).map(
        lambda d: {"a": d["a"] * 2, "b": tf.cast(d["a"], tf.float32)})
    got = list(tf.data.NumpyIterator(ds))
    assert [e["a"] for e in got] == [2, 4, 6]
    assert all(isinstance(e["b"], np.float32) for e in got)
    it = tf.data.NumpyIterator(tf.data.Dataset.range(3).batch(2))
    assert next(it).tolist() == [0, 1]
    assert it.next().tolist() == [2]
    assert list(it) == [] and list(it) == []
    # The pipeline lives in a graph of its own: the default graph is untouched.
    with tf.Graph().as_default() as g:
        list(tf.data.NumpyIterator(tf.data.Dataset.range(2)))
        assert g.get_operations() == []
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        tf.data.NumpyIterator([1, 2])
