"""tf.data.experimental unique, take_while, Counter, enumerate_dataset and
get_single_element."""

import numpy as np
import pytest

import tensorfleet as tf
from tests.data.drain import drain

E = tf.data.experimental


def test_unique_and_take_while():
    values = np.array([3, 1, 3, 2, 1, 5], np.int64)
    ds = tf.data.Dataset.from_tensor_slices(values)
    assert drain(ds.apply(E.unique())) == [3, 1, 2, 5]
    assert drain(tf.data.Dataset.from_tensor_slices(["b", "a", "b"]).apply(E.unique())) == \
        [b"b", b"a"]
    assert drain(ds.apply(E.take_while(lambda x: x < 5)).apply(E.take_while(
        lambda x: x > 0))) == [3, 1, 3, 2, 1]
    assert drain(ds.apply(E.take_while(lambda x: x > 2))) == [3]
    with pytest.raises(TypeError, match="one int32, int64 or string scalar"):
        tf.data.Dataset.from_tensor_slices(np.zeros((2, 2))).apply(E.unique())
    with pytest.raises(ValueError, match="scalar bool"):
        ds.apply(E.take_while(lambda x: x))
    with tf.Session() as s:
        assert s.run(E.cardinality(ds.apply(E.unique()))) == E.UNKNOWN_CARDINALITY


def test_counter_and_enumerate():
    assert drain(E.Counter().take(3)) == [0, 1, 2]
    got = drain(E.Counter(5, -2, tf.float32).take(3))
    assert got == [5.0, 3.0, 1.0] and got[0].dtype == np.float32
    pairs = drain(tf.data.Dataset.from_tensor_slices([b"x", b"y"]).apply(
        E.enumerate_dataset(10)))
    assert pairs == [(10, b"x"), (11, b"y")]
    with pytest.raises(tf.errors.InvalidArgumentError, match="step"):
        E.Counter(0, 0)


def test_get_single_element_runs_again_each_step_and_checks_the_count():
    g = E.get_single_element(tf.data.Dataset.from_tensors((np.int64(4), np.array([1., 2.]))))
    with tf.Session() as s:
        for _ in range(2):
            n, v = s.run(g)
            assert n == 4
            np.testing.assert_array_equal(v, [1.0, 2.0])
        with pytest.raises(tf.errors.InvalidArgumentError, match="exactly one"):
            s.run(E.get_single_element(tf.data.Dataset.range(3)))
        with pytest.raises(tf.errors.OutOfRangeError):
            s.run(E.get_single_element(tf.data.Dataset.range(0)))
    with pytest.raises(TypeError, match="Dataset"):
        E.get_single_element([1])


def test_get_output_classes():
    d = tf.data.Dataset.from_tensor_slices(({"a": [1, 2]}, [3, 4]))
    assert tf.data.get_output_classes(d) == ({"a": tf.Tensor}, tf.Tensor)
    assert tf.data.get_output_classes(d.make_one_shot_iterator()) == ({"a": tf.Tensor},
                                                                       tf.Tensor)
