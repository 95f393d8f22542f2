"""tf.variable_creator_scope and the synchronization / aggregation modes of variables,
as TensorFlow 2.21's tf.compat.v1 graph mode behaves."""

import pytest

import tensorfleet as tf


def test_creators_chain_innermost_first_and_see_every_argument():
    log = []

    def outer(next_creator, **kw):
        log.append(("outer", kw["name"], sorted(k for k in kw if k in (
            "initial_value", "synchronization", "aggregation", "shape"))))
        kw["trainable"] = False
        return next_creator(**kw)

    def inner(next_creator, **kw):
        log.append(("inner", kw["name"]))
        kw["name"] = "renamed"
        return next_creator(**kw)

    with tf.Graph().as_default():
        with tf.variable_creator_scope(outer):
            with tf.variable_creator_scope(inner):
                v = tf.Variable(1.0, name="a")
                w = tf.get_variable("gv", shape=[2])
        plain = tf.Variable(2.0, name="plain")
        assert log == [("inner", "a"),
                       ("outer", "renamed", ["aggregation", "initial_value", "shape",
                                             "synchronization"]),
                       ("inner", "gv"),
                       ("outer", "renamed", ["aggregation", "initial_value", "shape",
                                             "synchronization"])]
        assert (v.name, w.name) == ("renamed:0", "renamed_1:0")
        assert tf.trainable_variables() == [plain]
    with pytest.raises(TypeError, match="callable"):
        with tf.variable_creator_scope(3):
            pass


def test_synchronization_and_aggregation_are_kept_and_checked():
    with tf.Graph().as_default():
        u = tf.Variable(2.0, aggregation=tf.VariableAggregation.MEAN,
                        synchronization=tf.VariableSynchronization.ON_READ)
        assert u.aggregation is tf.VariableAggregation.MEAN
        assert u.synchronization is tf.VariableSynchronization.ON_READ
        assert not u.trainable   # ON_READ variables are not trained
        assert tf.Variable(1.0).aggregation is tf.VariableAggregation.NONE
        with pytest.raises(ValueError, match="aggregation"):
            tf.Variable(1.0, aggregation="mean")
        with pytest.raises(ValueError, match="ON_READ"):
            tf.Variable(1.0, trainable=True,
                        synchronization=tf.VariableSynchronization.ON_READ)
        s = tf.Variable([1., 2.], shape=[None])
        assert s.shape.as_list() == [None]
        with pytest.raises(ValueError, match="not compatible"):
            tf.Variable([1., 2.], shape=[3])
