"""tf.nn.ctc_loss and the CTC decoders against brute force over every alignment."""

import itertools

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

R = np.random.RandomState(11)


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def collapse(path, blank, merge):
    out, prev = [], None
    for c in path:
        if c != blank and not (merge and c == prev):
            out.append(c)
        prev = c
    return tuple(out)


def sequence_probs(probs, merge=True):
    """p(label sequence) for every sequence, summing over all alignments of ``probs``."""
    t, c = probs.shape
    out = {}
    for path in itertools.product(range(c), repeat=t):
        p = np.prod(probs[np.arange(t), path])
        key = collapse(path, c - 1, merge)
        out[key] = out.get(key, 0.0) + p
    return out


def sparse(seqs):
    idx = [[b, i] for b, s in enumerate(seqs) for i in range(len(s))]
    vals = [v for s in seqs for v in s]
    return tf.SparseTensorValue(np.array(idx, np.int64).reshape(-1, 2),
                                np.array(vals, np.int32),
                                np.array([len(seqs), max(len(s) for s in seqs)], np.int64))


def run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def ctc(x, seqs, lens, **kw):
    return run(tf.nn.ctc_loss(sparse(seqs), tf.constant(x), np.array(lens, np.int32), **kw))


@pytest.mark.parametrize("merge", [True, False])
def test_loss_equals_brute_force(merge):
    x = R.randn(5, 4, 3)
    seqs = [[0, 1], [1, 1], [0], [1, 0, 1]]
    lens = [5, 5, 3, 4]
    loss = ctc(x, seqs, lens, ctc_merge_repeated=merge)
    assert loss.dtype == np.float64 and loss.shape == (4,)
    for b in range(4):
        p = sequence_probs(softmax(x[:lens[b], b]), merge).get(tuple(seqs[b]), 0.0)
        np.testing.assert_allclose(loss[b], -np.log(p), rtol=1e-9)


def test_float32_and_batch_major():
    x = np.array([[[0.5, -1.0, 0.3], [0.1, 0.2, 0.3]],
                  [[1.5, 0.0, -0.3], [-0.4, 0.9, 0.0]],
                  [[0.0, 0.7, 0.2], [0.3, 0.3, 0.3]]], np.float32)
    seqs = [[0, 1], [1]]
    ref = [-np.log(sequence_probs(softmax(x[:, b].astype(np.float64)))[tuple(seqs[b])])
           for b in range(2)]
    loss = ctc(x, seqs, [3, 3])
    assert loss.dtype == np.float32
    np.testing.assert_allclose(loss, ref, rtol=1e-5)
    lb = ctc(np.transpose(x, (1, 0, 2)), seqs, [3, 3], time_major=False)
    np.testing.assert_allclose(lb, loss, rtol=1e-6)


def test_collapse_repeated_labels():
    x = R.randn(6, 1, 4)
    got = ctc(x, [[2, 2, 1, 1]], [6], preprocess_collapse_repeated=True)
    want = ctc(x, [[2, 1]], [6])
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_gradient_matches_numeric_and_is_zero_past_length():
    seqs = [[0, 1], [1, 1], [2]]
    lab = sparse(seqs)
    lens = np.array([5, 4, 2], np.int32)
    x = R.randn(5, 3, 4)

    sym, _ = check_gradients(lambda xi: tf.nn.ctc_loss(lab, xi, lens), [x], rtol=1e-4,
                             atol=1e-6)
    assert np.all(sym[0][4, 1] == 0) and np.all(sym[0][2:, 2] == 0)


def test_infeasible_entry_is_inf_with_softmax_gradient():
    x = R.randn(3, 1, 3)
    xt = tf.constant(x)
    loss = tf.nn.ctc_loss(sparse([[1, 1]]), xt, np.array([3], np.int32))
    g = tf.gradients(loss, xt)[0]
    lv, gv = run([loss, g])
    # "1 1" needs a blank between: three steps hold it, so infeasible only with two.
    assert np.isfinite(lv[0])
    loss2 = tf.nn.ctc_loss(sparse([[1, 1]]), xt, np.array([2], np.int32))
    g2 = tf.gradients(loss2, xt)[0]
    lv2, gv2 = run([loss2, g2])
    assert lv2[0] == np.inf
    np.testing.assert_allclose(gv2[:2, 0], softmax(x[:2, 0]), rtol=1e-12)
    assert np.all(gv2[2] == 0)


