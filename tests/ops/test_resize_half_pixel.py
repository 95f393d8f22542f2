"""Resizes with ``half_pixel_centers=True`` sample pixel centres, as TensorFlow does
(values and gradients below are TensorFlow 2.21's ``compat.v1`` results)."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

IMG = np.arange(15, dtype=np.float32).reshape(1, 3, 5, 1)

BILINEAR = {
    (5, 3): [[0.33333, 2.0, 3.66667], [2.33333, 4.0, 5.66667], [5.33333, 7.0, 8.66667],
             [8.33333, 10.0, 11.66667], [10.33333, 12.0, 13.66667]],
    (2, 7): [[1.25, 1.82143, 2.53571, 3.25, 3.96429, 4.67857, 5.25],
             [8.75, 9.32143, 10.03571, 10.75, 11.46429, 12.17857, 12.75]],
}
NEAREST = {
    (5, 3): [[0, 2, 4], [0, 2, 4], [5, 7, 9], [10, 12, 14], [10, 12, 14]],
    (2, 7): [[0, 1, 1, 2, 3, 3, 4], [10, 11, 11, 12, 13, 13, 14]],
}


@pytest.mark.parametrize("size", [(5, 3), (2, 7)])
def test_values_match_tensorflow(size):
    with tf.Session() as sess:
        b, n = sess.run([
            tf.image.resize_bilinear(IMG, list(size), half_pixel_centers=True),
            tf.image.resize_nearest_neighbor(IMG, list(size), half_pixel_centers=True)])
    np.testing.assert_allclose(b[0, :, :, 0], BILINEAR[size], atol=1e-5)
    np.testing.assert_array_equal(n[0, :, :, 0], NEAREST[size])


def test_gradients_match_tensorflow():
    x = tf.constant(IMG)
    yb = tf.image.resize_bilinear(x, [5, 3], half_pixel_centers=True)
    yn = tf.image.resize_nearest_neighbor(x, [2, 7], half_pixel_centers=True)
    wb = np.arange(15, dtype=np.float32).reshape(1, 5, 3, 1)
    wn = np.arange(14, dtype=np.float32).reshape(1, 2, 7, 1)
    with tf.Session() as sess:
        gb, gn = sess.run([tf.gradients(tf.reduce_sum(yb * wb), x)[0],
                           tf.gradients(tf.reduce_sum(yn * wn), x)[0]])
    np.testing.assert_allclose(gb[0, :, :, 0], [
        [1.2, 0.6, 3.4, 1.66667, 3.33333], [7.2, 3.6, 12.6, 4.8, 9.6],
        [11.6, 5.8, 19.0, 6.86667, 13.73333]], atol=1e-4)
    np.testing.assert_array_equal(gn[0, :, :, 0], [
        [0, 3, 3, 9, 6], [0, 0, 0, 0, 0], [7, 17, 10, 23, 13]])


def test_bilinear_gradient_is_numerically_right():
    img = np.random.RandomState(0).rand(1, 4, 3, 2)
    check_gradients(lambda im: tf.image.resize_bilinear(im, [7, 5], half_pixel_centers=True),
                    [img], delta=0.25)


def test_unsupported_combinations_say_so():
    with pytest.raises(ValueError, match="align_corners must be False"):
        tf.image.resize_bilinear(IMG, [2, 2], align_corners=True, half_pixel_centers=True)
    with pytest.raises(ValueError, match="ResizeBicubic: half_pixel_centers=True"):
        tf.image.resize_bicubic(IMG, [2, 2], half_pixel_centers=True)
