"""``tf.nn.dilation2d`` / ``erosion2d`` against a direct numpy loop (with gradients
numerically), ``tf.nn.with_space_to_batch`` against the dilated convolution it computes,
and ``tf.nn.ctc_beam_search_decoder_v2``."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

RNG = np.random.RandomState(0)


def _run(*ts):
    with tf.Session() as s:
        return s.run(list(ts))


def _dilate_ref(x, f, stride, rate, padding):
    b, h, w, c = x.shape
    kh, kw, _ = f.shape
    eh, ew = (kh - 1) * rate + 1, (kw - 1) * rate + 1
    if padding == "VALID":
        oh, ow, top, left = (h - eh) // stride + 1, (w - ew) // stride + 1, 0, 0
    else:
        oh, ow = -(-h // stride), -(-w // stride)
        top = max((oh - 1) * stride + eh - h, 0) // 2
        left = max((ow - 1) * stride + ew - w, 0) // 2
    out = np.full((b, oh, ow, c), -np.inf)
    for y in range(oh):
        for z in range(ow):
            for i in range(kh):
                for j in range(kw):
                    yy, zz = y * stride + i * rate - top, z * stride + j * rate - left
                    if 0 <= yy < h and 0 <= zz < w:
                        out[:, y, z] = np.maximum(out[:, y, z], x[:, yy, zz] + f[i, j])
    return out


@pytest.mark.parametrize("stride, rate, padding", [(1, 1, "SAME"), (2, 1, "VALID"),
                                                   (1, 2, "SAME"), (2, 2, "VALID")])
def test_dilation_and_erosion(stride, rate, padding):
    x = RNG.randn(2, 6, 5, 2)
    f = RNG.randn(2, 3, 2) * 0.1
    s, r = [1, stride, stride, 1], [1, rate, rate, 1]
    d, e = _run(tf.nn.dilation2d(x, f, s, r, padding), tf.nn.erosion2d(x, f, s, r, padding))
    np.testing.assert_allclose(d, _dilate_ref(x, f, stride, rate, padding), rtol=1e-12)
    np.testing.assert_allclose(e, -_dilate_ref(-x, f[::-1, ::-1], stride, rate, padding),
                               rtol=1e-12)
    check_gradients(lambda a, b: tf.nn.dilation2d(a, b, s, r, padding), [x, f], delta=1e-6)


def test_with_space_to_batch_is_a_dilated_convolution():
    x = RNG.randn(1, 9, 8, 2)
    f = RNG.randn(3, 3, 2, 3)
    for padding in ("SAME", "VALID"):
        got = tf.nn.with_space_to_batch(
            x, [2, 2], padding, lambda inp, n, pad: tf.nn.conv2d(inp, f, [1, 1, 1, 1], pad),
            filter_shape=[3, 3])
        want = tf.nn.conv2d(x, f, [1, 1, 1, 1], padding, dilations=[1, 2, 2, 1])
        a, b = _run(got, want)
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="filter_shape"):
        tf.nn.with_space_to_batch(x, [2, 2], "SAME", lambda i, n, p: i)


def test_ctc_beam_search_decoder_v2_keeps_repeats():
    # Frames favour 1, blank, 1: the best path decodes to the label sequence [1, 1].
    probs = np.array([[[0.1, 0.8, 0.1]], [[0.1, 0.1, 0.8]], [[0.1, 0.8, 0.1]]])
    (decoded,), logp = tf.nn.ctc_beam_search_decoder_v2(np.log(probs).astype(np.float32),
                                                        [3], beam_width=4)
    dense, = _run(tf.sparse.to_dense(decoded))
    np.testing.assert_array_equal(dense, [[1, 1]])
