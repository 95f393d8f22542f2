"""no_op, group, tuple, with_dependencies, Assert, cond and case."""

import collections

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients


def test_no_op_and_group():
    v = tf.Variable(0.0)
    a = v.assign_add(1.0)
    b = v.assign_add(10.0)
    n = tf.no_op(name="nothing")
    assert n.type == "NoOp" and n.name == "nothing" and n.outputs == []
    g = tf.group(a, [b.op], name="both")
    assert g.name == "both" and set(g.control_inputs) == {a.op, b.op}
    assert tf.group().type == "NoOp"
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(g) is None
        assert sess.run(v) == 11.0
        sess.run(n)


def test_group_across_devices_makes_one_noop_per_device():
    with tf.device("/job:ps/task:0"):
        x = tf.Variable(1.0, name="x")
    with tf.device("/job:ps/task:1"):
        y = tf.Variable(2.0, name="y")
        z = tf.Variable(3.0, name="z")
    init = tf.group(x.initializer, y.initializer, z.initializer, name="init_all")
    assert init.name == "init_all"
    assert len(init.control_inputs) == 2
    assert {op.device for op in init.control_inputs} == {x.device, y.device}
    assert all(op.name.startswith("init_all/") for op in init.control_inputs)
    with tf.Session() as sess:
        sess.run(init)
        assert sess.run([x, y, z]) == [1.0, 2.0, 3.0]


def test_tuple_and_with_dependencies():
    v = tf.Variable(1.0)
    inc = v.assign_add(1.0)
    c = tf.constant(5.0)
    gated = tf.with_dependencies([inc], c, name="after_inc")
    assert gated.op.name == "after_inc" and inc.op in gated.op.control_inputs
    t1, none, t2 = tf.tuple([c, None, v.value() * 1.0], control_inputs=[inc.op])
    assert none is None
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(gated) == 5.0
        assert sess.run(v) == 2.0
        assert sess.run(t1) == 5.0
        assert sess.run(v) == 3.0
    sl = tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]))
    out = tf.with_dependencies([inc], sl)
    assert isinstance(out, tf.IndexedSlices) and out.indices is sl.indices


def test_assert_op():
    x = tf.placeholder(tf.float32, [None])
    check = tf.Assert(tf.reduce_all(x > 0.0), ["x must be positive:", x], name="pos")
    with tf.control_dependencies([check]):
        y = tf.identity(x)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(y, {x: [1.0, 2.0]}), [1, 2])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"assertion failed: x must be positive: \[1 -2"):
            sess.run(y, {x: [1.0, -2.0]})


def test_cond_selects_branch_and_names():
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [2], name="x")
    r = tf.cond(p, lambda: x * 2.0, lambda: x - 1.0)
    assert r.op.type == "Merge" and r.op.name == "cond/Merge"
    assert r.shape.as_list() == [2]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(r, {p: True, x: [1, 2]}), [2, 4])
        np.testing.assert_allclose(sess.run(r, {p: False, x: [1, 2]}), [0, 1])


def test_cond_untaken_stateful_branch_does_not_run():
    v = tf.Variable(0, name="counter")
    w = tf.Variable(0, name="other")
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: tf.assign_add(v, 1), lambda: tf.assign_add(w, 10))
    grouped = tf.cond(p, lambda: tf.group(v.assign_add(100)), lambda: tf.no_op())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(r, {p: True}) == 1
        assert sess.run([v, w]) == [1, 0]
        assert sess.run(r, {p: False}) == 10
        assert sess.run([v, w]) == [1, 10]
        sess.run(grouped, {p: False})
        assert sess.run(v) == 1
        sess.run(grouped, {p: True})
        assert sess.run(v) == 101


def test_cond_constants_and_external_results():
    p = tf.placeholder(tf.bool, [])
    x = tf.constant(7)
    r = tf.cond(p, lambda: tf.constant(1), lambda: x)
    s = tf.cond(p, lambda: 2.0, lambda: 3.0)
    with tf.Session() as sess:
        assert sess.run(r, {p: True}) == 1
        assert sess.run(r, {p: False}) == 7
        assert sess.run(s, {p: False}) == 3.0


def test_cond_nested_structures():
    Pair = collections.namedtuple("Pair", "a b")
    p = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float32, [])

    def t_fn():
        return {"pair": Pair(x + 1.0, [x, tf.constant(1)]), "k": (x * 2.0,)}

    def f_fn():
        return {"pair": Pair(x - 1.0, [-x, tf.constant(2)]), "k": (x * 3.0,)}

    out = tf.cond(p, t_fn, f_fn)
    assert isinstance(out["pair"], Pair) and isinstance(out["k"], tuple)
    single = tf.cond(p, lambda: [x], lambda: [x + 1.0])
    strict = tf.cond(p, lambda: [x], lambda: [x + 1.0], strict=True)
    assert isinstance(single, tf.Tensor) and isinstance(strict, list)
    with tf.Session() as sess:
        got = sess.run(out, {p: True, x: 2.0})
        assert got["pair"].a == 3.0 and got["pair"].b == [2.0, 1] and got["k"] == (4.0,)
        got = sess.run(out, {p: False, x: 2.0})
        assert got["pair"].a == 1.0 and got["pair"].b == [-2.0, 2] and got["k"] == (6.0,)


