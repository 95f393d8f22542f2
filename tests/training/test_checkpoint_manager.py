"""``tf.train.CheckpointManager``: numbered saves, max_to_keep, the state file, the step
interval and restore_or_initialize."""

import os

import pytest

import tensorfleet as tf


def test_saves_keep_the_newest_and_restore(tmp_path):
    d = str(tmp_path)
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        step = tf.Variable(0, dtype=tf.int64)
        ckpt = tf.train.Checkpoint(v=v)
        mgr = tf.train.CheckpointManager(ckpt, d, max_to_keep=2, step_counter=step,
                                         checkpoint_interval=10)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            paths = []
            for i in range(3):
                sess.run([v.assign(float(i)), step.assign(i * 10)])
                paths.append(mgr.save())
            assert [os.path.basename(p) for p in paths] == ["ckpt-1", "ckpt-2", "ckpt-3"]
            assert mgr.checkpoints == paths[1:] and mgr.latest_checkpoint == paths[2]
            assert not os.path.exists(paths[0] + ".index")
            assert os.path.exists(paths[1] + ".index")
            assert tf.train.latest_checkpoint(d) == paths[2]
            sess.run(step.assign(25))
            assert mgr.save() is None  # only 5 steps since the last save
            assert os.path.basename(mgr.save(checkpoint_number=99, check_interval=False)) \
                == "ckpt-99"
    with tf.Graph().as_default():
        v = tf.Variable(0.0)
        again = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), d, max_to_keep=2)
        assert [os.path.basename(p) for p in again.checkpoints] == ["ckpt-3", "ckpt-99"]
        with tf.Session() as sess:
            assert os.path.basename(again.restore_or_initialize(sess)) == "ckpt-99"
            assert sess.run(v) == 2.0


def test_initialize_and_errors(tmp_path):
    calls = []
    with tf.Graph().as_default():
        ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
        mgr = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=None,
                                         init_fn=lambda: calls.append(1))
        assert mgr.restore_or_initialize() is None and calls == [1]
        with pytest.raises(ValueError, match="needs a session"):
            mgr.save()
        with pytest.raises(ValueError, match="max_to_keep"):
            tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=0)
        with pytest.raises(ValueError, match="needs a step_counter"):
            tf.train.CheckpointManager(ckpt, str(tmp_path), 3, checkpoint_interval=5)
