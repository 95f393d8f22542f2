"""tf.layers and tf.losses: values against numpy, variable naming and sharing,
collections, a training step, and error messages."""

import numpy as np
import pytest

import tensorfleet as tf

RNG = np.random.RandomState(7)


def rnd(*shape):
    return RNG.uniform(-1.0, 1.0, shape).astype(np.float32)


def var(name):
    return next(v for v in tf.global_variables() if v.name == name)


# -- numpy references ------------------------------------------------------------------------

def ref_conv_valid(x, w):
    n, h, wd, _ = x.shape
    kh, kw, _, o = w.shape
    out = np.zeros((n, h - kh + 1, wd - kw + 1, o))
    for i in range(out.shape[1]):
        for j in range(out.shape[2]):
            patch = x[:, i:i + kh, j:j + kw, :]
            out[:, i, j, :] = np.tensordot(patch, w, axes=([1, 2, 3], [0, 1, 2]))
    return out


def ref_sparse_xent(labels, logits):
    z = logits - logits.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return -logp[np.arange(len(labels)), labels]


def ref_xent(onehot, logits):
    z = logits - logits.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return -(onehot * logp).sum(-1)


def by_nonzero(per, w):
    w = np.broadcast_to(w, per.shape)
    return (per * w).sum() / np.count_nonzero(w)


# -- dense -----------------------------------------------------------------------------------

def test_dense_matches_numpy_and_names():
    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.layers.dense(x, 3, bias_initializer=tf.random_uniform_initializer())
    y2 = tf.layers.dense(x, 2, activation=tf.nn.relu)
    names = [v.name for v in tf.global_variables()]
    assert names == ["dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0"]
    assert y.shape.as_list() == [None, 3]
    xv = rnd(5, 4)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, out2, k, b, k2, b2 = sess.run(
            [y, y2, var("dense/kernel:0"), var("dense/bias:0"), var("dense_1/kernel:0"),
             var("dense_1/bias:0")], {x: xv})
    assert k.shape == (4, 3) and b.shape == (3,)
    np.testing.assert_allclose(out, xv @ k + b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out2, np.maximum(xv @ k2 + b2, 0), rtol=1e-5, atol=1e-6)


def test_dense_rank3_and_no_bias():
    x = tf.placeholder(tf.float32, [None, 5, 4])
    y = tf.layers.dense(x, 2, use_bias=False)
    assert y.shape.as_list() == [None, 5, 2]
    assert [v.name for v in tf.global_variables()] == ["dense/kernel:0"]
    xv = rnd(3, 5, 4)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, k = sess.run([y, var("dense/kernel:0")], {x: xv})
    np.testing.assert_allclose(out, xv @ k, rtol=1e-5, atol=1e-6)


def test_dense_reuse_shares_variables():
    a = tf.placeholder(tf.float32, [None, 4])
    b = tf.placeholder(tf.float32, [None, 4])
    ya = tf.layers.dense(a, 3, name="shared")
    yb = tf.layers.dense(b, 3, name="shared", reuse=True)
    assert [v.name for v in tf.global_variables()] == ["shared/kernel:0", "shared/bias:0"]
    xv = rnd(2, 4)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        va, vb = sess.run([ya, yb], {a: xv, b: xv})
    np.testing.assert_allclose(va, vb)
    with pytest.raises(ValueError, match="already exists"):
        tf.layers.dense(a, 3, name="shared")


def test_dense_kernel_regularizer_collected():
    x = tf.placeholder(tf.float32, [None, 4])
    tf.layers.dense(x, 3, kernel_regularizer=lambda w: 0.5 * tf.reduce_sum(tf.square(w)))
    regs = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert len(regs) == 1
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        r, k = sess.run([regs[0], var("dense/kernel:0")])
    np.testing.assert_allclose(r, 0.5 * (k ** 2).sum(), rtol=1e-5)


# -- conv, pooling, flatten -------------------------------------------------------------------