def test_cond_nested_cond_and_variables_in_branch():
    a = tf.placeholder(tf.bool, [])
    b = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float32, [])
    r = tf.cond(a, lambda: tf.cond(b, lambda: x + 1.0, lambda: x + 2.0), lambda: x + 3.0)
    with tf.Session() as sess:
        for av, bv, want in [(True, True, 11), (True, False, 12), (False, True, 13)]:
            assert sess.run(r, {a: av, b: bv, x: 10.0}) == want


def test_cond_errors():
    p = tf.placeholder(tf.bool, [])
    x = tf.constant(1.0)
    with pytest.raises(TypeError, match="Python bool"):
        tf.cond(True, lambda: x, lambda: x)
    with pytest.raises(TypeError, match="bool tensor"):
        tf.cond(tf.constant(1), lambda: x, lambda: x)
    with pytest.raises(ValueError, match="scalar"):
        tf.cond(tf.placeholder(tf.bool, [2]), lambda: x, lambda: x)
    with pytest.raises(TypeError, match="callable"):
        tf.cond(p, x, lambda: x)
    with pytest.raises(ValueError, match="same structure"):
        tf.cond(p, lambda: (x, x), lambda: x)
    with pytest.raises(TypeError, match="same type"):
        tf.cond(p, lambda: x, lambda: tf.constant(1))
    with pytest.raises(ValueError, match="at least one result"):
        tf.cond(p, lambda: None, lambda: None)


def test_cond_gradients_numeric():
    def build(x):
        return tf.cond(tf.reduce_sum(x) > 0.0, lambda: x * x * 3.0, lambda: tf.exp(x) * x)

    check_gradients(build, [np.array([0.5, 1.0, -0.2])])
    check_gradients(build, [np.array([-0.5, -1.0, 0.2])])


def test_cond_gradient_of_external_and_two_inputs():
    def build(x, y):
        return tf.cond(tf.reduce_sum(x) > tf.reduce_sum(y), lambda: x * y, lambda: y + 0.0)

    check_gradients(build, [np.array([2.0, 3.0]), np.array([0.5, 0.25])])
    check_gradients(build, [np.array([-2.0, 3.0]), np.array([5.0, 0.25])])


def test_cond_gradient_with_variable_in_branch():
    w = tf.Variable([1.0, 2.0], name="w")
    p = tf.placeholder(tf.bool, [])
    loss = tf.reduce_sum(tf.cond(p, lambda: w * w, lambda: w * 5.0))
    grad, = tf.gradients(loss, [w])
    with tf.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_allclose(sess.run(grad, {p: True}), [2, 4])
        np.testing.assert_allclose(sess.run(grad, {p: False}), [5, 5])


def test_case():
    x = tf.placeholder(tf.int32, [])
    r = tf.case([(tf.equal(x, 1), lambda: tf.constant(10)),
                 (tf.equal(x, 2), lambda: tf.constant(20))],
                default=lambda: tf.constant(-1))
    ex = tf.case([(x > 0, lambda: tf.constant(1)), (x > 1, lambda: tf.constant(2))],
                 default=lambda: tf.constant(0), exclusive=True)
    with tf.Session() as sess:
        assert [sess.run(r, {x: v}) for v in (1, 2, 3)] == [10, 20, -1]
        assert sess.run(ex, {x: 1}) == 1
        with pytest.raises(tf.errors.InvalidArgumentError, match="More than one"):
            sess.run(ex, {x: 5})


def test_variable_created_in_branch_escapes_the_cond():
    p = tf.placeholder(tf.bool, [])

    def t_fn():
        v = tf.get_variable("inside", [2], initializer=tf.ones_initializer())
        return v * 2.0

    r = tf.cond(p, t_fn, lambda: tf.zeros([2]))
    v = tf.global_variables()[0]
    assert v.initializer.control_inputs == []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(r, {p: True}), [2, 2])
        np.testing.assert_allclose(sess.run(r, {p: False}), [0, 0])


def test_cond_graph_survives_serialization():
    from tensorfleet.framework.serialization import graph_to_plain, import_graph_def
    v = tf.Variable(0.0, name="v")
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [], name="x")
    tf.cond(p, lambda: tf.assign_add(v, 1.0), lambda: v + 0.0, name="c")
    tf.cond(p, lambda: tf.cond(x > 0.0, lambda: x * v, lambda: -x), lambda: x, name="n")
    g = tf.get_default_graph()
    seen = set()
    for op in g.get_operations():  # graph order stays a topological order
        assert all(t.op in seen for t in op.inputs) and all(c in seen for c in op.control_inputs)
        seen.add(op)
    g2 = import_graph_def(graph_to_plain(g))
    with tf.Session(graph=g2) as sess:
        sess.run("v/Assign")
        assert sess.run("c/Merge:0", {"p:0": False}) == 0.0
        assert sess.run("c/Merge:0", {"p:0": True}) == 1.0
        assert sess.run("v/read:0") == 1.0
        assert sess.run("n/Merge:0", {"p:0": True, "x:0": 2.0}) == 2.0
        assert sess.run("n/Merge:0", {"p:0": True, "x:0": -2.0}) == 2.0
        assert sess.run("n/Merge:0", {"p:0": False, "x:0": -3.0}) == -3.0
