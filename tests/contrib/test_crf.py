"""tf.contrib.crf against brute force over every tag sequence, with numerical gradients."""

import itertools

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

crf = tf.contrib.crf
R = np.random.RandomState(4)


def run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def seq_score(x, trans, seq):
    return (sum(x[t, c] for t, c in enumerate(seq)) +
            sum(trans[a, b] for a, b in zip(seq[:-1], seq[1:])))


def all_scores(x, trans, n):
    return {s: seq_score(x, trans, s) for s in itertools.product(range(x.shape[1]), repeat=n)}


def data(b=3, t=4, n=3):
    x = R.randn(b, t, n)
    trans = R.randn(n, n)
    tags = R.randint(0, n, (b, t)).astype(np.int32)
    return x, trans, tags


LENGTHS = np.array([4, 2, 1], np.int32)


def test_scores_and_log_norm_match_brute_force():
    x, trans, tags = data()
    got = run([crf.crf_sequence_score(x, tags, LENGTHS, trans),
               crf.crf_unary_score(tags, LENGTHS, x),
               crf.crf_binary_score(tags, LENGTHS, trans),
               crf.crf_log_norm(x, LENGTHS, trans)])
    for b, n in enumerate(LENGTHS):
        seq = tuple(tags[b, :n])
        unary = sum(x[b, t, c] for t, c in enumerate(seq))
        np.testing.assert_allclose(got[0][b], seq_score(x[b], trans, seq), rtol=1e-12)
        np.testing.assert_allclose(got[1][b], unary, rtol=1e-12)
        np.testing.assert_allclose(got[2][b], seq_score(x[b], trans, seq) - unary, atol=1e-12)
        logz = np.log(sum(np.exp(v) for v in all_scores(x[b], trans, n).values()))
        np.testing.assert_allclose(got[3][b], logz, rtol=1e-12)


def test_log_likelihood_makes_transitions_variable_and_sums_to_one():
    x, _, tags = data(b=1, t=3, n=2)
    with tf.Graph().as_default():
        with tf.variable_scope("crf_layer"):
            ll, trans = crf.crf_log_likelihood(tf.constant(x), tags, [3])
        assert trans.name == "crf_layer/transitions:0"
        assert trans.shape.as_list() == [2, 2]
        seqs = tf.placeholder(tf.int32, [1, 3])
        ll_any, _ = crf.crf_log_likelihood(tf.constant(x), seqs, [3], trans)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            total = sum(np.exp(s.run(ll_any, {seqs: np.array([q], np.int32)})[0])
                        for q in itertools.product(range(2), repeat=3))
            s.run(ll)
    np.testing.assert_allclose(total, 1.0, rtol=1e-6)


def test_empty_and_single_step_sequences():
    x, trans, tags = data(b=2, t=1)
    lens = np.array([1, 0], np.int32)
    ll, _ = crf.crf_log_likelihood(x, tags, lens, trans)
    norm = crf.crf_log_norm(x, lens, trans)
    v, z = run([ll, norm])
    np.testing.assert_allclose(z, [np.log(np.exp(x[0, 0]).sum()), 0.0])
    np.testing.assert_allclose(v, [x[0, 0, tags[0, 0]] - z[0], 0.0])
    x4, trans4, tags4 = data()
    v4 = run(crf.crf_log_likelihood(x4, tags4, np.array([3, 0, 2], np.int32), trans4)[0])
    assert v4[1] == 0.0


def test_log_likelihood_gradients():
    x, trans, tags = data(b=2, t=4, n=3)
    lens = np.array([4, 3], np.int32)

    def build(xi, ti):
        return crf.crf_log_likelihood(xi, tags, lens, ti)[0]

    check_gradients(build, [x, trans], rtol=1e-4, atol=1e-6)


def test_crf_decode_and_viterbi_decode():
    x, trans, _ = data(b=4, t=5, n=3)
    lens = np.array([5, 3, 1, 4], np.int32)
    tags, best = run(crf.crf_decode(tf.constant(x), tf.constant(trans), lens))
    assert tags.dtype == np.int32 and tags.shape == (4, 5)
    for b, n in enumerate(lens):
        scores = all_scores(x[b], trans, n)
        want = max(scores, key=scores.get)
        assert tuple(tags[b, :n]) == want and np.all(tags[b, n:] == 0)
        np.testing.assert_allclose(best[b], scores[want], rtol=1e-12)
        seq, score = crf.viterbi_decode(x[b, :n], trans)
        assert seq == list(want) and all(isinstance(v, int) for v in seq)
        np.testing.assert_allclose(score, scores[want], rtol=1e-12)
    one_tags, one_best = run(crf.crf_decode(x[:, :1], trans, lens))
    np.testing.assert_array_equal(one_tags[:, 0], x[:, 0].argmax(-1))
    np.testing.assert_allclose(one_best, x[:, 0].max(-1))


def test_forward_cell_step_and_errors():
    trans = R.randn(3, 3)
    cell = crf.CrfForwardRnnCell(tf.constant(trans))
    assert cell.state_size == 3 and cell.output_size == 3
    state, inp = R.randn(2, 3), R.randn(2, 3)
    out, new = cell(tf.constant(inp), tf.constant(state))
    want = inp + np.log(np.exp(state[:, :, None] + trans[None]).sum(axis=1))
    np.testing.assert_allclose(run(new), want, rtol=1e-12)
    with pytest.raises(ValueError, match="viterbi_decode"):
        crf.viterbi_decode(np.zeros((3, 2)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="num_tags"):
        crf.crf_log_likelihood(tf.placeholder(tf.float32, [2, 3, None]), np.zeros((2, 3)),
                               [3, 3])


def test_multitag_sequence_score():
    x, trans, _ = data(b=2, t=3, n=3)
    bitmap = R.rand(2, 3, 3) > 0.4
    bitmap[:, :, 0] = True  # every position allows at least one tag
    lens = np.array([3, 2], np.int32)
    got = run(crf.crf_multitag_sequence_score(x, bitmap, lens, trans))
    for b, n in enumerate(lens):
        scores = [v for s, v in all_scores(x[b], trans, n).items()
                  if all(bitmap[b, t, c] for t, c in enumerate(s))]
        np.testing.assert_allclose(got[b], np.log(np.sum(np.exp(scores))), rtol=1e-12)
    one = run(crf.crf_multitag_sequence_score(x[:, :1], bitmap[:, :1], [1, 1], trans))
    np.testing.assert_allclose(one, np.log((np.exp(x[:, 0]) * bitmap[:, 0]).sum(-1)))
