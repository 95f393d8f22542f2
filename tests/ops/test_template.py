"""tf.make_template (variable sharing, scopes, create_scope_now_, errors) and tf.op_scope.

Variable and op names are TensorFlow 1.15's for the same programs."""

import numpy as np
import pytest

import tensorfleet as tf


def _scaled(x, scale=1.0):
    w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
    return tf.multiply(x, w * scale, name="out")


def test_second_call_shares_variables_and_gets_new_name_scope():
    t = tf.make_template("foo", _scaled, scale=2.0)
    a = t(tf.constant([1.0, 2.0]))
    b = t(tf.constant([3.0, 4.0]))
    assert (a.name, b.name) == ("foo/out:0", "foo_1/out:0")
    assert [v.name for v in tf.global_variables()] == ["foo/w:0"]
    assert t.name == "foo" and t.variable_scope.name == "foo"
    assert t.variable_scope_name == "foo/"
    assert [v.name for v in t.trainable_variables] == ["foo/w:0"]
    assert [v.name for v in t.variables] == ["foo/w:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(t.trainable_variables[0], [10.0, 20.0]))
        va, vb = sess.run([a, b])
    np.testing.assert_allclose(va, [1.0 * 20, 2.0 * 40])
    np.testing.assert_allclose(vb, [3.0 * 20, 4.0 * 40])


def test_two_templates_of_one_name_are_distinct():
    t1 = tf.make_template("foo", _scaled)
    t1(tf.constant([1.0, 2.0]))
    t1(tf.constant([1.0, 2.0]))
    t2 = tf.make_template("foo", _scaled)
    c = t2(tf.constant([1.0, 2.0]))
    assert c.name == "foo_2/out:0"
    assert [v.name for v in tf.global_variables()] == ["foo/w:0", "foo_1/w:0"]
    assert t2.variable_scope_name == "foo_1/"


def test_create_scope_now_captures_current_variable_scope():
    with tf.variable_scope("outer"):
        t = tf.make_template("bar", _scaled, create_scope_now_=True)
    assert t.variable_scope.name == "outer/bar"
    d = t(tf.constant([1.0, 2.0]))
    with tf.variable_scope("elsewhere"):
        e = t(tf.constant([1.0, 2.0]))
    assert (d.name, e.name) == ("bar/out:0", "elsewhere/bar/out:0")
    assert [v.name for v in tf.global_variables()] == ["outer/bar/w:0"]


def test_unique_name_and_custom_getter():
    seen = []

    def getter(next_getter, name, *args, **kwargs):
        seen.append(name)
        return next_getter(name, *args, **kwargs)
    t = tf.make_template("x", _scaled, unique_name_="fixed", custom_getter_=getter)
    t(tf.constant([1.0, 2.0]))
    t(tf.constant([1.0, 2.0]))
    assert [v.name for v in tf.global_variables()] == ["fixed/w:0"]
    assert seen == ["fixed/w", "fixed/w"]


def test_tf_variable_on_second_call_raises():
    def g(x):
        return x * tf.Variable(1.0, name="v")
    t = tf.make_template("g", g)
    t(1.0)
    with pytest.raises(ValueError, match="Trainable variable created when calling template"):
        t(2.0)


def test_non_trainable_get_variable_is_reused():
    def h(x):
        return x * tf.get_variable("hv", [], trainable=False)
    t = tf.make_template("h", h)
    t(1.0)
    t(2.0)
    assert [v.name for v in tf.global_variables()] == ["h/hv:0"]
    assert [v.name for v in t.non_trainable_variables] == ["h/hv:0"]


def test_bad_template_arguments():
    with pytest.raises(ValueError, match="name_"):
        tf.make_template("", _scaled)
    with pytest.raises(TypeError, match="callable"):
        tf.make_template("t", 3)


def test_op_scope_is_old_name_scope():
    a = tf.constant(1.0)
    with tf.op_scope([a], "opsc", "dflt") as sc:
        assert sc == "opsc/"
        assert tf.identity(a).name == "opsc/Identity:0"
    with tf.op_scope([a], None, "dflt") as sc:
        assert sc == "dflt/"