def test_longer_labels_error_or_ignored():
    x = R.randn(4, 2, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="required: 3, available: 2"):
        ctc(x, [[0, 1, 0], [1]], [2, 4])
    loss = ctc(x, [[0, 1, 0], [1]], [2, 4], ignore_longer_outputs_than_inputs=True)
    assert loss[0] == 0
    np.testing.assert_allclose(loss[1], ctc(x[:, 1:], [[1]], [4])[0])


@pytest.mark.parametrize("seqs,lens,msg", [
    ([[0], [-1]], [3, 3], "nonnegative"),
    ([[0], [5]], [3, 3], "num_classes"),
    ([[0], [1]], [3, 9], "sequence_length"),
    ([[0], [1]], [3, -1], "sequence_length"),
])
def test_bad_runtime_input(seqs, lens, msg):
    with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
        ctc(R.randn(4, 2, 3), seqs, lens)


def test_empty_label_sequence_is_refused():
    lab = tf.SparseTensorValue(np.array([[0, 0]], np.int64), np.array([1], np.int32),
                               np.array([2, 1], np.int64))
    with pytest.raises(tf.errors.InvalidArgumentError, match="zero in batch 1"):
        run(tf.nn.ctc_loss(lab, tf.constant(R.randn(3, 2, 3)), np.array([3, 3], np.int32)))


def test_build_time_errors():
    x = tf.constant(R.randn(3, 2, 3))
    with pytest.raises(TypeError, match="SparseTensor"):
        tf.nn.ctc_loss(np.zeros((2, 2)), x, [3, 3])
    with pytest.raises(ValueError, match="3-D"):
        tf.nn.ctc_loss(sparse([[0], [1]]), tf.constant(R.randn(3, 2)), [3, 3])
    with pytest.raises(TypeError, match="float32 or float64"):
        tf.nn.ctc_loss(sparse([[0], [1]]), tf.constant(np.zeros((3, 2, 3), np.int32)), [3, 3])


def greedy_ref(x, lens, merge):
    out = []
    for b, n in enumerate(lens):
        best = x[:n, b].argmax(-1)
        out.append(list(collapse(best, x.shape[2] - 1, merge)))
    return out


@pytest.mark.parametrize("merge", [True, False])
def test_greedy_decoder(merge):
    x = R.randn(7, 3, 4).astype(np.float32)
    x[1, 0] = x[0, 0]  # a repeat with no blank between
    x[2, 0] = [0, 0, 0, 5]
    x[3, 0] = x[0, 0]  # the same class again after a blank
    lens = [7, 5, 2]
    (dec,), score = tf.nn.ctc_greedy_decoder(tf.constant(x), np.array(lens, np.int32),
                                             merge_repeated=merge)
    d, s = run([dec, score])
    want = greedy_ref(x, lens, merge)
    dense = np.full(d.dense_shape, -1)
    dense[tuple(d.indices.T)] = d.values
    assert d.values.dtype == np.int64 and list(d.dense_shape) == [3, max(map(len, want))]
    for b in range(3):
        assert [v for v in dense[b] if v >= 0] == want[b]
    np.testing.assert_allclose(s[:, 0], [-x[:n, b].max(-1).sum() for b, n in enumerate(lens)],
                               rtol=1e-6)


def test_beam_search_finds_the_most_probable_sequences():
    x = R.randn(4, 2, 3) * 2
    lens = [4, 3]
    dec, logp = tf.nn.ctc_beam_search_decoder(tf.constant(x), np.array(lens, np.int32),
                                              beam_width=64, top_paths=3,
                                              merge_repeated=False)
    d, lp = run([dec, logp])
    assert lp.shape == (2, 3)
    for b, n in enumerate(lens):
        probs = sequence_probs(softmax(x[:n, b]))
        best = sorted(probs.items(), key=lambda kv: -kv[1])[:3]
        for k, (seq, p) in enumerate(best):
            got = d[k].values[d[k].indices[:, 0] == b].tolist()
            assert tuple(got) == seq
            np.testing.assert_allclose(lp[b, k], np.log(p), rtol=1e-9)


def test_beam_search_arguments():
    x = tf.constant(R.randn(3, 1, 3))
    with pytest.raises(ValueError, match="top_paths"):
        tf.nn.ctc_beam_search_decoder(x, [3], beam_width=2, top_paths=3)
    with pytest.raises(ValueError, match="beam_width"):
        tf.nn.ctc_beam_search_decoder(x, [3], beam_width=0)


