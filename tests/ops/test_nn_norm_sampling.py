"""top_k, lrn, zero_fraction, the batch normalizations, candidate samplers and the sampled
losses (nce_loss, sampled_softmax_loss): numpy references, gradients, errors."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

RNG = np.random.RandomState(3)
FLT_MAX = np.finfo(np.float32).max


def run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def rnd(*shape):
    return RNG.uniform(-1.0, 1.0, shape)


# -- top_k -----------------------------------------------------------------------------------

def test_top_k_sorted_with_ties_by_lower_index():
    x = np.array([[1.0, 3.0, 3.0, 2.0, 3.0], [5.0, -1.0, 7.0, 7.0, 0.0]], np.float32)
    res = tf.nn.top_k(x, 3)
    assert res.values.name == "TopKV2:0" and res.indices.name == "TopKV2:1"
    assert res.values.shape.as_list() == [2, 3]
    vals, idx = run(res)
    np.testing.assert_array_equal(idx, [[1, 2, 4], [2, 3, 0]])
    np.testing.assert_array_equal(vals, [[3, 3, 3], [7, 7, 5]])
    assert idx.dtype == np.int32 and vals.dtype == np.float32
    ints = np.array([np.iinfo(np.int32).min, 4, -2, 4], np.int32)
    v2, i2 = run(tf.nn.top_k(ints, 4))
    np.testing.assert_array_equal(i2, [1, 3, 2, 0])
    np.testing.assert_array_equal(v2, ints[[1, 3, 2, 0]])
    assert run(tf.nn.top_k(x, 0)).values.shape == (2, 0)


def test_top_k_matches_numpy_and_gradient():
    x = RNG.permutation(60).reshape(3, 4, 5).astype(np.float64)
    vals, idx = run(tf.nn.top_k(x, 2))
    ref = np.argsort(-x, axis=-1, kind="stable")[..., :2]
    np.testing.assert_array_equal(idx, ref)
    np.testing.assert_array_equal(vals, np.take_along_axis(x, ref, -1))
    check_gradients(lambda a: tf.nn.top_k(a, 2).values, [x * 0.1])
    # A few of many entries, with ties straddling the k-th place (the selecting path).
    for dt in (np.float32, np.int64):
        many = RNG.randint(-3, 4, (6, 100)).astype(dt)
        _, got = run(tf.nn.top_k(many, 4))
        np.testing.assert_array_equal(got, np.argsort(-many, axis=-1, kind="stable")[:, :4])
    k = tf.placeholder(tf.int32, [])
    out = tf.nn.top_k(x, k)
    assert out.values.shape.as_list() == [3, 4, None]
    assert run(out.values, {k: 4}).shape == (3, 4, 4)
    with pytest.raises(tf.errors.InvalidArgumentError):
        run(out.values, {k: 6})
    with pytest.raises(ValueError, match="at least k"):
        tf.nn.top_k(x, 6)


def test_in_top_k_and_math_aliases():
    p = np.array([[0.1, 0.5, 0.5], [0.9, 0.05, 0.05]], np.float32)
    np.testing.assert_array_equal(run(tf.nn.in_top_k(p, [2, 1], 1)), [True, False])
    assert tf.math.top_k is tf.nn.top_k and tf.math.in_top_k is tf.nn.in_top_k


# -- normalization ---------------------------------------------------------------------------

def ref_lrn(x, r, bias, alpha, beta):
    out = np.empty_like(x)
    c = x.shape[-1]
    for d in range(c):
        sq = (x[..., max(d - r, 0):d + r + 1] ** 2).sum(-1)
        out[..., d] = x[..., d] / (bias + alpha * sq) ** beta
    return out


@pytest.mark.parametrize("r,bias,alpha,beta", [(5, 1.0, 1.0, 0.5), (1, 2.0, 0.3, 0.75),
                                               (0, 1.0, 0.5, 1.0)])
def test_lrn_values_and_gradient(r, bias, alpha, beta):
    x = rnd(2, 3, 2, 7)
    got = run(tf.nn.local_response_normalization(x, r, bias, alpha, beta))
    np.testing.assert_allclose(got, ref_lrn(x, r, bias, alpha, beta), rtol=1e-12)
    check_gradients(lambda a: tf.nn.lrn(a, r, bias, alpha, beta), [x])
    with pytest.raises(ValueError, match="rank 4"):
        tf.nn.lrn(rnd(3, 7))


def test_zero_fraction():
    z = tf.nn.zero_fraction(np.array([[0.0, 1.0], [0.0, 0.0]]))
    assert z.dtype == tf.float32 and z.name == "zero_fraction/fraction:0"
    assert run(z) == pytest.approx(0.75)
    assert run(tf.nn.zero_fraction(np.array([1, 2, 0], np.int32))) == pytest.approx(1 / 3)


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_fused_batch_norm_training_and_inference(fmt):
    x = rnd(3, 4, 2, 5) * 3 + 1
    scale, offset = RNG.uniform(0.5, 1.5, 5), rnd(5)
    xin = x if fmt == "NHWC" else np.ascontiguousarray(np.transpose(x, [0, 3, 1, 2]))
    y, m, v = run(tf.nn.fused_batch_norm(xin, scale, offset, epsilon=1e-3, data_format=fmt))
    flat = x.reshape(-1, 5)
    mean, var = flat.mean(0), flat.var(0)
    ref = (x - mean) / np.sqrt(var + 1e-3) * scale + offset
    if fmt == "NCHW":
        ref = np.transpose(ref, [0, 3, 1, 2])
    np.testing.assert_allclose(y, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m, mean)
    np.testing.assert_allclose(v, flat.var(0, ddof=1))
    pm, pv = rnd(5), RNG.uniform(0.5, 2, 5)
    yi, mi, vi = run(tf.nn.fused_batch_norm(x, scale, offset, pm, pv, is_training=False))
    np.testing.assert_allclose(yi, (x - pm) / np.sqrt(pv + 1e-3) * scale + offset, rtol=1e-10)
    np.testing.assert_array_equal(mi, pm)
    check_gradients(lambda a, s, o: tf.nn.fused_batch_norm(a, s, o, data_format=fmt)[0],
                    [xin, scale, offset])
    with pytest.raises(ValueError, match="mean and variance"):
        tf.nn.fused_batch_norm(x, scale, offset, is_training=False)


def test_fused_batch_norm_float32_and_averaging_factor():
    x = rnd(2, 3, 3, 4).astype(np.float32)
    y, m, v = tf.nn.fused_batch_norm(x, np.ones(4, np.float32), np.zeros(4, np.float32),
                                     mean=np.zeros(4, np.float32),
                                     variance=np.ones(4, np.float32),
                                     exponential_avg_factor=0.25)
    assert y.dtype == tf.float32
    _, mv, vv = run([y, m, v])
    flat = x.reshape(-1, 4).astype(np.float64)
    np.testing.assert_allclose(mv, 0.25 * flat.mean(0), rtol=1e-5)
    np.testing.assert_allclose(vv, 0.75 + 0.25 * flat.var(0, ddof=1), rtol=1e-5)


def test_batch_normalization_and_global_normalization():
    x, m, v, beta, gamma = rnd(2, 2, 2, 3), rnd(3), RNG.uniform(0.5, 1, 3), rnd(3), rnd(3)
    ref = (x - m) / np.sqrt(v + 0.01) * gamma + beta
    np.testing.assert_allclose(run(tf.nn.batch_normalization(x, m, v, beta, gamma, 0.01)), ref)
    got = run(tf.nn.batch_norm_with_global_normalization(x, m, v, beta, gamma, 0.01, True))
    np.testing.assert_allclose(got, ref)
    got = run(tf.nn.batch_norm_with_global_normalization(x, m, v, beta, gamma, 0.01, False))
    np.testing.assert_allclose(got, (x - m) / np.sqrt(v + 0.01) + beta)
    check_gradients(lambda a, b, c: tf.nn.batch_normalization(a, b, c, None, None, 0.1),
                    [x, m, v])


# -- candidate samplers ----------------------------------------------------------------------

TRUE = np.array([[1, 2], [3, 4]], np.int64)


def _tries(expected, p):
    return np.log1p(-expected.astype(np.float64)) / np.log1p(-p)


def test_uniform_candidate_sampler_unique_and_not():
    s, te, se = run(tf.nn.uniform_candidate_sampler(TRUE, 2, 8, True, 20, seed=5))
    assert s.dtype == np.int64 and len(set(s.tolist())) == 8 and s.min() >= 0 and s.max() < 20
    # Unique sampling: expected = 1 - (1 - p)^tries for one integer tries >= num_sampled.
    tries = _tries(se, 1 / 20)
    assert np.allclose(tries, np.round(tries[0]), atol=1e-3) and np.round(tries[0]) >= 8
    np.testing.assert_allclose(_tries(te, 1 / 20), tries[0], atol=1e-3)
    s2, te2, se2 = run(tf.nn.uniform_candidate_sampler(TRUE, 2, 8, False, 20, seed=5))
    np.testing.assert_allclose(se2, 8 / 20)
    np.testing.assert_allclose(te2, np.full((2, 2), 8 / 20))


def test_log_uniform_sampler_distribution_and_seeding():
    n, r = 20000, 10
    op = tf.random.log_uniform_candidate_sampler(TRUE, 2, n, False, r, seed=11)
    s, te, se = run(op)
    p = (np.log(np.arange(r) + 2) - np.log(np.arange(r) + 1)) / np.log(r + 1)
    np.testing.assert_allclose(np.bincount(s, minlength=r) / n, p, atol=0.015)
    np.testing.assert_allclose(se, n * p[s], rtol=1e-6)
    np.testing.assert_allclose(te, n * p[TRUE], rtol=1e-6)
    np.testing.assert_array_equal(run(op.sampled_candidates), s)  # same seed, new session
    u, tu, su = run(tf.nn.log_uniform_candidate_sampler(TRUE, 2, 4, True, r, seed=2))
    assert len(set(u.tolist())) == 4
    tries = _tries(su, p[u])
    np.testing.assert_allclose(tries, np.round(tries[0]), atol=1e-3)


def test_learned_and_fixed_unigram_samplers(tmp_path):
    op = tf.nn.learned_unigram_candidate_sampler(np.full((50, 1), 3, np.int64), 1, 50, False,
                                                 6, seed=1)
    with tf.Session() as sess:
        first = sess.run(op.sampled_candidates)
        for _ in range(20):
            last, exp = sess.run([op.sampled_candidates, op.sampled_expected_count])
    assert (first == 3).mean() < 0.5 and (last == 3).mean() > 0.9
    assert exp[last == 3][0] == pytest.approx(50 * 1001 / 1006)
    unigrams = [0.0, 4.0, 1.0, 9.0]
    fx = tf.nn.fixed_unigram_candidate_sampler(np.array([[1], [2]], np.int64), 1, 400, False,
                                               6, unigrams=unigrams, num_reserved_ids=2,
                                               distortion=0.5, seed=4)
    s, te, se = run(fx)
    w = np.array([0, 0, 0, 2, 1, 3], np.float64)
    p = w / w.sum()
    assert set(s.tolist()) <= {3, 4, 5}
    np.testing.assert_allclose(se, 400 * p[s], rtol=1e-6)
    np.testing.assert_allclose(te[:, 0], 400 * p[[1, 2]], rtol=1e-6)
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a,1\nb,0\nc,3\n")
    fv = tf.nn.fixed_unigram_candidate_sampler(np.array([[0]], np.int64), 1, 2, True, 3,
                                               vocab_file=str(vocab), seed=2)
    assert sorted(run(fv.sampled_candidates).tolist()) == [0, 2]
    # Three distinct ids cannot come from a vocabulary with two non-zero weights.
    fv3 = tf.nn.fixed_unigram_candidate_sampler(np.array([[0]], np.int64), 1, 3, True, 3,
                                                vocab_file=str(vocab), seed=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-zero"):
        run(fv3)
    with pytest.raises(ValueError, match="exactly one"):
        tf.nn.fixed_unigram_candidate_sampler(TRUE, 2, 2, True, 4)
    with pytest.raises(ValueError, match="range_max"):
        tf.nn.fixed_unigram_candidate_sampler(TRUE, 2, 2, True, 5, unigrams=[1.0, 2.0])
    with pytest.raises(ValueError, match="unique"):
        tf.nn.uniform_candidate_sampler(TRUE, 2, 30, True, 20)
    with pytest.raises(tf.errors.InvalidArgumentError, match="outside"):
        run(tf.nn.uniform_candidate_sampler(np.array([[25]], np.int64), 1, 2, True, 20))


def test_compute_accidental_hits():
    hits = tf.nn.compute_accidental_hits(TRUE, np.array([1, 3, 7, 2, 1], np.int64), 2)
    idx, ids, w = run(hits)
    np.testing.assert_array_equal(idx, [0, 0, 0, 1])
    np.testing.assert_array_equal(ids, [0, 3, 4, 1])
    np.testing.assert_array_equal(w, np.full(4, -FLT_MAX, np.float32))
    assert idx.dtype == np.int32 and ids.dtype == np.int64


# -- sampled losses --------------------------------------------------------------------------

def _sampled_logits(w, b, labels, x, sampled, te, se, remove_hits):
    te, se = te.astype(np.float64), se.astype(np.float64)
    true = np.einsum("bd,btd->bt", x, w[labels]) + b[labels] - np.log(te)
    samp = x @ w[sampled].T + b[sampled] - np.log(se)
    if remove_hits:
        hit = (labels[:, :, None] == sampled[None, None, :]).any(1)
        samp = samp + np.where(hit, -FLT_MAX, 0.0)
    t = labels.shape[1]
    lab = np.concatenate([np.full(true.shape, 1.0 / t), np.zeros(samp.shape)], 1)
    return np.concatenate([true, samp], 1), lab


def _shards(w, n, strategy):
    if strategy == "mod":
        return [w[p::n] for p in range(n)]
    return np.array_split(w, n)


FIXED = (np.array([2, 5, 0, 9], np.int64),
         np.array([[0.3, 0.2], [0.1, 0.4], [0.25, 0.05]], np.float32),
         np.array([0.5, 0.2, 0.7, 0.1], np.float32))


@pytest.mark.parametrize("strategy", ["mod", "div"])
@pytest.mark.parametrize("remove", [False, True])
def test_nce_loss_matches_definition(strategy, remove):
    c, d = 11, 4
    w, b, x = rnd(c, d), rnd(c), rnd(3, d)
    labels = np.array([[1, 2], [5, 7], [0, 9]], np.int64)
    loss = tf.nn.nce_loss([tf.constant(s) for s in _shards(w, 3, strategy)],
                          [tf.constant(s) for s in _shards(b, 3, strategy)], labels, x, 4, c,
                          num_true=2, sampled_values=FIXED, remove_accidental_hits=remove,
                          partition_strategy=strategy)
    logits, lab = _sampled_logits(w, b, labels, x, *FIXED, remove)
    ref = (np.maximum(logits, 0) - logits * lab + np.log1p(np.exp(-np.abs(logits)))).sum(1)
    got = run(loss)
    assert got.shape == (3,)
    np.testing.assert_allclose(got, ref, rtol=1e-9)


def test_sampled_softmax_loss_with_partitioned_variable_and_gradients():
    c, d = 10, 3
    w, b, x = rnd(c, d), rnd(c), rnd(3, d)
    labels = np.array([[2], [5], [0]], np.int64)
    sv = (np.array([2, 4, 7, 1], np.int64), np.full((3, 1), 0.3, np.float32),
          np.array([0.2, 0.3, 0.4, 0.5], np.float32))
    with tf.variable_scope("softmax", partitioner=tf.fixed_size_partitioner(3)):
        wv = tf.get_variable("w", initializer=tf.constant(w))
        bv = tf.get_variable("b", initializer=tf.constant(b))
    assert isinstance(wv, tf.PartitionedVariable)
    loss = tf.nn.sampled_softmax_loss(wv, bv, labels, x, 4, c, sampled_values=sv,
                                      partition_strategy="div")
    logits, lab = _sampled_logits(w, b, labels, x, *sv, True)
    shifted = logits - logits.max(1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    ref = -(lab * np.maximum(log_softmax, -1e30)).sum(1)
    grads = tf.gradients(tf.reduce_sum(loss), list(wv))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(loss), ref, rtol=1e-9)
        rows = [sess.run(g.indices) for g in grads]
    # Only the shards' rows that were looked up receive gradient.
    starts = [0, 4, 7]  # shards of 4, 3 and 3 rows
    looked_up = sorted(np.concatenate([r + s for r, s in zip(rows, starts)]).tolist())
    assert looked_up == [0, 1, 2, 2, 4, 5, 7]
    check_gradients(lambda a, ww: tf.nn.sampled_softmax_loss(
        ww, tf.constant(b), labels, a, 4, c, sampled_values=sv), [x, w])
    check_gradients(lambda a, ww: tf.nn.nce_loss(
        ww, tf.constant(b), labels, a, 4, c, sampled_values=sv), [x, w])


def test_sampled_losses_with_their_own_sampler_and_errors():
    w, b, x = rnd(50, 4), rnd(50), rnd(6, 4)
    labels = RNG.randint(0, 50, (6, 1))
    loss = tf.nn.sampled_softmax_loss(w, b, labels, x, 5, 50, seed=3)
    nce = tf.nn.nce_loss(w, b, labels, x, 5, 50)
    out, out2 = run([loss, nce])
    assert out.shape == (6,) and np.all(np.isfinite(out)) and np.all(out > 0)
    assert out2.shape == (6,) and np.all(np.isfinite(out2))
    with pytest.raises(ValueError, match="partition_strategy"):
        tf.nn.nce_loss(w, b, labels, x, 5, 50, partition_strategy="range")
