"""slim.learning.train / train_step: trains to number_of_steps, logs, saves and restores
from logdir, stops at the end of the input, runs on a cluster's master."""

import logging
import os

import numpy as np
import pytest

import tensorfleet as tf

slim = tf.contrib.slim


def _model(num_epochs=None):
    rng = np.random.RandomState(0)
    xs = rng.randn(64, 3).astype(np.float32)
    ys = xs.sum(1, keepdims=True)
    if num_epochs is None:
        x, y = tf.constant(xs), tf.constant(ys)
    else:
        x, y = tf.train.slice_input_producer([xs, ys], num_epochs=num_epochs, shuffle=False)
        x, y = tf.train.batch([x, y], 16)
    pred = slim.fully_connected(x, 1, activation_fn=None, scope="fc")
    loss = tf.losses.mean_squared_error(y, pred)
    opt = tf.train.GradientDescentOptimizer(0.1)
    return slim.learning.create_train_op(loss, opt), loss


def test_train_runs_logs_saves_and_restores(tmp_path, caplog):
    logdir = str(tmp_path)
    calls = []
    train_op, _ = _model()
    with caplog.at_level(logging.INFO, logger="tensorfleet"):
        final = slim.learning.train(train_op, logdir, number_of_steps=30, log_every_n_steps=10,
                                    init_fn=lambda sess: calls.append(1),
                                    save_summaries_secs=None, save_interval_secs=None)
    assert final < 0.05 and calls == [1]
    assert tf.train.latest_checkpoint(logdir).endswith("model.ckpt-30")
    logs = [r.getMessage() for r in caplog.records if r.getMessage().startswith("global step")]
    assert len(logs) == 3 and all(": loss = " in m and "sec/step" in m for m in logs)
    # A second run restores step 30 from logdir and goes on to 40 without init_fn.
    tf.reset_default_graph()
    train_op, _ = _model()
    slim.learning.train(train_op, logdir, number_of_steps=40, init_fn=lambda s: calls.append(2),
                        save_summaries_secs=None, save_interval_secs=None)
    assert calls == [1]
    assert tf.train.latest_checkpoint(logdir).endswith("model.ckpt-40")


def test_train_stops_at_end_of_input(tmp_path):
    train_op, _ = _model(num_epochs=2)
    slim.learning.train(train_op, str(tmp_path), save_summaries_secs=None,
                        save_interval_secs=None, log_every_n_steps=0)
    # 64 examples, 2 epochs, batches of 16: 8 steps, then the input runs out.
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-8")


def test_train_on_a_cluster_master(tmp_path):
    workers, ps = tf.test.create_local_cluster(1, 1)
    try:
        with tf.device(tf.train.replica_device_setter(ps_tasks=1)):
            train_op, _ = _model()
        slim.learning.train(train_op, str(tmp_path), master=workers[0].target,
                            number_of_steps=5, save_summaries_secs=None,
                            save_interval_secs=None)
        assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-5")
        assert any(f.startswith("events.out.tfevents") for f in os.listdir(tmp_path))
    finally:
        for s in workers + ps:
            s.stop()


def test_train_bad_arguments(tmp_path):
    train_op, _ = _model()
    with pytest.raises(ValueError, match="train_op"):
        slim.learning.train(None, str(tmp_path))
    with pytest.raises(ValueError, match="saver"):
        slim.learning.train(train_op, None, saver=tf.train.Saver())
    with pytest.raises(ValueError, match="number_of_steps"):
        slim.learning.train(train_op, str(tmp_path), number_of_steps=0)
    with pytest.raises(ValueError, match="trace_every_n_steps"):
        slim.learning.train(train_op, str(tmp_path), trace_every_n_steps=5)
    with pytest.raises(ValueError, match="SyncReplicasOptimizer"):
        slim.learning.train(train_op, str(tmp_path), sync_optimizer=tf.train.AdamOptimizer())