@pytest.mark.parametrize("kw,want", [
    ({}, [5.630445, 4.1625576, 3.6570578]),
    ({"ctc_merge_repeated": False}, [5.479369, 5.5168943, 3.7674463]),
    ({"preprocess_collapse_repeated": True}, [5.1235833, 4.1625576, 3.6570578]),
])
def test_numbers_recorded_from_tensorflow(kw, want):
    x = np.random.RandomState(0).randn(4, 3, 4).astype(np.float32)
    np.testing.assert_allclose(ctc(x, [[1, 1], [2], [0, 1]], [4, 4, 3], **kw), want,
                               rtol=1e-5)


@pytest.mark.parametrize("blank", [0, 2, -1])
def test_ctc_loss_v2_dense_and_sparse_labels(blank):
    x = R.randn(5, 2, 4)
    b = blank % 4
    dense = np.array([[1, 2, 2], [3, 0, 0]], np.int32) if b == 0 else \
        np.array([[0, 1, 1], [3 if b != 3 else 2, 0, 0]], np.int32)
    lens = [3, 1]
    got = run(tf.nn.ctc_loss_v2(dense, tf.constant(x), lens, [5, 4], blank_index=None
                                if blank == 0 else blank))
    # reference: the same sequences with the blank class moved to the end
    order = [c for c in range(4) if c != b] + [b]
    moved = x[:, :, order]
    for k in range(2):
        seq = tuple(order.index(int(v)) for v in dense[k, :lens[k]])
        steps = [5, 4][k]
        p = sequence_probs(softmax(moved[:steps, k]))[seq]
        np.testing.assert_allclose(got[k], -np.log(p), rtol=1e-9)
    sp = tf.SparseTensorValue(np.array([[0, 0], [0, 1], [0, 2], [1, 0]], np.int64),
                              dense[[0, 0, 0, 1], [0, 1, 2, 0]], np.array([2, 3], np.int64))
    np.testing.assert_allclose(run(tf.nn.ctc_loss_v2(sp, tf.constant(x), None, [5, 4],
                                                     blank_index=blank)), got, rtol=1e-12)


def test_ctc_loss_v2_numbers_gradient_and_errors():
    x = np.random.RandomState(0).randn(5, 2, 4).astype(np.float32)
    lab = np.array([[1, 2, 2], [3, 0, 0]], np.int32)
    # recorded from TensorFlow
    np.testing.assert_allclose(run(tf.nn.ctc_loss_v2(lab, x, [3, 1], [5, 4])),
                               [5.0677614, 3.8626628], rtol=1e-5)
    np.testing.assert_allclose(run(tf.nn.ctc_loss_v2(lab, x, [3, 1], [5, 4], blank_index=3)),
                               [7.2634473, 4.3217754], rtol=1e-5)
    check_gradients(lambda t: tf.nn.ctc_loss_v2(lab, t, [3, 1], [5, 4], blank_index=1),
                    [x.astype(np.float64)], rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="blank_index"):
        tf.nn.ctc_loss_v2(sparse([[1], [2]]), x, None, [5, 4])
    with pytest.raises(ValueError, match="label_length"):
        tf.nn.ctc_loss_v2(lab, x, None, [5, 4])


def test_collapse_repeated():
    lab = np.array([[1, 1, 2, 2, 3], [4, 4, 4, 0, 0], [5, 6, 6, 6, 6]], np.int32)
    out, n = run(tf.nn.collapse_repeated(lab, [5, 3, 2]))
    np.testing.assert_array_equal(out, [[1, 2, 3], [4, 0, 0], [5, 6, 0]])
    np.testing.assert_array_equal(n, [3, 1, 2])


def test_ctc_unique_labels():
    lab = np.array([[3, 4, 4, 3, 0], [1, 1, 1, 1, 1], [7, 8, 9, 8, 7]], np.int32)
    values, idx = run(tf.nn.ctc_unique_labels(lab))
    assert values.dtype == np.int64 and idx.dtype == np.int32
    for row, v, i in zip(lab, values, idx):
        u, first = np.unique(row, return_index=True)
        order = u[np.argsort(first)]
        np.testing.assert_array_equal(v, np.pad(order, (0, len(row) - len(order))))
        np.testing.assert_array_equal(order[i], row)