def test_conv2d_shapes_and_values():
    x = tf.placeholder(tf.float32, [2, 7, 6, 3])
    same = tf.layers.conv2d(x, 4, 3, padding="same")
    valid = tf.layers.conv2d(x, 5, (3, 2), strides=2, padding="VALID")
    assert same.shape.as_list() == [2, 7, 6, 4]
    assert valid.shape.as_list() == [2, 3, 3, 5]
    assert "conv2d_1/kernel:0" in [v.name for v in tf.global_variables()]

    tiny = tf.placeholder(tf.float32, [1, 4, 5, 2])
    out = tf.layers.conv2d(tiny, 3, (2, 3), activation=tf.nn.relu,
                           bias_initializer=tf.random_uniform_initializer(), name="tiny")
    xv = rnd(1, 4, 5, 2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, k, b = sess.run([out, var("tiny/kernel:0"), var("tiny/bias:0")], {tiny: xv})
    assert k.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(got, np.maximum(ref_conv_valid(xv, k) + b, 0),
                               rtol=1e-5, atol=1e-5)


def test_max_pooling2d_and_flatten():
    xv = rnd(2, 4, 6, 3)
    x = tf.constant(xv)
    p = tf.layers.max_pooling2d(x, 2, 2)
    a = tf.layers.average_pooling2d(x, (2, 3), (2, 3), padding="Valid")
    f = tf.layers.flatten(p)
    assert f.shape.as_list() == [2, 2 * 3 * 3]
    with tf.Session() as sess:
        pv, av, fv = sess.run([p, a, f])
    want = xv.reshape(2, 2, 2, 3, 2, 3).max(axis=(2, 4))
    np.testing.assert_allclose(pv, want)
    np.testing.assert_allclose(av, xv.reshape(2, 2, 2, 2, 3, 3).mean(axis=(2, 4)), rtol=1e-6)
    np.testing.assert_allclose(fv, want.reshape(2, -1))


def test_flatten_unknown_dims():
    x = tf.placeholder(tf.float32, [None, None, 3])
    f = tf.layers.flatten(x)
    xv = rnd(2, 5, 3)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(f, {x: xv}), xv.reshape(2, 15))


# -- dropout ---------------------------------------------------------------------------------

def test_dropout_python_bool():
    xv = np.ones((200, 50), np.float32)
    x = tf.constant(xv)
    off = tf.layers.dropout(x, rate=0.3)
    on = tf.layers.dropout(x, rate=0.3, training=True, seed=3)
    with tf.Session() as sess:
        offv, onv = sess.run([off, on])
    np.testing.assert_array_equal(offv, xv)
    dropped = (onv == 0).mean()
    assert abs(dropped - 0.3) < 0.03
    np.testing.assert_allclose(onv[onv != 0], 1 / 0.7, rtol=1e-6)


def test_dropout_training_tensor():
    xv = np.ones((100, 40), np.float32)
    x = tf.constant(xv)
    training = tf.placeholder(tf.bool, [])
    y = tf.layers.dropout(x, rate=0.5, training=training)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {training: False}), xv)
        onv = sess.run(y, {training: True})
    assert abs((onv == 0).mean() - 0.5) < 0.04
    np.testing.assert_allclose(onv[onv != 0], 2.0)


# -- batch normalization ----------------------------------------------------------------------

def test_batch_normalization_training_and_inference():
    x = tf.placeholder(tf.float32, [None, 3])
    training = tf.placeholder(tf.bool, [])
    y = tf.layers.batch_normalization(x, momentum=0.9, training=training)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert len(updates) == 2
    xv = rnd(16, 3) * 3 + 1
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, _ = sess.run([y, updates], {x: xv, training: True})
        mm, mv = sess.run([var("batch_normalization/moving_mean:0"),
                           var("batch_normalization/moving_variance:0")])
        inf = sess.run(y, {x: xv, training: False})
    mean, v = xv.mean(0), xv.var(0)
    np.testing.assert_allclose(out, (xv - mean) / np.sqrt(v + 1e-3), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(mm, 0.1 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mv, 0.9 + 0.1 * v, rtol=1e-5)
    np.testing.assert_allclose(inf, (xv - mm) / np.sqrt(mv + 1e-3), rtol=1e-4, atol=1e-4)


# -- losses ----------------------------------------------------------------------------------

def test_losses_match_numpy_with_weights():
    logits = rnd(6, 4)
    labels = RNG.randint(0, 4, 6)
    onehot = np.eye(4, dtype=np.float32)[labels]
    w = np.array([1, 0, 2, 0.5, 0, 1], np.float32)
    pred, targ = rnd(6, 3), rnd(6, 3)
    w2 = np.array([[1], [2], [0], [1], [3], [0]], np.float32)
    ls = 0.2
    smooth = onehot * (1 - ls) + ls / 4
    cases = [
        (tf.losses.sparse_softmax_cross_entropy(labels, logits),
         ref_sparse_xent(labels, logits).mean()),
        (tf.losses.sparse_softmax_cross_entropy(labels, logits, weights=w),
         by_nonzero(ref_sparse_xent(labels, logits), w)),
        (tf.losses.softmax_cross_entropy(onehot, logits, weights=w),
         by_nonzero(ref_xent(onehot, logits), w)),
        (tf.losses.softmax_cross_entropy(onehot, logits, label_smoothing=ls),
         ref_xent(smooth, logits).mean()),
        (tf.losses.mean_squared_error(targ, pred), ((pred - targ) ** 2).mean()),
        (tf.losses.mean_squared_error(targ, pred, weights=w2),
         by_nonzero((pred - targ) ** 2, w2)),
        (tf.losses.absolute_difference(targ, pred, weights=2.0), 2 * np.abs(pred - targ).mean()),
        (tf.losses.absolute_difference(targ, pred, weights=w2,
                                       reduction=tf.losses.Reduction.SUM),
         (np.abs(pred - targ) * w2).sum()),
        (tf.losses.mean_squared_error(targ, pred, weights=w2,
                                      reduction=tf.losses.Reduction.MEAN),
         ((pred - targ) ** 2 * w2).sum() / np.broadcast_to(w2, pred.shape).sum()),
        (tf.losses.mean_squared_error(targ, pred, weights=w2,
                                      reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE),
         ((pred - targ) ** 2 * w2).sum() / pred.size),
        (tf.losses.mean_squared_error(targ, pred, weights=0.0), 0.0),
    ]
    with tf.Session() as sess:
        got = sess.run([c[0] for c in cases])
    for g, (_, want) in zip(got, cases):
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6)


