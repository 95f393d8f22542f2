"""tf.contrib.framework, slim, learn, losses and deprecated: argument scopes, variable
selection, restoring from checkpoints."""

import os

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.contrib import framework as fw
from tensorfleet.contrib import slim


@fw.add_arg_scope
def _scaled(x, factor=1.0, offset=0.0):
    return x * factor + offset


def test_arg_scope_on_user_functions_nests_and_overrides():
    assert fw.has_arg_scope(_scaled) and fw.arg_scoped_arguments(_scaled) == \
        ["x", "factor", "offset"]
    with fw.arg_scope([_scaled], factor=2.0):
        assert _scaled(1.0) == 2.0
        with fw.arg_scope([_scaled], offset=1.0) as inner:
            assert _scaled(1.0) == 3.0
            assert _scaled(1.0, factor=10.0) == 11.0
        assert _scaled(1.0) == 2.0
    assert _scaled(1.0) == 1.0
    with fw.arg_scope(inner):
        assert _scaled(1.0) == 3.0
    with pytest.raises(ValueError):
        with fw.arg_scope(inner, factor=3.0):
            pass
    with pytest.raises(TypeError):
        with fw.arg_scope(5):
            pass


def _model():
    with tf.variable_scope("net"):
        a = slim.model_variable("a", [2], initializer=tf.constant_initializer(1.0))
        b = slim.variable("b", [3], initializer=tf.constant_initializer(2.0),
                          collections=["extra"], trainable=False)
        with tf.variable_scope("head"):
            c = slim.model_variable("weights", [2, 2],
                                    initializer=tf.constant_initializer(3.0))
    d = tf.get_variable("other/weights", [1], initializer=tf.constant_initializer(4.0))
    return a, b, c, d


def test_variable_selection():
    a, b, c, d = _model()
    assert fw.get_variables() == [a, b, c, d]
    assert fw.get_variables("net/head") == [c]
    assert fw.get_variables(suffix="weights") == [c, d]
    assert fw.get_variables("net", suffix="weights") == [c]
    assert fw.get_model_variables() == [a, c]
    assert fw.get_trainable_variables() == [a, c, d]
    assert tf.get_collection("extra") == [b]
    assert fw.get_variables_by_name("weights") == [c, d]
    assert fw.get_unique_variable("net/a") is a
    with pytest.raises(ValueError, match="Couldn't find"):
        fw.get_unique_variable("nope")
    with pytest.raises(ValueError, match="uniquely"):
        fw.get_unique_variable("net/head/w")
    assert fw.get_variables_to_restore() == [a, b, c, d]
    assert fw.get_variables_to_restore(include=["net"], exclude=["net/head"]) == [a, b]
    assert fw.get_variables_to_restore(exclude=["net/a", "other"]) == [b, c]
    with pytest.raises(TypeError):
        fw.get_variables_to_restore(include="net")
    loc = fw.local_variable(np.zeros(2, np.float32), name="loc")
    assert fw.get_local_variables() == [loc] and loc not in fw.get_variables()


def test_variable_device_argument_and_device_setter():
    v = fw.variable("placed", [1], device="/job:ps/task:1")
    assert v.device == "/job:ps/task:1"
    setter = tf.train.replica_device_setter(ps_tasks=2, worker_device="/job:worker/task:0")
    with tf.device(setter):
        a = fw.model_variable("a", [1])
        b = fw.variable("b", [1])
        y = slim.fully_connected(tf.ones([1, 2]), 2)
    assert [a.device, b.device] == ["/job:ps/task:0", "/job:ps/task:1"]
    assert y.device == "/job:worker/task:0"


def _save(tmp_path):
    a, b, c, d = _model()
    saver = tf.train.Saver()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run([tf.assign(a, [7.0, 8.0]), tf.assign(c, np.full([2, 2], 9.0, np.float32))])
        return saver.save(s, os.path.join(str(tmp_path), "model.ckpt"))


def test_restore_through_get_variables_to_restore(tmp_path):
    path = _save(tmp_path)
    assert dict(fw.list_variables(path))["net/head/weights"] == [2, 2]
    np.testing.assert_allclose(fw.load_variable(path, "net/a"), [7.0, 8.0])
    assert fw.load_checkpoint(path).has_tensor("other/weights")
    tf.reset_default_graph()
    a, b, c, d = _model()
    restorer = tf.train.Saver(fw.get_variables_to_restore(exclude=["net/head"]))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(tf.assign(d, [-1.0]))
        restorer.restore(s, path)
        np.testing.assert_allclose(s.run(a), [7.0, 8.0])       # restored
        np.testing.assert_allclose(s.run(c), np.full([2, 2], 3.0))  # excluded: initial
        np.testing.assert_allclose(s.run(d), [4.0])            # restored over -1


def test_assign_from_checkpoint_fn_and_op(tmp_path):
    path = _save(tmp_path)
    tf.reset_default_graph()
    a, b, c, d = _model()
    extra = tf.get_variable("not_in_ckpt", [1])
    with pytest.raises(ValueError):
        fw.assign_from_checkpoint(path, [a, extra])
    init_fn = fw.assign_from_checkpoint_fn(path, [a, c, extra], ignore_missing_vars=True)
    op, feed = fw.assign_from_checkpoint(path, {"net/a": a})
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        init_fn(s)
        np.testing.assert_allclose(s.run(c), np.full([2, 2], 9.0))
        s.run(tf.assign(a, [0.0, 0.0]))
        s.run(op, feed)
        np.testing.assert_allclose(s.run(a), [7.0, 8.0])
    with pytest.raises(ValueError):
        fw.assign_from_checkpoint_fn(path, [])


def test_slim_learn_losses_deprecated():
    x = tf.placeholder(tf.float32, [None, 4, 4, 1])
    with slim.arg_scope([slim.conv2d], num_outputs=2, kernel_size=3):
        net = slim.conv2d(x, scope="conv1")
    net = slim.fully_connected(slim.flatten(slim.max_pool2d(net, 2)), 3, scope="fc")
    assert [v.op.name for v in slim.get_model_variables()] == \
        ["conv1/weights", "conv1/biases", "fc/weights", "fc/biases"]
    assert tf.contrib.learn.ModeKeys.INFER == tf.estimator.ModeKeys.PREDICT
    assert tf.contrib.learn.ModeKeys.TRAIN == "train"
    logits = tf.constant([[2.0, 0.0], [0.0, 1.0]])
    onehot = tf.constant([[1.0, 0.0], [0.0, 1.0]])
    loss = slim.losses.softmax_cross_entropy(logits, onehot)
    mse = tf.contrib.losses.mean_squared_error(tf.constant([1.0, 3.0]), tf.constant([0.0, 0.0]))
    assert len(slim.losses.get_losses()) == 2
    summ = tf.contrib.deprecated.scalar_summary("exact/tag", mse)
    assert summ.op.attrs["tag"] == "exact/tag"
    with tf.Session() as s:
        lv, mv = s.run([loss, mse])
    ref = np.mean([np.log(1 + np.exp(-2.0)), np.log(1 + np.exp(-1.0))])
    np.testing.assert_allclose([lv, mv], [ref, 5.0], rtol=1e-5)
