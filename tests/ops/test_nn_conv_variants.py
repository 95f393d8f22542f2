"""Transposed, depthwise, separable, atrous, 1-D and 3-D convolutions and 3-D pooling:
values against numpy loop references, numerical gradients, error cases."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

RNG = np.random.RandomState(7)


def run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def rnd(*shape):
    return RNG.uniform(-1.0, 1.0, shape)


def _pad_before(size, k, s, padding, d=1):
    eff = (k - 1) * d + 1
    if padding == "VALID":
        return (size - eff) // s + 1, 0
    out = -(-size // s)
    return out, max((out - 1) * s + eff - size, 0) // 2


def ref_conv_nd(x, w, strides, padding, dil=None):
    """Loop reference of an N-d channels-last cross-correlation (x [N, *S, C])."""
    nd = x.ndim - 2
    dil = dil or [1] * nd
    geo = [_pad_before(x.shape[i + 1], w.shape[i], strides[i], padding, dil[i])
           for i in range(nd)]
    out = np.zeros((x.shape[0], *[g[0] for g in geo], w.shape[-1]))
    for pos in np.ndindex(*[g[0] for g in geo]):
        for tap in np.ndindex(*w.shape[:nd]):
            src = [pos[i] * strides[i] + tap[i] * dil[i] - geo[i][1] for i in range(nd)]
            if all(0 <= src[i] < x.shape[i + 1] for i in range(nd)):
                out[(slice(None), *pos)] += x[(slice(None), *src)] @ w[tap]
    return out


def ref_conv_transpose(x, w, out_shape, stride, padding):
    """Loop reference: every input pixel scatters ``x[n,i,j] @ w[a,b].T`` into the output."""
    n, oh, ow, co = out_shape
    kh, kw = w.shape[:2]
    _, pt = _pad_before(oh, kh, stride, padding)
    _, pl = _pad_before(ow, kw, stride, padding)
    out = np.zeros(out_shape)
    for i in range(x.shape[1]):
        for j in range(x.shape[2]):
            for a in range(kh):
                for b in range(kw):
                    r, c = i * stride + a - pt, j * stride + b - pl
                    if 0 <= r < oh and 0 <= c < ow:
                        out[:, r, c] += x[:, i, j] @ w[a, b].T
    return out


def ref_depthwise(x, w, stride, padding, rate=1):
    kh, kw, c, m = w.shape
    cols = [ref_conv_nd(x[..., ch:ch + 1], w[:, :, ch:ch + 1, :], [stride] * 2, padding,
                        [rate] * 2) for ch in range(c)]
    return np.concatenate(cols, axis=-1)


@pytest.mark.parametrize("padding,stride,k,in_hw", [("SAME", 2, 3, 5), ("VALID", 2, 3, 5),
                                                    ("SAME", 1, 2, 4), ("VALID", 3, 2, 3)])
def test_conv2d_transpose_matches_reference_and_is_the_gradient_of_conv2d(padding, stride, k,
                                                                          in_hw):
    x = rnd(2, in_hw, in_hw, 3)
    w = rnd(k, k, 4, 3)
    oh = in_hw * stride if padding == "SAME" else in_hw * stride + max(k - stride, 0)
    out_shape = [2, oh, oh, 4]
    y = tf.nn.conv2d_transpose(x, w, out_shape, [1, stride, stride, 1], padding)
    assert y.shape.as_list() == out_shape and y.name == "conv2d_transpose:0"
    got = run(y)
    np.testing.assert_allclose(got, ref_conv_transpose(x, w, out_shape, stride, padding),
                               atol=1e-10)
    # The transposed convolution is the input gradient of the forward one.
    xin = tf.placeholder(tf.float64, out_shape)
    fwd = tf.nn.conv2d(xin, w, [1, stride, stride, 1], padding)
    (back,) = tf.gradients(fwd, [xin], grad_ys=[tf.constant(x)])
    np.testing.assert_allclose(run(back, {xin: np.zeros(out_shape)}), got, atol=1e-10)
    check_gradients(lambda a, b: tf.nn.conv2d_transpose(a, b, out_shape,
                                                        [1, stride, stride, 1], padding),
                    [x, w])


def test_conv2d_transpose_dynamic_output_shape_nchw_and_errors():
    x, w = rnd(1, 3, 3, 2), rnd(3, 3, 5, 2)
    ph = tf.placeholder(tf.float64, [None, 3, 3, 2])
    shape = tf.stack([tf.shape(ph)[0], 6, 6, 5])
    y = tf.nn.conv2d_transpose(ph, w, shape, [1, 2, 2, 1], "SAME")
    assert y.shape.as_list() == [None, 6, 6, 5]
    ref = ref_conv_transpose(x, w, [1, 6, 6, 5], 2, "SAME")
    np.testing.assert_allclose(run(y, {ph: x}), ref, atol=1e-10)
    xc = np.transpose(x, [0, 3, 1, 2])
    yc = tf.nn.conv2d_transpose(xc, w, [1, 5, 6, 6], [1, 1, 2, 2], "SAME", data_format="NCHW")
    np.testing.assert_allclose(run(yc), np.transpose(ref, [0, 3, 1, 2]), atol=1e-10)
    with pytest.raises(ValueError, match="channels"):
        tf.nn.conv2d_transpose(x, rnd(3, 3, 5, 4), [1, 6, 6, 5], [1, 2, 2, 1], "SAME")
    with pytest.raises(ValueError, match="out_channels"):
        tf.nn.conv2d_transpose(x, w, [1, 6, 6, 4], [1, 2, 2, 1], "SAME")
    with pytest.raises(ValueError, match="spatial size"):
        tf.nn.conv2d_transpose(x, w, [1, 9, 9, 5], [1, 2, 2, 1], "SAME")
    with pytest.raises(ValueError, match="padding"):
        tf.nn.conv2d_transpose(x, w, [1, 6, 6, 5], [1, 2, 2, 1], "FULL")


@pytest.mark.parametrize("padding,stride,rate", [("SAME", 1, 1), ("VALID", 2, 1),
                                                 ("SAME", 2, 1), ("VALID", 1, 2)])
def test_depthwise_conv2d_values_and_gradients(padding, stride, rate):
    x, w = rnd(2, 6, 5, 3), rnd(3, 2, 3, 2)
    y = tf.nn.depthwise_conv2d(x, w, [1, stride, stride, 1], padding, rate=[rate, rate])
    got = run(y)
    assert list(got.shape) == y.shape.as_list()
    np.testing.assert_allclose(got, ref_depthwise(x, w, stride, padding, rate), atol=1e-10)
    check_gradients(lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, stride, stride, 1], padding,
                                                        rate=[rate, rate]), [x, w])


def test_separable_and_atrous_conv2d():
    x, dw, pw = rnd(1, 5, 5, 2), rnd(3, 3, 2, 2), rnd(1, 1, 4, 3)
    y = run(tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "SAME"))
    np.testing.assert_allclose(y, ref_conv_nd(ref_depthwise(x, dw, 1, "SAME"), pw, [1, 1],
                                              "VALID"), atol=1e-10)
    check_gradients(lambda a, b, c: tf.nn.separable_conv2d(a, b, c, [1, 1, 1, 1], "VALID"),
                    [x, dw, pw])
    w = rnd(2, 2, 2, 3)
    np.testing.assert_allclose(run(tf.nn.atrous_conv2d(x, w, 2, "SAME")),
                               ref_conv_nd(x, w, [1, 1], "SAME", [2, 2]), atol=1e-10)
    with pytest.raises(ValueError, match="pointwise"):
        tf.nn.separable_conv2d(x, dw, rnd(2, 1, 4, 3), [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="strides must be 1"):
        tf.nn.depthwise_conv2d(x, dw, [1, 2, 2, 1], "SAME", rate=2)


@pytest.mark.parametrize("padding,stride", [("SAME", 1), ("VALID", 2), ("SAME", 2)])
def test_conv1d(padding, stride):
    x, w = rnd(2, 7, 3), rnd(3, 3, 4)
    y = tf.nn.conv1d(x, w, stride, padding)
    got = run(y)
    assert list(got.shape) == y.shape.as_list()
    np.testing.assert_allclose(got, ref_conv_nd(x, w, [stride], padding), atol=1e-10)
    ncw = run(tf.nn.conv1d(np.transpose(x, [0, 2, 1]), w, stride, padding, data_format="NCW"))
    np.testing.assert_allclose(ncw, np.transpose(got, [0, 2, 1]), atol=1e-10)
    check_gradients(lambda a, b: tf.nn.conv1d(a, b, stride, padding), [x, w])


@pytest.mark.parametrize("padding,strides", [("SAME", [1, 1, 1]), ("VALID", [2, 1, 2]),
                                             ("SAME", [2, 2, 1])])
def test_conv3d_values_and_gradients(padding, strides):
    x, w = rnd(2, 4, 5, 4, 2), rnd(2, 3, 2, 2, 3)
    y = tf.nn.conv3d(x, w, [1, *strides, 1], padding)
    got = run(y)
    assert list(got.shape) == y.shape.as_list()
    np.testing.assert_allclose(got, ref_conv_nd(x, w, strides, padding), atol=1e-10)
    check_gradients(lambda a, b: tf.nn.conv3d(a, b, [1, *strides, 1], padding), [x, w])


def ref_pool3d(x, k, s, padding, mode):
    geo = [_pad_before(x.shape[i + 1], k[i], s[i], padding) for i in range(3)]
    out = np.zeros((x.shape[0], *[g[0] for g in geo], x.shape[-1]))
    for pos in np.ndindex(*[g[0] for g in geo]):
        sl = [slice(max(pos[i] * s[i] - geo[i][1], 0), pos[i] * s[i] - geo[i][1] + k[i])
              for i in range(3)]
        win = x[(slice(None), *sl)]
        out[(slice(None), *pos)] = (win.max(axis=(1, 2, 3)) if mode == "max"
                                    else win.mean(axis=(1, 2, 3)))
    return out


@pytest.mark.parametrize("mode", ["max", "avg"])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_pool3d_values_and_gradients(mode, padding):
    # Distinct values spaced wider than the checker's step, so no window has a near tie.
    x = RNG.permutation(240).reshape(2, 4, 5, 3, 2) * 0.01
    fn = tf.nn.max_pool3d if mode == "max" else tf.nn.avg_pool3d
    k, s = [2, 3, 2], [2, 1, 2]
    np.testing.assert_allclose(run(fn(x, [1, *k, 1], [1, *s, 1], padding)),
                               ref_pool3d(x, k, s, padding, mode), atol=1e-12)
    check_gradients(lambda a: fn(a, [1, *k, 1], [1, *s, 1], padding), [x])


def test_conv_more_errors():
    with pytest.raises(ValueError, match="NDHWC"):
        tf.nn.conv3d(rnd(1, 2, 2, 2, 1), rnd(1, 1, 1, 1, 1), [1, 1, 1, 1, 1], "SAME",
                     data_format="NCDHW")
    with pytest.raises(ValueError, match="rank 5"):
        tf.nn.max_pool3d(rnd(1, 2, 2, 1), [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="in_channels"):
        tf.nn.depthwise_conv2d(rnd(1, 3, 3, 2), rnd(2, 2, 3, 1), [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="data_format"):
        tf.nn.conv1d(rnd(1, 3, 2), rnd(1, 2, 2), 1, "SAME", data_format="NHC")
    with pytest.raises(ValueError, match="spatial size"):
        tf.nn.conv2d_transpose(rnd(1, 3, 3, 2), rnd(2, 2, 1, 2), tf.constant([1, 5, 5, 1]),
                               [1, 2, 2, 1], "VALID")
    # An output shape known only at run time is checked by the kernel.
    x = tf.placeholder(tf.float64, [1, 3, 3, 2])
    shape = tf.placeholder(tf.int32, [4])
    y = tf.nn.conv2d_transpose(x, rnd(2, 2, 1, 2), shape, [1, 2, 2, 1], "VALID")
    assert run(y, {x: rnd(1, 3, 3, 2), shape: [1, 6, 6, 1]}).shape == (1, 6, 6, 1)
    with pytest.raises(tf.errors.InvalidArgumentError):
        run(y, {x: rnd(1, 3, 3, 2), shape: [1, 5, 5, 1]})


@pytest.mark.parametrize("padding,stride", [("SAME", 2), ("VALID", 1)])
def test_conv2d_second_derivatives(padding, stride):
    x, w = rnd(1, 5, 5, 2), rnd(3, 3, 2, 3)
    out = ref_conv_nd(x, w, [stride] * 2, padding)
    dy = rnd(*out.shape)
    s = [1, stride, stride, 1]
    check_gradients(lambda a, b: tf.nn.conv2d_backprop_filter(a, [3, 3, 2, 3], b, s, padding),
                    [x, dy])
    # Gradient of a gradient: d/dx of sum(dL/dw * c) through conv2d.
    check_gradients(lambda a, b: tf.gradients(tf.reduce_sum(tf.nn.conv2d(a, b, s, padding)
                                                            ** 2), [b])[0], [x, w])
