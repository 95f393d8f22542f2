"""``tf.quantize`` / ``quantize_v2`` / ``dequantize`` / ``quantized_concat`` in the
MIN_COMBINED and SCALED modes, against figures TensorFlow 2.21 gives for the same inputs."""

import numpy as np
import pytest

import tensorfleet as tf

X = np.array([-1.5, -0.3, 0, 0.26, 0.5, 1.2, 3], np.float32)
# (T, mode) -> (quantized, output_min, output_max, dequantized), from TensorFlow 2.21.
WANT = {
    ("qint8", "MIN_COMBINED"): ([-128, -69, -43, -21, -1, 59, 127], -1.0, 2.0,
                                [-1.0, -0.30588233, 0.0, 0.25882351, 0.49411762, 1.2, 2.0]),
    ("qint8", "SCALED"): ([-95, -19, 0, 17, 32, 76, 127], -2.015748, 2.0,
                          [-1.496063, -0.2992126, 0.0, 0.26771653, 0.503937, 1.1968504, 2.0]),
    ("quint8", "MIN_COMBINED"): ([0, 60, 85, 107, 128, 187, 255], -1.0, 2.0,
                                 [-1.0, -0.29411763, 0.0, 0.25882351, 0.50588238, 1.2, 2.0]),
    ("quint8", "SCALED"): ([0, 0, 0, 33, 64, 153, 255], 0.0, 2.0,
                           [0.0, 0.0, 0.0, 0.25882354, 0.50196081, 1.2, 2.0]),
}


def _run(*ts):
    with tf.Session() as s:
        return s.run(list(ts))


@pytest.mark.parametrize("key", sorted(WANT))
def test_quantize_and_dequantize_match_tensorflow(key):
    t, mode = key
    q = tf.quantize(X, -1.0, 2.0, getattr(tf, t), mode=mode)
    assert q.output.dtype is getattr(tf, t)
    out, lo, hi, back = _run(q.output, q.output_min, q.output_max,
                             tf.dequantize(q.output, q.output_min, q.output_max, mode=mode))
    want = WANT[key]
    np.testing.assert_array_equal(out.astype(int), want[0])
    np.testing.assert_allclose([lo, hi], want[1:3], rtol=1e-6)
    np.testing.assert_allclose(back, want[3], rtol=1e-5, atol=1e-7)


def test_narrow_range_concat_and_errors():
    q = tf.quantize_v2(X, -1.0, 2.0, tf.qint8, mode="SCALED", narrow_range=True,
                       round_mode="HALF_TO_EVEN")
    out, lo, hi = _run(*q)
    np.testing.assert_array_equal(out.astype(int), [-95, -19, 0, 17, 32, 76, 127])
    np.testing.assert_allclose([lo, hi], [-2.0, 2.0])
    a = tf.quantize(np.array([0.0, 1.0], np.float32), 0.0, 1.0, tf.quint8)
    b = tf.quantize(np.array([0.0, 2.0], np.float32), 0.0, 2.0, tf.quint8)
    c = tf.quantized_concat(0, [a.output, b.output], [a.output_min, b.output_min],
                            [a.output_max, b.output_max])
    vals, lo, hi = _run(*c)
    np.testing.assert_array_equal(vals.astype(int), [0, 128, 0, 255])
    assert (lo, hi) == (0.0, 2.0)
    with pytest.raises(ValueError, match="MIN_FIRST"):
        tf.quantize(X, 0.0, 1.0, tf.quint8, mode="MIN_FIRST")
    with pytest.raises(TypeError, match="quantized type"):
        tf.quantize(X, 0.0, 1.0, tf.int8)
    with pytest.raises(ValueError, match="axis"):
        tf.dequantize(a.output, 0.0, 1.0, axis=0)
