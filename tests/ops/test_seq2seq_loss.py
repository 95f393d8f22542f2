"""Sequence losses of tf.contrib.legacy_seq2seq and tf.contrib.seq2seq against numpy."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

RNG = np.random.RandomState(11)
B, T, V = 3, 4, 5
LOGITS = RNG.randn(B, T, V)
TARGETS = RNG.randint(0, V, (B, T))
WEIGHTS = np.array([[1, 1, 1, 0], [1, 0.5, 0, 0], [0, 0, 0, 0]], np.float64)


def np_xent(logits, targets):
    m = logits.max(-1, keepdims=True)
    lse = np.log(np.exp(logits - m).sum(-1)) + m[..., 0]
    picked = np.take_along_axis(logits, targets[..., None], -1)[..., 0]
    return lse - picked


XENT = np_xent(LOGITS, TARGETS)  # [B, T]


def run(t):
    with tf.Session() as sess:
        return sess.run(t)


def test_legacy_sequence_loss_by_example():
    logits = [tf.constant(LOGITS[:, t]) for t in range(T)]
    targets = [tf.constant(TARGETS[:, t]) for t in range(T)]
    weights = [tf.constant(WEIGHTS[:, t]) for t in range(T)]
    per = run(tf.contrib.legacy_seq2seq.sequence_loss_by_example(logits, targets, weights))
    want = (XENT * WEIGHTS).sum(1) / (WEIGHTS.sum(1) + 1e-12)
    np.testing.assert_allclose(per, want, rtol=1e-10)
    assert per[2] == 0.0
    summed = run(tf.contrib.legacy_seq2seq.sequence_loss_by_example(
        logits, targets, weights, average_across_timesteps=False))
    np.testing.assert_allclose(summed, (XENT * WEIGHTS).sum(1), rtol=1e-10)


def test_legacy_sequence_loss_scalar():
    logits = [tf.constant(LOGITS[:, t]) for t in range(T)]
    targets = [tf.constant(TARGETS[:, t]) for t in range(T)]
    weights = [tf.constant(WEIGHTS[:, t]) for t in range(T)]
    got = run(tf.contrib.legacy_seq2seq.sequence_loss(logits, targets, weights))
    want = ((XENT * WEIGHTS).sum(1) / (WEIGHTS.sum(1) + 1e-12)).sum() / B
    np.testing.assert_allclose(got, want, rtol=1e-10)
    got2 = run(tf.contrib.legacy_seq2seq.sequence_loss(
        logits, targets, weights, average_across_timesteps=False, average_across_batch=False))
    np.testing.assert_allclose(got2, (XENT * WEIGHTS).sum(), rtol=1e-10)


def test_legacy_custom_loss_function_and_length_check():
    calls = []

    def loss_fn(labels, logits):
        calls.append(1)
        return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits) * 2
    logits = [tf.constant(LOGITS[:, t]) for t in range(T)]
    targets = [tf.constant(TARGETS[:, t]) for t in range(T)]
    weights = [tf.constant(WEIGHTS[:, t]) for t in range(T)]
    got = run(tf.contrib.legacy_seq2seq.sequence_loss_by_example(
        logits, targets, weights, average_across_timesteps=False,
        softmax_loss_function=loss_fn))
    np.testing.assert_allclose(got, 2 * (XENT * WEIGHTS).sum(1), rtol=1e-10)
    assert len(calls) == T
    with pytest.raises(ValueError, match="Lengths"):
        tf.contrib.legacy_seq2seq.sequence_loss_by_example(logits, targets[:2], weights)


@pytest.mark.parametrize("avg_t,avg_b,sum_t,sum_b", [
    (True, True, False, False), (False, False, True, True), (True, False, False, False),
    (False, True, False, False), (False, False, True, False), (False, False, False, True),
    (False, False, False, False)])
def test_seq2seq_sequence_loss_modes(avg_t, avg_b, sum_t, sum_b):
    got = run(tf.contrib.seq2seq.sequence_loss(
        tf.constant(LOGITS), tf.constant(TARGETS), tf.constant(WEIGHTS),
        average_across_timesteps=avg_t, average_across_batch=avg_b,
        sum_over_timesteps=sum_t, sum_over_batch=sum_b))
    ce = XENT * WEIGHTS

    def div(a, b):
        return np.where(b != 0, a / np.where(b != 0, b, 1), 0.0)
    if avg_t and avg_b:
        want = ce.sum() / WEIGHTS.sum()
    elif sum_t and sum_b:
        want = ce.sum() / np.count_nonzero(WEIGHTS)
    elif avg_t or avg_b:
        ax = 0 if avg_b else 1
        want = div(ce.sum(ax), WEIGHTS.sum(ax))
    elif sum_t or sum_b:
        ax = 0 if sum_b else 1
        want = div(ce.sum(ax), np.count_nonzero(WEIGHTS, axis=ax).astype(np.float64))
    else:
        want = ce
    np.testing.assert_allclose(got, want, rtol=1e-10)
    assert np.all(np.isfinite(got))


def test_seq2seq_sequence_loss_errors_and_gradient():
    lg, tg, w = tf.constant(LOGITS), tf.constant(TARGETS), tf.constant(WEIGHTS)
    with pytest.raises(ValueError, match="cannot be set to True"):
        tf.contrib.seq2seq.sequence_loss(lg, tg, w, sum_over_timesteps=True)
    with pytest.raises(ValueError, match="Logits must be"):
        tf.contrib.seq2seq.sequence_loss(tf.constant(LOGITS[0]), tg, w)
    with pytest.raises(ValueError, match="Targets must be"):
        tf.contrib.seq2seq.sequence_loss(lg, tf.constant(TARGETS[0]), w)
    check_gradients(lambda x: tf.contrib.seq2seq.sequence_loss(
        x, tf.constant(TARGETS), tf.constant(WEIGHTS)), [LOGITS])
