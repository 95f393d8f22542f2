"""A recurrent model trained by ring all-reduce on two workers.

Each rank is a thread of this process with its own graph, session and ring
member (as in test_collectives_ops.py). The LSTM language model runs through
``tf.nn.dynamic_rnn`` with ``sequence_length``; its embedding gradient is
sparse (gathered across ranks), its cell gradients dense (reduced). Two steps
on two ranks must equal two steps of one process on both ranks' batches, and
further steps must lower the loss on every rank alike.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet import collectives as coll
from tensorfleet.collectives import registry

sys.path.insert(0, os.path.dirname(__file__))
from test_collectives import make_groups  # noqa: E402
from test_collectives_ops import per_rank  # noqa: E402

VOCAB, EMB, HIDDEN, STEPS, BATCH = 10, 6, 8, 5, 4


def _batch(rank: int):
    """A cyclic sequence per row (the next token is predictable), one shift per rank."""
    seq = np.arange(64) % VOCAB
    rows = np.stack([np.roll(seq, 3 * k + rank)[:STEPS + 1] for k in range(BATCH)])
    lengths = np.array([STEPS, STEPS - 1, STEPS, STEPS - 2], np.int32)
    return rows[:, :STEPS].astype(np.int32), rows[:, 1:].astype(np.int32), lengths


def _loss(ids, targets, lengths):
    init = tf.random_uniform_initializer(-0.3, 0.3, seed=7)
    with tf.variable_scope("lm", initializer=init, reuse=tf.AUTO_REUSE):
        emb = tf.get_variable("embedding", [VOCAB, EMB])
        cell = tf.nn.rnn_cell.BasicLSTMCell(HIDDEN)
        out, _ = tf.nn.dynamic_rnn(cell, tf.nn.embedding_lookup(emb, ids),
                                   sequence_length=lengths, dtype=tf.float32)
        w = tf.get_variable("softmax_w", [HIDDEN, VOCAB])
        b = tf.get_variable("softmax_b", [VOCAB], initializer=tf.zeros_initializer())
    logits = tf.tensordot(out, w, axes=1) + b
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits)
    mask = tf.sequence_mask(lengths, STEPS, dtype=tf.float32)
    return tf.reduce_sum(xent * mask) / tf.reduce_sum(mask)


@pytest.fixture
def two_ranks():
    groups = make_groups(2, name="rnnar", chunk_bytes=4096, small_bytes=1024)
    for i, g in enumerate(groups):
        coll.register_group(g, f"rnn{i}")
    yield 2
    for i in range(2):
        registry.shutdown(f"rnn{i}")


def test_lstm_trained_by_allreduce_equals_one_process_and_learns(two_ranks):
    n = two_ranks

    def rank_main(i):
        ids, tg, lens = (tf.constant(a) for a in _batch(i))
        loss = _loss(ids, tg, lens)
        opt = coll.DistributedOptimizer(tf.train.AdamOptimizer(0.05), group_key=f"rnn{i}")
        train = opt.minimize(loss)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(2):
                s.run(train)
            after_two = s.run(tf.trainable_variables())
            losses = [s.run([loss, train])[0] for _ in range(30)]
            return after_two, losses, s.run(tf.trainable_variables())

    results = per_rank(n, rank_main)
    # One process, the mean of both ranks' losses: the same gradient as the mean
    # of the ranks' gradients, so the same two Adam steps.
    with tf.Graph().as_default():
        losses = []
        for i in range(n):
            ids, tg, lens = (tf.constant(a) for a in _batch(i))
            losses.append(_loss(ids, tg, lens))
        train = tf.train.AdamOptimizer(0.05).minimize(tf.add_n(losses) / n)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(2):
                s.run(train)
            single = s.run(tf.trainable_variables())
    for after_two, _, final in results:
        for got, ref, first in zip(after_two, single, results[0][0]):
            np.testing.assert_array_equal(got, first)
            np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)
        for got, first in zip(final, results[0][2]):
            np.testing.assert_array_equal(got, first)
    for _, rank_losses, _ in results:
        assert rank_losses[0] == pytest.approx(np.log(VOCAB), rel=0.15)
        assert rank_losses[-1] < 0.5 * rank_losses[0], rank_losses
