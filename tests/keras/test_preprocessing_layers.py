"""Keras preprocessing layers: values against numpy; Hashing against bins TensorFlow 2.21
gives (``tf.keras.layers.Hashing`` run on the same inputs)."""

import numpy as np
import pytest

import tensorfleet as tf

keras = tf.keras
K = keras.backend
pre = keras.layers.experimental.preprocessing


@pytest.fixture(autouse=True)
def _keras_session():
    yield
    K.clear_session()


def _run(layer, value, dtype=tf.float32):
    x = tf.placeholder(dtype, np.shape(value))
    return K.get_session().run(layer(x), {x: value})


def test_rescaling_center_crop_resizing():
    img = np.arange(2 * 5 * 6 * 1, dtype=np.float32).reshape(2, 5, 6, 1)
    np.testing.assert_allclose(_run(keras.layers.Rescaling(1 / 255.0, offset=-1), img),
                               img / 255.0 - 1, rtol=1e-6)
    np.testing.assert_array_equal(_run(keras.layers.CenterCrop(3, 2), img), img[:, 1:4, 2:4])
    up = _run(keras.layers.Resizing(10, 12, interpolation="nearest"), img)
    np.testing.assert_array_equal(up, img.repeat(2, axis=1).repeat(2, axis=2))
    row = np.array([0, 1, 2, 3], np.float32).reshape(1, 1, 4, 1)
    # TF 2's tf.image.resize(row, (1, 8)) (half-pixel centres, edges clamped).
    np.testing.assert_allclose(_run(keras.layers.Resizing(1, 8), row).ravel(),
                               [0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3], rtol=1e-6)
    with pytest.raises(ValueError, match="interpolation"):
        keras.layers.Resizing(2, 2, interpolation="lanczos5")
    with pytest.raises(ValueError, match="smaller"):
        _run(keras.layers.CenterCrop(6, 6), img)


def test_normalization_adapt_given_and_invert():
    rng = np.random.RandomState(0)
    data = rng.randn(50, 3).astype(np.float32) * [1, 2, 3] + [0, 5, -1]
    norm = pre.Normalization()
    norm.adapt(data)
    out = _run(norm, data)
    np.testing.assert_allclose(out.mean(0), 0, atol=1e-5)
    np.testing.assert_allclose(out.std(0), 1, rtol=1e-4)
    assert K.get_value(norm.count) == 50
    given = keras.layers.Normalization(mean=[1.0, 2.0], variance=[4.0, 1.0])
    np.testing.assert_allclose(_run(given, np.array([[3.0, 3.0]], np.float32)), [[1.0, 1.0]])
    inv = keras.layers.Normalization(mean=[1.0], variance=[4.0], invert=True)
    np.testing.assert_allclose(_run(inv, np.array([[1.0]], np.float32)), [[3.0]])
    with pytest.raises(ValueError, match="adapt"):
        _run(keras.layers.Normalization(), data)


def test_discretization_bins_and_adapt():
    values = np.array([[-1.5, 0.0, 0.2, 1.0, 7.0]], np.float32)
    out = _run(keras.layers.Discretization(bin_boundaries=[0.0, 1.0, 2.0]), values)
    np.testing.assert_array_equal(out, [[0, 1, 1, 2, 3]])
    d = keras.layers.Discretization(num_bins=4)
    d.adapt(np.arange(100, dtype=np.float32))
    np.testing.assert_allclose(d.bin_boundaries, np.quantile(np.arange(100), [.25, .5, .75]))
    with pytest.raises(ValueError, match="output_mode"):
        keras.layers.Discretization([0.0], output_mode="one_hot")


def test_hashing_matches_tensorflow_bins():
    words = np.array([b"a", b"b", b"c", b"dog"], object)
    np.testing.assert_array_equal(_run(keras.layers.Hashing(5), words, tf.string), [4, 2, 2, 2])
    masked = np.array([b"a", b"", b"c", b"dog"], object)
    np.testing.assert_array_equal(_run(keras.layers.Hashing(5, mask_value=""), masked,
                                       tf.string), [4, 0, 1, 1])
    ints = np.array([[1], [2], [37]], np.int64)
    np.testing.assert_array_equal(_run(keras.layers.Hashing(5), ints, tf.int64).ravel(),
                                  [4, 4, 0])
    np.testing.assert_array_equal(_run(keras.layers.Hashing(5, salt=[133, 137]), words,
                                       tf.string), [4, 2, 1, 4])


def test_category_encoding_modes():
    ids = np.array([[0, 1, 1], [3, 3, 3]], np.int32)
    count = _run(keras.layers.CategoryEncoding(4, output_mode="count"), ids, tf.int32)
    np.testing.assert_array_equal(count, [[1, 2, 0, 0], [0, 0, 0, 3]])
    multi = _run(keras.layers.CategoryEncoding(4), ids, tf.int32)
    np.testing.assert_array_equal(multi, [[1, 1, 0, 0], [0, 0, 0, 1]])
    one = _run(keras.layers.CategoryEncoding(3, output_mode="one_hot"),
               np.array([2, 0], np.int32), tf.int32)
    np.testing.assert_array_equal(one, [[0, 0, 1], [1, 0, 0]])
    with pytest.raises(ValueError, match="sparse"):
        keras.layers.CategoryEncoding(3, sparse=True)
