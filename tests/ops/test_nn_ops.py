"""nn ops: forward values against numpy references, numerical gradients, error cases."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.kernels.numpy import nn_conv_kernels
from tensorfleet.testing.gradient_checker import check_gradients

RNG = np.random.RandomState(1)


def run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def rnd(*shape, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, shape)


# -- numpy references (straightforward loops, small inputs only) --------------------------

def _pads(size, k, s, padding, d=1):
    eff = (k - 1) * d + 1
    if padding == "VALID":
        return (size - eff) // s + 1, 0
    out = -(-size // s)
    return out, max((out - 1) * s + eff - size, 0) // 2


def ref_conv2d(x, w, stride, padding, dil=1):
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    oh, pt = _pads(h, kh, stride, padding, dil)
    ow, pl = _pads(wd, kw, stride, padding, dil)
    out = np.zeros((n, oh, ow, o))
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for di in range(kh):
                    for dj in range(kw):
                        r, q = i * stride + di * dil - pt, j * stride + dj * dil - pl
                        if 0 <= r < h and 0 <= q < wd:
                            out[b, i, j] += x[b, r, q] @ w[di, dj]
    return out


def ref_pool(x, k, stride, padding, mode):
    n, h, wd, c = x.shape
    oh, pt = _pads(h, k, stride, padding)
    ow, pl = _pads(wd, k, stride, padding)
    out = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r0, q0 = i * stride - pt, j * stride - pl
            win = x[:, max(r0, 0):r0 + k, max(q0, 0):q0 + k, :]
            out[:, i, j] = win.max(axis=(1, 2)) if mode == "max" else win.mean(axis=(1, 2))
    return out


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# -- activations ---------------------------------------------------------------------------

ACTS = [
    (tf.nn.relu, lambda x: np.maximum(x, 0)),
    (tf.nn.relu6, lambda x: np.clip(x, 0, 6)),
    (tf.nn.elu, lambda x: np.where(x > 0, x, np.exp(x) - 1)),
    (tf.nn.selu, lambda x: 1.0507009873554805 * np.where(
        x > 0, x, 1.6732632423543772 * (np.exp(x) - 1))),
    (tf.nn.softplus, lambda x: np.log1p(np.exp(x))),
    (lambda x: tf.nn.leaky_relu(x, 0.1), lambda x: np.where(x > 0, x, 0.1 * x)),
    (tf.nn.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    (tf.nn.tanh, np.tanh),
]


@pytest.mark.parametrize("fn,ref", ACTS)
def test_activation_forward_and_gradient(fn, ref):
    x = rnd(3, 4, lo=-7, hi=7).astype(np.float32)
    out = run(fn(x))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ref(x.astype(np.float64)), rtol=1e-5, atol=1e-6)
    xg = np.array([[-2.5, -0.7, 0.4, 1.3], [3.1, 5.2, 6.6, -0.2]])  # away from kinks
    check_gradients(fn, [xg])


def test_softmax_and_log_softmax():
    x = rnd(3, 5) * 10
    np.testing.assert_allclose(run(tf.nn.softmax(x)), np_softmax(x), rtol=1e-6)
    np.testing.assert_allclose(run(tf.nn.softmax(x, axis=0)), np_softmax(x, 0), rtol=1e-6)
    np.testing.assert_allclose(run(tf.nn.log_softmax(x, dim=0)), np.log(np_softmax(x, 0)),
                               rtol=1e-6)
    big = np.array([[1000.0, 0.0, -1000.0]], np.float32)
    out = run(tf.nn.log_softmax(big))
    assert np.all(np.isfinite(out)) and abs(out[0, 0]) < 1e-6
    check_gradients(tf.nn.softmax, [rnd(2, 4)])
    check_gradients(lambda t: tf.nn.softmax(t, axis=0), [rnd(3, 2)])
    check_gradients(tf.nn.log_softmax, [rnd(2, 4)])
    with pytest.raises(ValueError):
        tf.nn.softmax(x, axis=2)


def test_bias_add_xw_plus_b_l2_loss():
    x, b, w = rnd(2, 3, 4), rnd(4), rnd(4, 5)
    np.testing.assert_allclose(run(tf.nn.bias_add(x, b)), x + b)
    np.testing.assert_allclose(run(tf.nn.bias_add(x, rnd(3)[:3] * 0 + b[:3], "NCHW")),
                               x + b[:3][None, :, None])
    np.testing.assert_allclose(run(tf.nn.xw_plus_b(x[0], w, rnd(5) * 0)), x[0] @ w)
    np.testing.assert_allclose(run(tf.nn.l2_loss(x)), (x ** 2).sum() / 2)
    assert run(tf.nn.l2_loss(x.astype(np.float32))).dtype == np.float32
    check_gradients(tf.nn.bias_add, [x, b])
    check_gradients(lambda a, c: tf.nn.bias_add(a, c, data_format="NCHW"), [x, rnd(3)])
    check_gradients(tf.nn.xw_plus_b, [x[0], w, rnd(5)])
    check_gradients(tf.nn.l2_loss, [x])
    with pytest.raises(ValueError):
        tf.nn.bias_add(x, rnd(3))


# -- losses --------------------------------------------------------------------------------

def test_sigmoid_cross_entropy():
    x = np.array([[-100.0, -1.0, 0.0, 2.0, 100.0]])
    z = np.array([[0.0, 1.0, 0.5, 0.0, 1.0]])
    out = run(tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x))
    p = 1 / (1 + np.exp(-x))
    with np.errstate(divide="ignore", invalid="ignore"):
        ref = -(z * np.log(p) + (1 - z) * np.log(1 - p))
    ref[0, 0], ref[0, 4] = 0.0, 0.0  # exact limits where the naive formula breaks
    np.testing.assert_allclose(out, ref, atol=1e-6)
    check_gradients(lambda a, b: tf.nn.sigmoid_cross_entropy_with_logits(labels=a, logits=b),
                    [rnd(2, 3, lo=0, hi=1), rnd(2, 3, lo=-3, hi=3)])
    with pytest.raises(ValueError, match="named arguments"):
        tf.nn.sigmoid_cross_entropy_with_logits(z, x)
    with pytest.raises(ValueError):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=z[:, :2], logits=x)


def test_softmax_cross_entropy_is_stable_and_matches_numpy():
    logits = rnd(4, 5) * 3
    labels = np_softmax(rnd(4, 5) * 2)
    ref = -(labels * np.log(np_softmax(logits))).sum(-1)
    for fn in (tf.nn.softmax_cross_entropy_with_logits,
               tf.nn.softmax_cross_entropy_with_logits_v2):
        t = fn(labels=labels, logits=logits)
        assert t.shape.as_list() == [4]
        np.testing.assert_allclose(run(t), ref, rtol=1e-6)
    big = np.array([[1e4, 0.0], [0.0, -1e4]], np.float32)
    out = run(tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=np.array([[0.0, 1.0], [1.0, 0.0]], np.float32), logits=big))
    np.testing.assert_allclose(out, [1e4, 0.0], rtol=1e-6)
    ax0 = run(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels.T, logits=logits.T,
                                                         axis=0))
    np.testing.assert_allclose(ax0, ref, rtol=1e-6)


def test_softmax_cross_entropy_gradients():
    labels = np_softmax(rnd(3, 4))
    check_gradients(lambda a, b: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=a, logits=b), [labels, rnd(3, 4)])
    check_gradients(lambda a, b: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=a, logits=b, axis=0), [labels, rnd(3, 4)])
    lab = tf.placeholder(tf.float64, [3, 4])
    lg = tf.placeholder(tf.float64, [3, 4])
    v1 = tf.nn.softmax_cross_entropy_with_logits(labels=lab, logits=lg)
    assert tf.gradients(v1, lab)[0] is None


def test_sparse_softmax_cross_entropy():
    logits = rnd(2, 3, 5) * 3
    labels = np.array([[0, 4, 2], [1, 1, 3]])
    t = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    assert t.shape.as_list() == [2, 3]
    lp = np.log(np_softmax(logits))
    ref = -np.take_along_axis(lp, labels[..., None], -1)[..., 0]
    np.testing.assert_allclose(run(t), ref, rtol=1e-6)
    check_gradients(lambda b: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=b), [logits])
    with pytest.raises(tf.errors.InvalidArgumentError, match="outside the valid range"):
        run(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 7], logits=rnd(2, 5)))
    with pytest.raises(ValueError, match="Rank mismatch"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[[0]], logits=rnd(2, 5))


# -- dropout -------------------------------------------------------------------------------

def test_dropout_scales_and_is_seeded():
    x = np.ones((200, 50), np.float32)
    tf.set_random_seed(7)
    y = tf.nn.dropout(x, keep_prob=0.5, seed=3)
    with tf.Session() as sess:
        a, b = sess.run(y), sess.run(y)
    assert a.dtype == np.float32
    assert set(np.unique(a)) <= {0.0, 2.0}
    assert 0.45 < (a > 0).mean() < 0.55
    assert not np.array_equal(a, b)  # a new mask every step
    with tf.Session() as sess:
        assert np.array_equal(sess.run(y), a)  # same seeds, same sequence
    assert tf.nn.dropout(x, keep_prob=1.0) is not None
    z = run(tf.nn.dropout(x, rate=0.25, noise_shape=[200, 1]))
    assert np.all((z == 0).all(1) | (z == np.float32(1 / 0.75)).all(1))


def test_dropout_gradient_uses_the_same_mask_and_keep_prob_placeholder():
    x = tf.placeholder(tf.float64, [4, 6])
    kp = tf.placeholder(tf.float64, [])
    y = tf.nn.dropout(x, keep_prob=kp, seed=1)
    g = tf.gradients(tf.reduce_sum(y), x)[0]
    yv, gv = run([y, g], {x: np.ones((4, 6)), kp: 0.5})
    np.testing.assert_allclose(gv, yv)
    np.testing.assert_allclose(run(y, {x: np.ones((4, 6)), kp: 1.0}), 1.0)
    with pytest.raises(ValueError):
        tf.nn.dropout(x, keep_prob=1.5)
    with pytest.raises(tf.errors.InvalidArgumentError):
        run(y, {x: np.ones((4, 6)), kp: 0.0})


# -- conv and pool -------------------------------------------------------------------------

@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("stride", [1, 2])
def test_conv2d_matches_loop_reference(padding, stride):
    x = rnd(2, 7, 6, 3).astype(np.float32)
    w = rnd(3, 2, 3, 4).astype(np.float32)
    t = tf.nn.conv2d(x, w, strides=[1, stride, stride, 1], padding=padding)
    out = run(t)
    ref = ref_conv2d(x.astype(np.float64), w.astype(np.float64), stride, padding)
    assert out.dtype == np.float32 and t.shape.as_list() == list(ref.shape)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


def test_conv2d_dilations_and_1x1():
    x, w = rnd(1, 6, 6, 2), rnd(2, 2, 2, 3)
    out = run(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1]))
    np.testing.assert_allclose(out, ref_conv2d(x, w, 1, "SAME", dil=2), rtol=1e-6)
    w1 = rnd(1, 1, 2, 3)
    np.testing.assert_allclose(run(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "VALID")),
                               ref_conv2d(x, w1, 1, "VALID"), rtol=1e-6)


@pytest.mark.parametrize("padding,stride", [("SAME", 1), ("VALID", 2), ("SAME", 2)])
def test_conv2d_gradients(padding, stride):
    x, w = rnd(2, 5, 4, 2), rnd(3, 2, 2, 3)
    check_gradients(lambda a, b: tf.nn.conv2d(a, b, [1, stride, stride, 1], padding), [x, w])


@pytest.mark.parametrize("padding,stride,dil,k", [
    ("SAME", 1, 1, 5), ("SAME", 1, 2, 3), ("VALID", 1, 1, 4), ("SAME", 2, 1, 3),
    ("VALID", 3, 1, 4), ("SAME", 1, 1, 2)])
def test_conv2d_gradients_laid_out_image_by_image(monkeypatch, padding, stride, dil, k):
    # A chunk of one image: the kernels lay out receptive fields a few images at a
    # time, and the unit-stride input gradient is computed as a convolution of dy.
    monkeypatch.setattr(nn_conv_kernels, "_CHUNK_BYTES", 1)
    x, w = rnd(3, 7, 6, 2), rnd(k, k, 2, 3)
    out = run(tf.nn.conv2d(x, w, [1, stride, stride, 1], padding, dilations=[1, dil, dil, 1]))
    np.testing.assert_allclose(out, ref_conv2d(x, w, stride, padding, dil=dil), rtol=1e-6)
    check_gradients(lambda a, b: tf.nn.conv2d(a, b, [1, stride, stride, 1], padding,
                                              dilations=[1, dil, dil, 1]), [x, w])


def test_conv2d_gradient_with_unknown_batch_and_dilation():
    x = tf.placeholder(tf.float64, [None, 5, 5, 1])
    w = tf.constant(rnd(2, 2, 1, 2))
    y = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", dilations=2)
    g = tf.gradients(tf.reduce_sum(y), x)[0]
    assert run(g, {x: rnd(3, 5, 5, 1)}).shape == (3, 5, 5, 1)
    check_gradients(lambda a, b: tf.nn.conv2d(a, b, [1, 1, 1, 1], "VALID", dilations=[1, 2, 2, 1]),
                    [rnd(1, 5, 5, 1), rnd(2, 2, 1, 2)])


def test_conv2d_errors():
    x, w = tf.zeros([1, 4, 4, 2]), tf.zeros([3, 3, 2, 1])
    with pytest.raises(ValueError, match="padding"):
        tf.nn.conv2d(x, w, [1, 1, 1, 1], "same")
    with pytest.raises(ValueError, match="padding"):
        tf.nn.conv2d(x, w, [1, 1, 1, 1], "FULL")
    with pytest.raises(ValueError, match="batch and depth"):
        tf.nn.conv2d(x, w, [2, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="2 and 3"):
        tf.nn.conv2d(x, tf.zeros([3, 3, 3, 1]), [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="Negative dimension"):
        tf.nn.conv2d(tf.zeros([1, 2, 2, 2]), w, [1, 1, 1, 1], "VALID")


@pytest.mark.parametrize("mode", ["max", "avg"])
@pytest.mark.parametrize("padding,k,stride", [("SAME", 3, 1), ("VALID", 2, 2), ("SAME", 2, 2),
                                              ("VALID", 3, 2), ("SAME", 3, 2)])
def test_pools_match_loop_reference(mode, padding, k, stride):
    x = rnd(2, 5, 6, 3).astype(np.float32)
    fn = tf.nn.max_pool if mode == "max" else tf.nn.avg_pool
    t = fn(x, ksize=[1, k, k, 1], strides=[1, stride, stride, 1], padding=padding)
    ref = ref_pool(x.astype(np.float64), k, stride, padding, mode)
    out = run(t)
    assert out.dtype == np.float32 and t.shape.as_list() == list(ref.shape)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("padding,k,stride", [("SAME", 3, 1), ("VALID", 2, 2), ("SAME", 3, 2)])
def test_pool_gradients(padding, k, stride):
    # A permutation keeps every window's maximum unique, so max_pool is differentiable.
    x = RNG.permutation(2 * 5 * 4 * 2).reshape(2, 5, 4, 2) * 0.1
    for fn in (tf.nn.max_pool, tf.nn.avg_pool):
        check_gradients(lambda a: fn(a, [1, k, k, 1], [1, stride, stride, 1], padding), [x])


def test_max_pool_grad_sends_ties_to_first_maximum():
    x = tf.placeholder(tf.float64, [1, 2, 2, 1])
    g = tf.gradients(tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), x)[0]
    out = run(g, {x: np.ones((1, 2, 2, 1))})
    np.testing.assert_allclose(out[0, :, :, 0], [[1, 0], [0, 0]])


def test_pool_errors():
    x = tf.zeros([1, 4, 4, 1])
    with pytest.raises(ValueError, match="padding"):
        tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "valid")
    with pytest.raises(ValueError, match="batch and depth"):
        tf.nn.avg_pool(x, [2, 2, 2, 1], [1, 2, 2, 1], "VALID")


# -- lookups, ranking, moments -------------------------------------------------------------

def test_embedding_lookup_forward_and_sparse_gradient():
    params = rnd(5, 3)
    ids = np.array([[0, 3], [3, 4]])
    p = tf.placeholder(tf.float64, [5, 3])
    y = tf.nn.embedding_lookup(p, ids)
    np.testing.assert_allclose(run(y, {p: params}), params[ids])
    g = tf.gradients(tf.reduce_sum(y), p)[0]
    assert isinstance(g, tf.IndexedSlices)
    check_gradients(lambda t: tf.nn.embedding_lookup([t], ids), [params])
    clipped = run(tf.nn.embedding_lookup(params * 10, ids, max_norm=1.0))
    np.testing.assert_allclose(np.linalg.norm(clipped, axis=-1), 1.0, rtol=1e-6)


def test_in_top_k():
    pred = np.array([[0.1, 0.8, 0.1], [0.5, 0.2, 0.3], [0.3, 0.3, 0.4]], np.float32)
    out = run(tf.nn.in_top_k(pred, np.array([1, 2, 0], np.int32), 2))
    assert out.tolist() == [True, True, True]
    assert run(tf.nn.in_top_k(pred, [0, 1, 1], 1)).tolist() == [False, False, False]


def test_moments_and_l2_normalize():
    x = rnd(3, 4, 2)
    m, v = run(tf.nn.moments(tf.constant(x), axes=[0, 1]))
    np.testing.assert_allclose(m, x.mean((0, 1)))
    np.testing.assert_allclose(v, x.var((0, 1)))
    mk, vk = tf.nn.moments(tf.constant(x), axes=[1], keep_dims=True)
    assert mk.shape.as_list() == [3, 1, 2] and vk.shape.as_list() == [3, 1, 2]
    out = run(tf.nn.l2_normalize(x, axis=-1))
    np.testing.assert_allclose(out, x / np.linalg.norm(x, axis=-1, keepdims=True), rtol=1e-6)
    check_gradients(lambda t: tf.nn.moments(t, axes=[0])[1], [rnd(4, 2)])
    check_gradients(lambda t: tf.nn.l2_normalize(t, 1), [rnd(2, 3)])


def test_nchw_conv_and_pool_match_nhwc():
    x, w = rnd(2, 5, 5, 3), rnd(3, 3, 3, 2)
    xc = x.transpose(0, 3, 1, 2)
    out = run(tf.nn.conv2d(xc, w, [1, 1, 2, 2], "SAME", data_format="NCHW"))
    np.testing.assert_allclose(out.transpose(0, 2, 3, 1), ref_conv2d(x, w, 2, "SAME"),
                               rtol=1e-6)
    mp = run(tf.nn.max_pool(xc, [1, 1, 2, 2], [1, 1, 2, 2], "VALID", data_format="NCHW"))
    np.testing.assert_allclose(mp.transpose(0, 2, 3, 1), ref_pool(x, 2, 2, "VALID", "max"))
    check_gradients(lambda a, b: tf.nn.conv2d(a, b, [1, 1, 1, 1], "VALID", data_format="NCHW"),
                    [rnd(1, 3, 4, 4), rnd(2, 2, 3, 2)])


def test_float32_stays_float32_through_forward_and_backward():
    x = tf.placeholder(tf.float32, [None, 6, 6, 2])
    w = tf.placeholder(tf.float32, [3, 3, 2, 4])
    lab = tf.placeholder(tf.float32, [None, 9])
    h = tf.nn.elu(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"))
    h = tf.nn.avg_pool(tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
                       [1, 3, 3, 1], [1, 1, 1, 1], "SAME")
    flat = tf.reshape(h, [-1, 36])
    logits = tf.nn.softplus(tf.matmul(flat, tf.ones([36, 9]))) - tf.nn.sigmoid(flat[:, :9])
    loss = (tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=lab, logits=logits))
            + tf.nn.l2_loss(w) + tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(
                labels=lab, logits=tf.tanh(logits))))
    grads = tf.gradients(loss, [x, w, lab])
    feed = {x: rnd(2, 6, 6, 2), w: rnd(3, 3, 2, 4), lab: np_softmax(rnd(2, 9))}
    for v in run([loss] + grads, feed):
        assert v.dtype == np.float32
