"""A fed value is never changed silently on its way to the placeholder's dtype."""

import numpy as np
import pytest

import tensorfleet as tf


@pytest.fixture
def sess():
    g = tf.Graph()
    with g.as_default():
        s = tf.Session()
        yield s, g
        s.close()


@pytest.mark.parametrize("value", [[3e9], [2 ** 40], np.array([2 ** 40], np.int64),
                                   np.array([2 ** 63], np.uint64), [-3e9]])
def test_an_int32_feed_out_of_range_is_refused_naming_the_tensor(sess, value):
    s, g = sess
    with g.as_default():
        y = tf.placeholder(tf.int32, [None], name="counts")
    with pytest.raises(ValueError, match=r"Tensor 'counts:0' of dtype int32: it does not fit"):
        s.run(y, {y: value})


def test_an_integer_too_large_for_any_dtype_is_refused(sess):
    s, g = sess
    with g.as_default():
        y = tf.placeholder(tf.int32, [None], name="counts")
    with pytest.raises(TypeError, match="an integer too large for int64 to Tensor 'counts:0'"):
        s.run(y, {y: [2 ** 1000]})


def test_the_bounds_themselves_are_fed_exactly(sess):
    s, g = sess
    with g.as_default():
        y = tf.placeholder(tf.int32, [None])
        z = tf.placeholder(tf.int64, [None])
    np.testing.assert_array_equal(s.run(y, {y: [-2 ** 31, 2 ** 31 - 1]}), [-2 ** 31, 2 ** 31 - 1])
    np.testing.assert_array_equal(s.run(y, {y: np.array([2.0 ** 31 - 1])}), [2 ** 31 - 1])
    np.testing.assert_array_equal(s.run(z, {z: [2 ** 63 - 1]}), [2 ** 63 - 1])
    with pytest.raises(ValueError, match="int64: it does not fit"):
        s.run(z, {z: [2.0 ** 63]})


def test_a_string_fed_to_a_float_says_string_not_numpy_kind(sess):
    s, g = sess
    with g.as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
    with pytest.raises(TypeError) as e:
        s.run(x, {x: ["a"]})
    assert "Cannot feed a string to Tensor 'x:0' of dtype float32" in str(e.value)
    assert "<U1" not in str(e.value)


def test_a_shape_too_large_for_int32_is_not_wrapped():
    g = tf.Graph()
    with g.as_default():
        z = tf.zeros([2 ** 40])
        assert z.shape.as_list() == [2 ** 40]  # before: (0,), a size wrapped modulo 2**32
        assert tf.constant([2 ** 40]).dtype == tf.int64
        with pytest.raises(ValueError, match="int32: it does not fit"):
            tf.constant([2 ** 40], dtype=tf.int32)
        with open("/proc/sys/vm/overcommit_memory") as f:
            always = f.read().strip() == "1"
        if not always:  # with overcommit always on, 4 TiB would be granted and touched
            with tf.Session() as s:
                with pytest.raises(tf.errors.ResourceExhaustedError, match="OOM"):
                    s.run(z)