def test_reduction_none_keeps_shape():
    pred, targ = rnd(4, 3), rnd(4, 3)
    w = np.array([[1], [0], [2], [1]], np.float32)
    loss = tf.losses.mean_squared_error(targ, pred, weights=w,
                                        reduction=tf.losses.Reduction.NONE)
    assert loss.shape.as_list() == [4, 3]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(loss), (pred - targ) ** 2 * w, rtol=1e-5)


def test_collections_and_total_loss():
    x = tf.constant(rnd(4, 3))
    tf.layers.dense(x, 2, kernel_regularizer=lambda k: tf.reduce_sum(tf.abs(k)))
    a = tf.losses.mean_squared_error(rnd(4, 2), rnd(4, 2))
    b = tf.losses.absolute_difference(rnd(4, 2), rnd(4, 2), loss_collection=None)
    c = tf.losses.absolute_difference(rnd(4, 2), rnd(4, 2), scope="extra")
    assert tf.losses.get_losses() == [a, c]
    assert tf.losses.get_losses(scope="extra") == [c]
    tf.losses.add_loss(b)
    assert tf.losses.get_losses() == [a, c, b]
    regs = tf.losses.get_regularization_losses()
    assert len(regs) == 1
    total = tf.losses.get_total_loss()
    no_reg = tf.losses.get_total_loss(add_regularization_losses=False)
    reg = tf.losses.get_regularization_loss()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        av, bv, cv, rv, tv, nv, rsum = sess.run([a, b, c, regs[0], total, no_reg, reg])
    np.testing.assert_allclose(tv, av + bv + cv + rv, rtol=1e-5)
    np.testing.assert_allclose(nv, av + bv + cv, rtol=1e-5)
    np.testing.assert_allclose(rsum, rv, rtol=1e-6)


def test_total_loss_without_losses_and_empty_regularization():
    with pytest.raises(ValueError, match="no losses"):
        tf.losses.get_total_loss()
    with tf.Session() as sess:
        assert sess.run(tf.losses.get_regularization_loss()) == 0.0


def test_training_step_reduces_loss():
    tf.set_random_seed(1)
    xv = rnd(32, 5)
    yv = (xv[:, 0] + xv[:, 1] > 0).astype(np.int32) + (xv[:, 2] > 0.5).astype(np.int32)
    x = tf.placeholder(tf.float32, [None, 5])
    y = tf.placeholder(tf.int32, [None])
    hidden = tf.layers.dense(x, 8, activation=tf.nn.relu)
    logits = tf.layers.dense(hidden, 3)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, {x: xv, y: yv})
        for _ in range(30):
            sess.run(train, {x: xv, y: yv})
        last = sess.run(loss, {x: xv, y: yv})
    assert last < 0.8 * first


# -- errors ----------------------------------------------------------------------------------

