"""tf.train.Checkpoint (graph mode): save/restore of tracked variables, optimizer slots
and nested checkpoints; save_counter; the load status checks."""

import os

import numpy as np
import pytest

import tensorfleet as tf


def _build(value=0.0):
    v = tf.Variable([value, value], name="v")
    w = tf.Variable(value, name="w")
    opt = tf.train.AdamOptimizer(0.1)
    train = opt.minimize(tf.reduce_sum(v * v) + w)
    ckpt = tf.train.Checkpoint(v=v, opt=opt, nested=tf.train.Checkpoint(w=w))
    return v, w, train, ckpt


def test_save_then_restore_in_a_new_graph(tmp_path):
    v, w, train, ckpt = _build(1.0)
    prefix = os.path.join(str(tmp_path), "ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert ckpt.save(prefix) == prefix + "-1"
        sess.run(train)
        assert ckpt.save(prefix) == prefix + "-2"
        want = sess.run([v, w] + ckpt.opt.variables())
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefix + "-2"
    keys = [n for n, _ in tf.train.list_variables(prefix + "-2")]
    assert "v/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert "nested/w/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert "opt/v/Adam/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert "save_counter/.ATTRIBUTES/VARIABLE_VALUE" in keys
    tf.reset_default_graph()
    v, w, train, ckpt = _build(0.0)
    status = ckpt.restore(tf.train.latest_checkpoint(str(tmp_path)))
    with tf.Session() as sess:
        status.assert_consumed().run_restore_ops()
        got = sess.run([v, w] + ckpt.opt.variables())
        assert sess.run(ckpt.save_counter) == 2
        assert ckpt.save(prefix) == prefix + "-3"
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_status_checks_and_partial_restore(tmp_path):
    v = tf.Variable([1.0, 2.0], name="v")
    ckpt = tf.train.Checkpoint(v=v)
    with tf.Session() as sess:
        sess.run(v.initializer)
        path = ckpt.save(os.path.join(str(tmp_path), "c"))
    tf.reset_default_graph()
    v = tf.Variable([0.0, 0.0], name="v")
    extra = tf.Variable(5.0, name="extra")
    status = tf.train.Checkpoint(v=v, extra=extra).restore(path)
    with pytest.raises(AssertionError, match="extra"):
        status.assert_consumed()
    with tf.Session() as sess:
        status.initialize_or_restore(sess)
        assert sess.run(v).tolist() == [1.0, 2.0] and sess.run(extra) == 5.0
    tf.reset_default_graph()
    status = tf.train.Checkpoint().restore(path)
    with pytest.raises(AssertionError, match="Unresolved"):
        status.assert_consumed()
    status.expect_partial().assert_consumed()


def test_restore_none_initializes_and_write_has_no_counter(tmp_path):
    v = tf.Variable([4.0], name="v")
    ckpt = tf.train.Checkpoint(v=v)
    with tf.Session() as sess:
        ckpt.restore(None).initialize_or_restore()
        assert sess.run(v).tolist() == [4.0]
        path = ckpt.write(os.path.join(str(tmp_path), "plain"))
    assert path == os.path.join(str(tmp_path), "plain")
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    with pytest.raises(AssertionError, match="No checkpoint"):
        ckpt.restore(None).assert_consumed()


def test_bad_arguments():
    with pytest.raises(ValueError, match="not trackable"):
        tf.train.Checkpoint(x=3)
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    with pytest.raises(ValueError, match="session"):
        ckpt.save("/tmp/never")
    assert isinstance(ckpt.v, tf.Variable)
    with pytest.raises(AttributeError):
        ckpt.nothing
