"""max_pool_with_argmax, tf.nn.pool, fractional pooling, clip_by_average_norm,
cosine/hinge losses, self_adjoint_eig, random_gamma and random.categorical against
numpy references, with numerical gradient checks."""

import numpy as np
import pytest
import scipy.special as sp

import tensorfleet as tf
from tensorfleet.ops.op_util import make_tensor
from tensorfleet.testing.gradient_checker import check_gradients

R = np.random.RandomState(12)


def run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def ref_argmax_pool(x, k, s, padding, with_batch):
    b, h, w, c = x.shape
    if padding == "VALID":
        oh, ow, top, left = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1, 0, 0
    else:
        oh, ow = -(-h // s[0]), -(-w // s[1])
        top = max((oh - 1) * s[0] + k[0] - h, 0) // 2
        left = max((ow - 1) * s[1] + k[1] - w, 0) // 2
    out = np.zeros((b, oh, ow, c), x.dtype)
    idx = np.zeros((b, oh, ow, c), np.int64)
    for n in range(b):
        for i in range(oh):
            for j in range(ow):
                for ch in range(c):
                    best, where = -np.inf, None
                    for y in range(i * s[0] - top, i * s[0] - top + k[0]):
                        for xx in range(j * s[1] - left, j * s[1] - left + k[1]):
                            if 0 <= y < h and 0 <= xx < w and x[n, y, xx, ch] > best:
                                best, where = x[n, y, xx, ch], (y * w + xx) * c + ch
                    out[n, i, j, ch] = best
                    idx[n, i, j, ch] = where + (n * h * w * c if with_batch else 0)
    return out, idx


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("with_batch", [False, True])
def test_max_pool_with_argmax(padding, with_batch):
    x = np.round(R.rand(2, 5, 7, 3), 1).astype(np.float32)  # ties: the first one wins
    out, arg = tf.nn.max_pool_with_argmax(x, [1, 2, 3, 1], [1, 2, 2, 1], padding,
                                          include_batch_in_index=with_batch)
    o, a = run([out, arg])
    want_o, want_a = ref_argmax_pool(x, (2, 3), (2, 2), padding, with_batch)
    assert a.dtype == np.int64 and out.shape.as_list() == list(want_o.shape)
    np.testing.assert_array_equal(o, want_o)
    np.testing.assert_array_equal(a, want_a)


def test_max_pool_with_argmax_int32_gradient_and_errors():
    _, a = tf.nn.max_pool_with_argmax(np.zeros((1, 4, 4, 1), np.float32), 2, 2, "VALID",
                                      Targmax=tf.int32)
    assert a.dtype == tf.int32
    x = R.rand(2, 4, 5, 2)
    check_gradients(lambda t: tf.nn.max_pool_with_argmax(t, [1, 2, 2, 1], [1, 1, 2, 1],
                                                         "SAME")[0], [x])
    with pytest.raises(ValueError, match="NHWC"):
        tf.nn.max_pool_with_argmax(x, 2, 2, "SAME", data_format="NCHW")
    with pytest.raises(ValueError, match="padding"):
        tf.nn.max_pool_with_argmax(x, 2, 2, "FULL")


def test_pool_one_two_three_dims():
    x1 = R.rand(2, 9, 3)
    got = run(tf.nn.pool(x1, [2], "AVG", "SAME", strides=[2]))
    want = np.stack([x1[:, i:i + 2].mean(1) for i in range(0, 9, 2)], 1)
    np.testing.assert_allclose(got, want)
    x2 = R.rand(2, 6, 7, 3)
    np.testing.assert_allclose(run(tf.nn.pool(x2, [2, 3], "MAX", "VALID", strides=[2, 2])),
                               run(tf.nn.max_pool(x2, [1, 2, 3, 1], [1, 2, 2, 1], "VALID")))
    chw = np.transpose(x2, (0, 3, 1, 2))
    np.testing.assert_allclose(
        run(tf.nn.pool(chw, [2, 2], "MAX", "SAME", data_format="NCHW")),
        np.transpose(run(tf.nn.max_pool(x2, [1, 2, 2, 1], [1, 1, 1, 1], "SAME")), (0, 3, 1, 2)))
    x3 = R.rand(1, 4, 4, 4, 2)
    got3 = run(tf.nn.pool(x3, [2, 2, 2], "MAX", "VALID", strides=[2, 2, 2]))
    want3 = x3.reshape(1, 2, 2, 2, 2, 2, 2, 2).max(axis=(2, 4, 6))
    np.testing.assert_allclose(got3, want3)
    with pytest.raises(ValueError, match="dilation"):
        tf.nn.pool(x2, [2, 2], "MAX", "SAME", dilation_rate=[2, 2])
    with pytest.raises(ValueError, match="pooling_type"):
        tf.nn.pool(x2, [2, 2], "L2", "SAME")


def test_clip_by_average_norm():
    x = R.randn(3, 4)
    avg = np.linalg.norm(x) / x.size
    np.testing.assert_allclose(run(tf.clip_by_average_norm(x, avg / 2)), x / 2)
    np.testing.assert_allclose(run(tf.clip_by_average_norm(x, avg * 2)), x)
    check_gradients(lambda t: tf.clip_by_average_norm(t, 0.05), [x])


def test_cosine_distance_and_hinge_losses():
    lab = np.array([[0, 1], [1, 0], [1, 1]], np.float32)
    pred = np.array([[0.6, 0.8], [1, 0], [0.6, -0.8]], np.float32)
    per = 1 - (lab * pred).sum(1)
    np.testing.assert_allclose(run(tf.losses.cosine_distance(lab, pred, axis=1)), per.mean(),
                               rtol=1e-6)
    w = np.array([[1.0], [0.0], [2.0]], np.float32)
    np.testing.assert_allclose(
        run(tf.losses.cosine_distance(lab, pred, dim=1, weights=w)),
        (per * w[:, 0]).sum() / 2, rtol=1e-6)
    with pytest.raises(ValueError, match="axis"):
        tf.losses.cosine_distance(lab, pred)
    hinge = np.maximum(0, 1 - (2 * lab - 1) * pred)
    np.testing.assert_allclose(run(tf.losses.hinge_loss(lab, pred)), hinge.mean(), rtol=1e-6)
    np.testing.assert_allclose(
        run(tf.losses.hinge_loss(lab, pred, reduction=tf.losses.Reduction.NONE)), hinge)
    with tf.Graph().as_default():
        tf.losses.hinge_loss(lab, pred)
        assert len(tf.losses.get_losses()) == 1


def test_self_adjoint_eig_and_gradients():
    a = R.randn(2, 4, 4)
    a = a + np.swapaxes(a, -1, -2)
    e, v = run(tf.self_adjoint_eig(a))
    np.testing.assert_allclose(e, np.linalg.eigvalsh(a), rtol=1e-10)
    np.testing.assert_allclose(v @ (e[..., None] * np.swapaxes(v, -1, -2)), a, atol=1e-10)
    np.testing.assert_allclose(run(tf.self_adjoint_eigvals(a)), e)
    np.testing.assert_allclose(run(tf.linalg.eigvalsh(a)), e)
    upper_ignored = a.copy()
    upper_ignored[:, 0, 3] += 5.0
    np.testing.assert_allclose(run(tf.linalg.eigh(upper_ignored)[0]), e)
    check_gradients(lambda t: tf.self_adjoint_eigvals(t), [a[0]], rtol=1e-4, atol=1e-6)
    # v * v does not depend on the sign each eigenvector is returned with
    check_gradients(lambda t: tf.square(tf.self_adjoint_eig(t)[1]), [a[0]], rtol=1e-4,
                    atol=1e-6)
    with pytest.raises(ValueError, match="square"):
        tf.self_adjoint_eig(np.zeros((2, 3)))


def test_random_gamma_shapes_seeds_and_moments():
    g = tf.random_gamma([4000], [[0.5], [3.0]], beta=[1.0, 2.0], seed=3)
    assert g.shape.as_list() == [4000, 2, 2] and g.dtype == tf.float32
    with tf.Session() as s:
        x1 = s.run(g)
    with tf.Session() as s:
        x2 = s.run(g)
    np.testing.assert_array_equal(x1, x2)
    alpha = np.array([[0.5], [3.0]])
    beta = np.array([1.0, 2.0])
    np.testing.assert_allclose(x1.mean(0), alpha / beta, rtol=0.08)
    np.testing.assert_allclose(x1.var(0), alpha / beta ** 2, rtol=0.2)
    assert x1.min() >= np.finfo(np.float32).tiny
    edge = run(tf.random_gamma([2], [0.0, -1.0], dtype=tf.float64))
    assert np.all(edge[:, 0] == np.finfo(np.float64).tiny) and np.all(np.isnan(edge[:, 1]))
    with pytest.raises(ValueError, match="dtype"):
        tf.random_gamma([2], 1.0, dtype=tf.int32)


def test_random_categorical():
    c = tf.random.categorical(np.log([[0.2, 0.8, 1e-30], [1.0, 1e-30, 1e-30]]), 3000,
                              dtype=tf.int32, seed=5)
    assert c.dtype == tf.int32 and c.shape.as_list() == [2, 3000]
    v = run(c)
    assert abs((v[0] == 1).mean() - 0.8) < 0.03 and np.all(v[1] == 0)
    assert tf.random.categorical([[0.0, 0.0]], 2).dtype == tf.int64


def test_random_gamma_gradient_is_the_implicit_reparameterisation():
    alpha = tf.constant([[1.5], [4.0]], tf.float64)
    beta = np.array([1.0, 2.0])
    g = tf.random_gamma([50], alpha, beta=beta, dtype=tf.float64, seed=4)
    grad = tf.gradients(tf.reduce_sum(g), alpha)[0]
    with tf.Session() as s:
        x, gv = s.run([g, grad])
    a = np.array([[1.5], [4.0]])
    std = x * beta  # the standard gamma draws
    u = sp.gammainc(a, std)
    h = 1e-6
    dx = (sp.gammaincinv(a + h, u) - sp.gammaincinv(a - h, u)) / (2 * h) / beta
    np.testing.assert_allclose(gv, dx.sum(axis=0).sum(axis=-1, keepdims=True), rtol=1e-5)
    # values recorded from TensorFlow's RandomGammaGrad
    partial = make_tensor("RandomGammaGrad", [tf.constant([0.3, 1.0, 2.5, 7.0]),
                                              tf.constant([0.05, 0.7, 2.0, 9.0])],
                          tf.float32, {})
    np.testing.assert_allclose(run(partial), [0.49471099, 0.97321874, 0.9534627, 1.15818492],
                               rtol=1e-5)


def ref_fractional(x, rows, cols, overlapping, reduce):
    def spans(seq, n):
        return [(a, min(b + 1, n) if overlapping else b) for a, b in zip(seq[:-1], seq[1:])]
    out = np.zeros((x.shape[0], len(rows) - 1, len(cols) - 1, x.shape[3]))
    for i, (r0, r1) in enumerate(spans(rows, x.shape[1])):
        for j, (c0, c1) in enumerate(spans(cols, x.shape[2])):
            out[:, i, j] = reduce(x[:, r0:r1, c0:c1].reshape(x.shape[0], -1, x.shape[3]), 1)
    return out


@pytest.mark.parametrize("pseudo", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
def test_fractional_pooling_regions_and_values(pseudo, overlapping):
    x = R.rand(2, 11, 9, 2)
    for fn, reduce in ((tf.nn.fractional_max_pool, np.max), (tf.nn.fractional_avg_pool,
                                                              np.mean)):
        out, rs, cs = fn(x, [1.0, 1.6, 2.2, 1.0], pseudo_random=pseudo,
                         overlapping=overlapping, deterministic=True, seed=7)
        assert out.shape.as_list() == [2, 6, 4, 2] and rs.dtype == tf.int64
        o, r, c = run([out, rs, cs])
        for seq, n, k in ((r, 11, 1), (c, 9, 2)):
            assert seq[0] == 0 and seq[-1] == n
            assert set(np.diff(seq)) <= {k, k + 1}
        np.testing.assert_allclose(o, ref_fractional(x, r, c, overlapping, reduce))


def test_fractional_pooling_determinism_and_errors():
    x = R.rand(1, 10, 10, 1)
    fixed = tf.nn.fractional_max_pool(x, [1, 1.5, 1.5, 1], deterministic=True)[1]
    free = tf.nn.fractional_max_pool(x, [1, 1.5, 1.5, 1])[1]
    with tf.Session() as s:
        assert len({tuple(s.run(fixed)) for _ in range(6)}) == 1
        assert len({tuple(s.run(free)) for _ in range(12)}) > 1
    with pytest.raises(ValueError, match="smaller than 1"):
        tf.nn.fractional_max_pool(x, [1, 0.5, 1.5, 1])
    with pytest.raises(ValueError, match="rows and columns"):
        tf.nn.fractional_avg_pool(x, [2, 1.5, 1.5, 1])
    with pytest.raises(ValueError, match="seed"):
        tf.nn.fractional_max_pool(x, [1, 1.5, 1.5, 1], seed=3)


def test_fractional_pooling_gradients():
    x = R.permutation(2 * 7 * 6 * 2).reshape(2, 7, 6, 2) / 84.0  # no near-ties
    for fn in (tf.nn.fractional_max_pool, tf.nn.fractional_avg_pool):
        for overlapping in (False, True):
            check_gradients(lambda t: fn(t, [1, 1.5, 1.4, 1], overlapping=overlapping,
                                         deterministic=True, seed=3)[0], [x])