def test_bad_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match="dense: inputs must have rank >= 2"):
        tf.layers.dense(tf.constant([1.0, 2.0]), 3)
    with pytest.raises(ValueError, match="last dimension"):
        tf.layers.dense(tf.placeholder(tf.float32, [None, None]), 3)
    with pytest.raises(TypeError, match="floating point"):
        tf.layers.dense(tf.constant([[1, 2]]), 3)
    img = tf.placeholder(tf.float32, [1, 5, 5, 2])
    with pytest.raises(ValueError, match="padding must be 'same' or 'valid'.*'full'"):
        tf.layers.conv2d(img, 2, 3, padding="full")
    with pytest.raises(ValueError, match="channels_first"):
        tf.layers.conv2d(img, 2, 3, data_format="channels_first")
    with pytest.raises(ValueError, match="kernel_size"):
        tf.layers.conv2d(img, 2, (3, 3, 3))
    with pytest.raises(ValueError, match="rank 4"):
        tf.layers.max_pooling2d(tf.placeholder(tf.float32, [5, 5, 2]), 2, 2)
    with pytest.raises(ValueError, match="rate must be in"):
        tf.layers.dropout(img, rate=1.5)
    with pytest.raises(ValueError, match="Invalid Reduction"):
        tf.losses.mean_squared_error(rnd(2), rnd(2), reduction="avg")
    with pytest.raises(ValueError, match="do not match"):
        tf.losses.mean_squared_error(rnd(2, 3), rnd(2, 4))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        tf.losses.mean_squared_error(rnd(2, 3), rnd(2, 3), weights=np.ones(4, np.float32))
    with pytest.raises(TypeError, match="labels must be integers"):
        tf.losses.sparse_softmax_cross_entropy(rnd(3), rnd(3, 2))


def test_huber_log_and_sigmoid_losses_match_numpy():
    rng = np.random.default_rng(3)
    labels = (rng.random((4, 3)) > 0.5).astype(np.float32)
    preds = rng.random((4, 3)).astype(np.float32) * 0.9 + 0.05
    logits = rng.normal(size=(4, 3)).astype(np.float32) * 3
    w = np.array([[1.0], [0.0], [2.0], [0.5]], np.float32)
    nonzero = np.count_nonzero(np.broadcast_to(w, labels.shape))

    err = np.abs(preds * 4 - labels)  # some errors above delta=1, some below
    huber = np.where(err <= 1.0, 0.5 * err ** 2, err - 0.5)
    eps = 1e-7
    logl = -(labels * np.log(preds + eps) + (1 - labels) * np.log(1 - preds + eps))
    smooth = labels * 0.8 + 0.1
    sig = np.maximum(logits, 0) - logits * smooth + np.log1p(np.exp(-np.abs(logits)))

    ops = [tf.losses.huber_loss(labels, preds * 4, weights=w, delta=1.0),
           tf.losses.log_loss(labels, preds, weights=w),
           tf.losses.sigmoid_cross_entropy(labels, logits, weights=w, label_smoothing=0.2)]
    with tf.Session() as sess:
        got = sess.run(ops)
    for value, per in zip(got, (huber, logl, sig)):
        np.testing.assert_allclose(value, (per * w).sum() / nonzero, rtol=1e-5)
    assert len(tf.get_collection(tf.GraphKeys.LOSSES)) == 3


def test_layers_in_a_scope_reentered_with_reuse_restart_their_numbering():
    """A second tower under ``variable_scope("ConvNet", reuse=True)`` names its layers
    as the first did and shares their variables (a multi-tower program's pattern)."""
    x = tf.constant(np.random.RandomState(0).randn(2, 6, 6, 1).astype(np.float32))

    def tower(reuse):
        with tf.variable_scope("ConvNet", reuse=reuse):
            h = tf.layers.conv2d(x, 4, 3, activation=tf.nn.relu)
            h = tf.layers.conv2d(h, 4, 3)
            return tf.layers.dense(tf.layers.flatten(h), 2)

    first, second = tower(False), tower(True)
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == ["ConvNet/conv2d/bias", "ConvNet/conv2d/kernel", "ConvNet/conv2d_1/bias",
                     "ConvNet/conv2d_1/kernel", "ConvNet/dense/bias", "ConvNet/dense/kernel"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b = sess.run([first, second])
    np.testing.assert_array_equal(a, b)
    # Re-entered by its VariableScope object: the same numbering again.
    with tf.variable_scope("ConvNet") as scope:
        pass
    with tf.variable_scope(scope, reuse=True):
        assert tf.layers.conv2d(x, 4, 3).op.inputs  # finds ConvNet/conv2d/kernel
    assert len(tf.global_variables()) == 6
