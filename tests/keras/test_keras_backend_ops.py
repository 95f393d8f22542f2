"""tf.keras.backend functions against numpy: elementwise and reductions, shapes,
padding/resizing, convolutions and pooling, normalization helpers, the learning-phase
switches, random tensors, updates, CTC, and the functional loops."""

import numpy as np
import pytest

import tensorfleet as tf
from tests.keras.numpy_reference import conv_nd, depthwise_nd

keras = tf.keras
K = keras.backend


@pytest.fixture(autouse=True)
def _keras_session():
    yield
    K.clear_session()


def test_elementwise_and_reductions():
    x = np.array([[1.5, -2.0, 0.0], [3.0, 0.5, -1.0]], np.float32)
    ev = K.eval
    np.testing.assert_array_equal(ev(K.greater(x, 0.0)), x > 0)
    np.testing.assert_array_equal(ev(K.less_equal(x, 0.5)), x <= 0.5)
    np.testing.assert_array_equal(ev(K.not_equal(x, 0.0)), x != 0)
    np.testing.assert_array_equal(ev(K.sign(x)), np.sign(x))
    np.testing.assert_array_equal(ev(K.round(np.array([0.5, 1.5, 2.4]))), [0, 2, 2])
    np.testing.assert_allclose(ev(K.sin(x)), np.sin(x), rtol=1e-6)
    np.testing.assert_allclose(ev(K.cos(x)), np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(ev(K.softplus(x)), np.log1p(np.exp(x)), rtol=1e-5)
    np.testing.assert_allclose(ev(K.softsign(x)), x / (1 + np.abs(x)), rtol=1e-6)
    np.testing.assert_allclose(ev(K.elu(x, 0.5)), np.where(x > 0, x, 0.5 * np.expm1(x)),
                               rtol=1e-6)
    np.testing.assert_array_equal(ev(K.all(x, axis=1)), [False, True])
    np.testing.assert_array_equal(ev(K.any(x, axis=0)), [True, True, True])
    np.testing.assert_allclose(ev(K.prod(x, axis=0)), x.prod(0), rtol=1e-6)
    np.testing.assert_allclose(ev(K.std(x, axis=1)), x.std(1), rtol=1e-5)
    np.testing.assert_allclose(ev(K.var(x)), x.var(), rtol=1e-5)
    np.testing.assert_array_equal(ev(K.argmin(x)), x.argmin(-1))
    np.testing.assert_allclose(ev(K.cumsum(x, 1)), x.cumsum(1), rtol=1e-6)
    np.testing.assert_allclose(ev(K.cumprod(x, 0)), x.cumprod(0), rtol=1e-6)
    np.testing.assert_allclose(ev(K.l2_normalize(x, axis=1)),
                               x / np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(ev(K.in_top_k(x, np.array([0, 1]), 1)), [True, False])


def test_construction_and_shapes():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    ev = K.eval
    np.testing.assert_array_equal(ev(K.arange(2, 8, 2)), [2, 4, 6])
    np.testing.assert_array_equal(ev(K.eye((2, 3))), np.eye(2, 3))
    np.testing.assert_array_equal(ev(K.ones_like(x)), np.ones_like(x))
    np.testing.assert_array_equal(ev(K.zeros_like(x)), np.zeros_like(x))
    np.testing.assert_array_equal(ev(K.one_hot(np.array([2, 0]), 3)), np.eye(3)[[2, 0]])
    np.testing.assert_array_equal(ev(K.permute_dimensions(x, (1, 0))), x.T)
    np.testing.assert_array_equal(ev(K.repeat_elements(x, 2, 1)), x.repeat(2, 1))
    np.testing.assert_array_equal(ev(K.repeat(x, 2)), np.stack([x, x], 1))
    np.testing.assert_array_equal(ev(K.tile(x, (2, 1))), np.tile(x, (2, 1)))
    np.testing.assert_array_equal(ev(K.reverse(x, 1)), x[:, ::-1])
    np.testing.assert_array_equal(ev(K.stop_gradient(K.constant(x))), x)
    assert K.count_params(K.variable(x)) == 6
    assert K.cast_to_floatx([1, 2]).dtype == np.float32
    assert not K.is_sparse(K.constant(x))
    st = tf.SparseTensor([[0, 1]], [5.0], [2, 2])
    assert K.is_sparse(st)
    np.testing.assert_array_equal(ev(K.to_dense(st)), [[0, 5], [0, 0]])
    assert K.backend() == "tensorflow"


def test_padding_and_resizing():
    x3 = np.ones((1, 2, 2), np.float32)
    x4 = np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2)
    x5 = np.ones((1, 1, 2, 2, 1), np.float32)
    ev = K.eval
    np.testing.assert_array_equal(ev(K.temporal_padding(x3, (1, 2))),
                                  np.pad(x3, [(0, 0), (1, 2), (0, 0)]))
    np.testing.assert_array_equal(ev(K.spatial_2d_padding(x4, ((1, 0), (0, 1)))),
                                  np.pad(x4, [(0, 0), (1, 0), (0, 1), (0, 0)]))
    np.testing.assert_array_equal(ev(K.spatial_3d_padding(x5)),
                                  np.pad(x5, [(0, 0), (1, 1), (1, 1), (1, 1), (0, 0)]))
    np.testing.assert_array_equal(ev(K.resize_images(x4, 2, 3, "channels_last")),
                                  x4.repeat(2, 1).repeat(3, 2))
    np.testing.assert_array_equal(ev(K.resize_volumes(x5, 2, 1, 2, "channels_last")),
                                  x5.repeat(2, 1).repeat(2, 3))
    with pytest.raises(ValueError, match="channels_last"):
        K.resize_images(x4, 2, 2, "channels_first")


def test_convolutions_pooling_and_local_conv():
    rng = np.random.RandomState(0)
    x = rng.randn(2, 5, 5, 3).astype(np.float32)
    k = rng.randn(3, 3, 3, 4).astype(np.float32)
    ev = K.eval
    np.testing.assert_allclose(ev(K.conv2d(x, k, padding="same")),
                               conv_nd(x, k, (1, 1), "same"), atol=1e-4)
    x1, k1 = x[:, 0], rng.randn(2, 3, 2).astype(np.float32)
    np.testing.assert_allclose(ev(K.conv1d(x1, k1, strides=2)), conv_nd(x1, k1, (2,), "valid"),
                               atol=1e-4)
    x3 = rng.randn(1, 3, 3, 3, 2).astype(np.float32)
    k3 = rng.randn(2, 2, 2, 2, 3).astype(np.float32)
    np.testing.assert_allclose(ev(K.conv3d(x3, k3)), conv_nd(x3, k3, (1, 1, 1), "valid"),
                               atol=1e-4)
    dk = rng.randn(3, 3, 3, 2).astype(np.float32)
    np.testing.assert_allclose(ev(K.depthwise_conv2d(x, dk)),
                               depthwise_nd(x, dk, (1, 1), "valid"), atol=1e-4)
    pk = rng.randn(1, 1, 6, 2).astype(np.float32)
    np.testing.assert_allclose(ev(K.separable_conv2d(x, dk, pk)),
                               conv_nd(depthwise_nd(x, dk, (1, 1), "valid"), pk, (1, 1),
                                       "valid"), atol=1e-4)
    x4 = x[:, :4, :4]
    np.testing.assert_allclose(ev(K.pool2d(x4, (2, 2), (2, 2))),
                               x4.reshape(2, 2, 2, 2, 2, 3).max(axis=(2, 4)), rtol=1e-6)
    np.testing.assert_allclose(ev(K.pool2d(x4, (2, 2), (2, 2), pool_mode="avg")),
                               x4.reshape(2, 2, 2, 2, 2, 3).mean(axis=(2, 4)), rtol=1e-5)
    x5 = rng.randn(1, 2, 2, 2, 1).astype(np.float32)
    np.testing.assert_allclose(ev(K.pool3d(x5, (2, 2, 2), (2, 2, 2)))[0, 0, 0, 0], x5.max())
    np.testing.assert_allclose(ev(K.bias_add(x, np.ones(3, np.float32))), x + 1)
    lk = rng.randn(3, 6, 2).astype(np.float32)
    np.testing.assert_allclose(ev(K.local_conv1d(x1, lk, 2, 1)),
                               np.stack([x1[:, i:i + 2].reshape(2, -1) @ lk[i]
                                         for i in range(3)], 1), rtol=1e-5)
    ct = K.conv2d_transpose(np.ones((1, 2, 2, 1), np.float32), np.ones((2, 2, 1, 1),
                                                                         np.float32),
                            (1, 4, 4, 1), strides=(2, 2))
    np.testing.assert_array_equal(ev(ct), np.ones((1, 4, 4, 1)))


def test_normalization_dropout_and_focal_losses():
    rng = np.random.RandomState(1)
    x = rng.randn(6, 3).astype(np.float32)
    g, b = np.full(3, 2.0, np.float32), np.ones(3, np.float32)
    normed, mean, var = K.normalize_batch_in_training(x, g, b, [0], epsilon=1e-3)
    n, m, v = K.get_session().run([normed, mean, var])
    np.testing.assert_allclose(m, x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(n, 2 * (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3) + 1,
                               rtol=1e-4)
    np.testing.assert_allclose(K.eval(K.batch_normalization(x, x.mean(0), x.var(0), b, g)),
                               n, rtol=1e-4)
    d = K.eval(K.dropout(np.ones((200, 10), np.float32), 0.5))
    assert set(np.unique(d)) <= {0.0, 2.0} and 0.3 < (d == 0).mean() < 0.7
    t = np.array([[1.0, 0.0]], np.float32)
    p = np.array([[0.8, 0.3]], np.float32)
    bce = -(t * np.log(p) + (1 - t) * np.log(1 - p))
    pt = t * p + (1 - t) * (1 - p)
    np.testing.assert_allclose(K.eval(K.binary_focal_crossentropy(t, p, gamma=2.0)),
                               (1 - pt) ** 2 * bce, rtol=1e-4)
    cf = K.eval(K.categorical_focal_crossentropy(np.array([[0, 1.0]]), np.array([[0.4, 0.6]])))
    np.testing.assert_allclose(cf, [0.25 * 0.4 ** 2 * -np.log(0.6)], rtol=1e-4)
    v = K.variable(np.zeros(2))
    upd = K.moving_average_update(v, np.array([1.0, 2.0]), 0.9)
    K.get_session().run(upd)
    # Zero-debiased: the first update gives the value itself.
    np.testing.assert_allclose(K.get_value(v), [1.0, 2.0], rtol=1e-5)


def test_phase_switches_updates_and_random():
    a, b = K.constant([1.0, 2.0]), K.constant([10.0, 20.0])
    y = K.in_train_phase(a, b)
    sess = K.get_session()
    np.testing.assert_array_equal(sess.run(y), [10, 20])
    np.testing.assert_array_equal(sess.run(y, {K.learning_phase(): True}), [1, 2])
    np.testing.assert_array_equal(sess.run(K.in_test_phase(a, b)), [1, 2])
    with K.learning_phase_scope(1):
        assert K.learning_phase() == 1
        np.testing.assert_array_equal(K.eval(K.in_train_phase(a, b)), [1, 2])
    assert K.learning_phase() != 1
    np.testing.assert_array_equal(K.eval(K.switch(K.constant([True, False]), a, b)), [1, 20])
    v = K.variable([1.0, 1.0])
    sess = K.get_session()
    sess.run(K.update_add(v, [1.0, 2.0]))
    sess.run(K.update_sub(v, [0.5, 0.5]))
    np.testing.assert_array_equal(K.get_value(v), [1.5, 2.5])
    sess.run(K.update(v, [0.0, 0.0]))
    np.testing.assert_array_equal(K.get_value(v), [0, 0])
    u = K.eval(K.random_uniform((1000,), 2.0, 3.0, seed=1))
    assert 2.0 <= u.min() and u.max() < 3.0
    nrm = K.eval(K.random_normal((2000,), 1.0, 2.0, seed=1))
    assert abs(nrm.mean() - 1) < 0.15 and abs(nrm.std() - 2) < 0.15
    assert np.abs(K.eval(K.truncated_normal((500,), stddev=1.0, seed=2))).max() <= 2.0
    bern = K.eval(K.random_bernoulli((2000,), p=0.3, seed=3))
    assert set(np.unique(bern)) <= {0.0, 1.0} and abs(bern.mean() - 0.3) < 0.05
    rv = K.get_value(K.random_uniform_variable((3, 2), -1, 1, seed=4))
    assert rv.shape == (3, 2) and np.abs(rv).max() <= 1
    assert K.get_value(K.random_normal_variable((4,), 0, 1, seed=5)).shape == (4,)
    K.manual_variable_initialization(True)
    try:
        w = K.variable([1.0])
        with pytest.raises(tf.errors.FailedPreconditionError):
            K.get_session().run(w.value())
    finally:
        K.manual_variable_initialization(False)


def test_gradients_loops_print_and_name_scope():
    x = K.variable([1.0, 2.0])
    g = K.gradients(K.sum(K.square(x)), [x])[0]
    np.testing.assert_allclose(K.eval(g), [2.0, 4.0])
    np.testing.assert_allclose(K.eval(K.map_fn(lambda t: t * 2, K.constant([1.0, 2.0]))),
                               [2, 4])
    np.testing.assert_allclose(K.eval(K.foldl(lambda acc, t: acc * 10 + t,
                                              K.constant([1.0, 2.0, 3.0]))), 123.0)
    np.testing.assert_allclose(K.eval(K.foldr(lambda acc, t: acc * 10 + t,
                                              K.constant([1.0, 2.0, 3.0]))), 321.0)
    np.testing.assert_allclose(K.eval(K.print_tensor(K.constant([3.0]), "v=")), [3.0])
    with K.name_scope("block"):
        c = K.constant(1.0, name="c")
    assert c.op.name.startswith("block/")


def test_ctc_batch_cost_and_decode():
    rng = np.random.RandomState(2)
    logits = rng.randn(2, 5, 4).astype(np.float32)
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    labels = np.array([[1, 2], [2, 0]], np.int32)
    cost = K.eval(K.ctc_batch_cost(labels, probs, np.array([[5], [5]]), np.array([[2], [1]])))
    assert cost.shape == (2, 1)
    ref = K.eval(tf.nn.ctc_loss(K.ctc_label_dense_to_sparse(labels, np.array([2, 1])),
                                np.log(probs.transpose(1, 0, 2) + 1e-7), [5, 5]))
    np.testing.assert_allclose(cost.ravel(), ref, rtol=1e-5)
    sparse = K.ctc_label_dense_to_sparse(labels, np.array([2, 1]))
    np.testing.assert_array_equal(K.eval(sparse.values), [1, 2, 2])
    decoded, _ = K.ctc_decode(probs, np.array([5, 5]))
    best = probs.argmax(-1)
    for i in range(2):
        want = [c for j, c in enumerate(best[i]) if c != 3 and (j == 0 or c != best[i][j - 1])]
        got = [c for c in K.eval(decoded[0])[i] if c != -1]
        assert got == want
