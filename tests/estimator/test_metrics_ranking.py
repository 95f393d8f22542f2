"""tf.metrics.(sparse_)average_precision_at_k, tf.contrib.metrics.f1_score and
tf.contrib.layers.group_norm against numpy references (the average precision values of
the first test are TensorFlow 1.15's)."""

import numpy as np
import pytest

import tensorfleet as tf


def _np_ap(labels, scores, k):
    out = []
    for lab, s in zip(labels, scores):
        lab = {int(x) for x in lab if x >= 0}
        top = np.argsort(-s, kind="stable")[:k]
        hits, total = 0, 0.0
        for r, c in enumerate(top, start=1):
            if c in lab:
                hits += 1
                total += hits / r
        out.append(total / min(k, len(lab)) if lab else 0.0)
    return np.array(out)


def test_average_precision_at_k_matches_tf_values():
    pred = tf.constant([[0.1, 0.5, 0.3, 0.9, 0.2], [0.6, 0.1, 0.2, 0.05, 0.7],
                        [0.3, 0.2, 0.1, 0.4, 0.5]])
    lab = tf.constant([[3, 2, -1], [1, 4, 0], [2, -1, -1]], tf.int64)
    ap, up = tf.metrics.average_precision_at_k(lab, pred, 3)
    ap2, up2 = tf.metrics.sparse_average_precision_at_k(tf.constant([1, 4, 2], tf.int64), pred,
                                                        2, weights=[1.0, 2.0, 0.5])
    names = [v.op.name for v in tf.local_variables()]
    assert names[:2] == ["average_precision_at_3/total", "average_precision_at_3/max"]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(up) == pytest.approx(0.5)
        assert sess.run(ap) == pytest.approx(0.5)
        assert sess.run(up2) == pytest.approx(0.7142857142857143)
        assert sess.run(ap).dtype == np.float64


def test_average_precision_streams_over_batches_like_numpy():
    rng = np.random.RandomState(0)
    scores = rng.rand(12, 7)
    labels = rng.randint(-1, 7, size=(12, 3))
    labels[:, 0] = rng.randint(0, 7, size=12)
    s = tf.placeholder(tf.float32, [None, 7])
    l = tf.placeholder(tf.int64, [None, 3])
    ap, up = tf.metrics.average_precision_at_k(l, s, 4)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for b in range(3):
            sess.run(up, {s: scores[4 * b:4 * b + 4], l: labels[4 * b:4 * b + 4]})
        got = sess.run(ap)
    want = _np_ap(labels, scores.astype(np.float32), 4).mean()
    assert got == pytest.approx(want, rel=1e-9)
    sp = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], tf.constant([3, 0, 1], tf.int64), [2, 2])
    ap_sp, up_sp = tf.metrics.average_precision_at_k(sp, tf.constant([[0.1, 0.2, 0.3, 0.4],
                                                                      [0.4, 0.1, 0.3, 0.2]]), 2)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        # row 0: label 3 at rank 1 -> 1; row 1: labels {0, 1}, top-2 = [0, 2] -> 0.5
        assert sess.run(up_sp) == pytest.approx(0.75)
    with pytest.raises(ValueError, match="k must be"):
        tf.metrics.average_precision_at_k(l, s, 0)
    with pytest.raises(TypeError, match="integer"):
        tf.metrics.average_precision_at_k(tf.constant([[1.0]]), s, 1)


def test_f1_score_is_best_over_thresholds():
    rng = np.random.RandomState(3)
    probs = rng.rand(50).astype(np.float32)
    labels = rng.rand(50) < probs
    f1, up = tf.contrib.metrics.f1_score(tf.constant(labels), tf.constant(probs),
                                         num_thresholds=11)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(up)
        got = sess.run(f1)
    eps = 1e-7
    ts = [-eps] + [(i + 1) / 10 for i in range(9)] + [1 + eps]
    best = 0.0
    for t in ts:
        pos = probs > np.float32(t)
        tp = float(np.sum(pos & labels))
        fp = float(np.sum(pos & ~labels))
        fn = float(np.sum(~pos & labels))
        p, r = tp / (eps + tp + fp), tp / (eps + tp + fn)
        best = max(best, 2 * p * r / (p + r + eps))
    assert got == pytest.approx(best, rel=1e-5)
    with pytest.raises(ValueError, match="num_thresholds"):
        tf.contrib.metrics.f1_score(tf.constant(labels), tf.constant(probs), num_thresholds=1)


def _np_group_norm(x, groups, ch_axis, red):
    shape = list(x.shape)
    c = shape[ch_axis]
    g = x.reshape(shape[:ch_axis] + [groups, c // groups] + shape[ch_axis + 1:])
    axes = tuple(a + (1 if a > ch_axis else 0) for a in red) + (ch_axis + 1,)
    m, v = g.mean(axis=axes, keepdims=True), g.var(axis=axes, keepdims=True)
    return ((g - m) / np.sqrt(v + 1e-6)).reshape(shape)


def test_group_norm_nhwc_and_nchw():
    x = np.random.RandomState(0).randn(2, 3, 4, 6)
    y = tf.contrib.layers.group_norm(tf.constant(x), groups=3)
    xc = np.transpose(x, [0, 3, 1, 2])
    yc = tf.contrib.layers.group_norm(tf.constant(xc), groups=2, channels_axis=1,
                                      reduction_axes=(2, 3), scope="nchw",
                                      param_initializers={"gamma": tf.constant_initializer(2.0),
                                                          "beta": tf.constant_initializer(0.5)})
    names = [v.op.name for v in tf.global_variables()]
    assert names == ["GroupNorm/beta", "GroupNorm/gamma", "nchw/beta", "nchw/gamma"]
    assert y.shape.as_list() == [2, 3, 4, 6]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_c = sess.run([y, yc])
    np.testing.assert_allclose(got, _np_group_norm(x, 3, 3, [1, 2]), atol=1e-12)
    np.testing.assert_allclose(got_c, 2 * _np_group_norm(xc, 2, 1, [2, 3]) + 0.5, atol=1e-12)
    with pytest.raises(ValueError, match="groups"):
        tf.contrib.layers.group_norm(tf.constant(x), groups=4)
    with pytest.raises(ValueError, match="distinct"):
        tf.contrib.layers.group_norm(tf.constant(x), groups=3, reduction_axes=(1, 3))
    with pytest.raises(ValueError, match="mean_close_to_zero"):
        tf.contrib.layers.group_norm(tf.constant(x), groups=3, mean_close_to_zero=True)
