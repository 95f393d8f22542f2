"""tf.while_loop: the functional While op, its captures, gradients and distribution."""

import collections
import json

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.framework.serialization import import_graph_def
from tensorfleet.testing.cluster import local_cluster
from tensorfleet.testing.gradient_checker import check_gradients

Pair = collections.namedtuple("Pair", "a b")


def _run(fetches, feed=None):
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        return s.run(fetches, feed)


def test_counter_is_one_while_op_without_frames():
    r = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [tf.constant(0)])
    types = {op.type for op in tf.get_default_graph().get_operations()}
    assert r.op.type == "While" and r.op.name == "while" and r.name == "while:0"
    assert not types & {"Enter", "Exit", "NextIteration", "LoopCond", "Switch", "Merge"}
    assert _run(r) == 10


def test_structures_follow_tensorflow():
    x = tf.constant(0)
    assert isinstance(tf.while_loop(lambda i: i < 3, lambda i: i + 1, [x]), tf.Tensor)
    same = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [x], return_same_structure=True)
    assert isinstance(same, list) and len(same) == 1
    single = tf.while_loop(lambda i: i < 3, lambda i: i + 1, x)
    assert isinstance(single, tf.Tensor)
    nt = tf.while_loop(lambda a, b: a < 3, lambda a, b: Pair(a + 1, b * 2), Pair(x, x + 1))
    assert isinstance(nt, Pair)
    nested = tf.while_loop(lambda p, c: p.a < 4,
                           lambda p, c: (Pair(p.a + 1, p.b + c[0]), [c[0] * 2, c[1]]),
                           (Pair(x, x), [tf.constant(1), tf.constant(7.0)]))
    assert isinstance(nested, tuple) and isinstance(nested[0], Pair)
    assert isinstance(nested[1], list)
    out = _run([same, single, nt, nested])
    assert out[0] == [3] and out[1] == 3
    assert out[2] == Pair(3, 8)
    assert out[3][0] == Pair(4, 15) and out[3][1] == [16, 7.0]


def test_values_against_python_reference():
    x = np.array([1.5, -0.5], np.float32)

    def body(i, acc, y):
        return i + 1, acc + tf.cast(i, tf.float32), y * 0.5 + tf.sin(y)
    i, acc, y = tf.while_loop(lambda i, a, y: i < 7, body, [0, 0.0, tf.constant(x)])
    ref_y = x.astype(np.float64)
    for _ in range(7):
        ref_y = ref_y * 0.5 + np.sin(ref_y)
    got = _run([i, acc, y])
    assert got[0] == 7 and got[1] == sum(range(7))
    np.testing.assert_allclose(got[2], ref_y, rtol=1e-5)


def test_maximum_iterations_and_data_dependent_trip_count():
    n = tf.placeholder(tf.float32, [])
    i, v = tf.while_loop(lambda i, v: v < n, lambda i, v: (i + 1, v * 2.0), (0, 1.0))
    capped = tf.while_loop(lambda i: i < 100, lambda i: i + 1, [0], maximum_iterations=5)
    limit = tf.placeholder(tf.int32, [])
    capped_t = tf.while_loop(lambda i: i < 100, lambda i: i + 1, [0], maximum_iterations=limit)
    with tf.Session() as s:
        assert s.run([i, v], {n: 100.0}) == [7, 128.0]
        assert s.run([i, v], {n: 0.5}) == [0, 1.0]
        assert s.run(capped) == 5
        assert s.run(capped_t, {limit: 42}) == 42


def test_shape_invariants():
    x = tf.constant([1])
    with pytest.raises(ValueError, match="shape_invariants"):
        tf.while_loop(lambda a: tf.size(a) < 4, lambda a: tf.concat([a, a], 0), [x])
    r = tf.while_loop(lambda a: tf.size(a) < 4, lambda a: tf.concat([a, a], 0), [x],
                      shape_invariants=[tf.TensorShape([None])])
    assert r.shape.as_list() == [None]
    np.testing.assert_array_equal(_run(r), [1, 1, 1, 1])
    with pytest.raises(ValueError, match="not compatible with the initial shape"):
        tf.while_loop(lambda a: True, lambda a: a, [x], shape_invariants=[tf.TensorShape([3])])


def test_bad_arguments():
    x = tf.constant(0)
    with pytest.raises(TypeError, match="cond must be callable"):
        tf.while_loop(1, lambda i: i, [x])
    with pytest.raises(TypeError, match="positive integer"):
        tf.while_loop(lambda i: i < 3, lambda i: i + 1, [x], parallel_iterations=0)
    with pytest.raises(ValueError, match="positive integer"):
        tf.while_loop(lambda i: i < 3, lambda i: i + 1, [x], parallel_iterations=1.5)
    with pytest.raises(TypeError, match="swap_memory"):
        tf.while_loop(lambda i: i < 3, lambda i: i + 1, [x], swap_memory="yes")
    with pytest.raises(TypeError, match="boolean"):
        tf.while_loop(lambda i: i, lambda i: i + 1, [x])
    with pytest.raises(ValueError, match="same nested structure"):
        tf.while_loop(lambda i: i < 3, lambda i: (i + 1, i), [x])
    with pytest.raises(TypeError, match="dtype"):
        tf.while_loop(lambda i: i < 3, lambda i: tf.cast(i, tf.float32), [x])
    # The hints are accepted (validated) and change nothing.
    r = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [x], parallel_iterations=1,
                      swap_memory=True)
    assert r.op.get_attr("parallel_iterations") == 1 and _run(r) == 3


def test_captures_are_inputs_of_the_while_op():
    w = tf.Variable(3.0, name="w")
    c = tf.constant(2.0, name="c")
    r = tf.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * w + c), (0, 1.0))
    op = r[1].op
    assert w.value() in op.inputs and c in op.inputs
    assert _run(r[1]) == (1.0 * 3 + 2) * 3 + 2


def test_stateful_ops_run_once_per_iteration():
    v = tf.Variable(0, name="counter")

    def body(i):
        with tf.control_dependencies([tf.assign_add(v, 2)]):
            return i + 1
    r = tf.while_loop(lambda i: i < 5, body, [0])
    # An update no loop variable depends on runs too.
    u = tf.Variable(0.0, name="untied")

    def untied(i):
        tf.assign_add(u, 1.5)
        return i + 1
    r2 = tf.while_loop(lambda i: i < 3, untied, [0])
    draws = tf.while_loop(
        lambda i, ta: i < 4, lambda i, ta: (i + 1, ta.write(i, tf.random_uniform([]))),
        (0, tf.TensorArray(tf.float32, size=4)))[1].stack()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(r) == 5 and s.run(v) == 10
        assert s.run(r) == 5 and s.run(v) == 20
        s.run(r2)
        assert s.run(u) == 4.5
        d = s.run(draws)
        assert len(set(d.tolist())) == 4


def test_variables_created_in_the_body_stay_in_the_graph():
    def body(i, h):
        with tf.variable_scope("cell", reuse=tf.AUTO_REUSE):
            w = tf.get_variable("w", [2], initializer=tf.constant_initializer(2.0))
        return i + 1, h * w
    _, h = tf.while_loop(lambda i, h: i < 3, body, (0, tf.ones([2])))
    names = [v.name for v in tf.trainable_variables()]
    assert names == ["cell/w:0"]
    np.testing.assert_allclose(_run(h), [8.0, 8.0])


def test_cond_inside_body():
    x = tf.constant([1.0, -2.0])

    def body(i, h):
        return i + 1, tf.cond(i < 2, lambda: h + x, lambda: h * 2.0)
    _, h = tf.while_loop(lambda i, h: i < 4, body, (0, tf.zeros([2])))
    np.testing.assert_allclose(_run(h), [8.0, -16.0])


def test_nested_loops():
    def outer(i, s):
        _, t = tf.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + j), (0, 0))
        return i + 1, s + t
    _, s = tf.while_loop(lambda i, s: i < 5, outer, (0, 0))
    assert _run(s) == sum(sum(range(i)) for i in range(5))


def test_tensor_from_inside_the_body_cannot_be_used_outside():
    inside = []

    def body(i):
        inside.append(i * 2)
        return i + 1
    tf.while_loop(lambda i: i < 3, body, [0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot be used outside"):
        _run(inside[0] + 1)


def test_a_thousand_iterations():
    # Speed is measured in benchmarks/; here only the count.
    r = tf.while_loop(lambda i: i < 1000, lambda i: i + 1, [tf.constant(0)])
    with tf.Session() as s:
        assert s.run(r) == 1000
        assert s.run(r) == 1000


def test_sub_graphs_are_planned_once(monkeypatch):
    from tensorfleet.kernels import registry
    real = registry.plan_builder()
    calls = []

    def counting(*args):
        calls.append(1)
        return real(*args)
    monkeypatch.setattr(registry, "_plan_builder", [counting])
    r = tf.while_loop(lambda i: i < 50, lambda i: i + 1, [0])
    with tf.Session() as s:
        assert s.run(r) == 50
        assert s.run(r) == 50
    assert len(calls) == 2  # one plan for cond, one for body


def test_endless_loop_ends_at_the_operation_timeout():
    r = tf.while_loop(lambda i: True, lambda i: i + 1, [0])
    with tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=300)) as s:
        with pytest.raises(tf.errors.DeadlineExceededError):
            s.run(r)


# -- gradients ---------------------------------------------------------------------------

def test_gradient_wrt_loop_input_and_capture():
    def f(x, w):
        _, y = tf.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, tf.tanh(y * w) + x),
                             (0, x))
        return y
    check_gradients(f, [np.array([0.5, 1.2]), np.array([0.7, -0.3])])


def test_gradient_of_nested_loops():
    def f(x):
        def outer(i, s):
            _, t = tf.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t * x + 1.0), (0, s))
            return i + 1, tf.sin(t)
        return tf.while_loop(lambda i, s: i < 3, outer, (0, x))[1]
    check_gradients(f, [np.array([0.9, -1.1])])


def test_sparse_gradient_of_a_captured_tensor_is_summed_densely():
    def f(params):
        ids = tf.constant([[0, 2], [1, 1], [2, 0]])

        def body(t, h):
            return t + 1, h * 0.5 + tf.reduce_sum(tf.gather(params, ids[t]), 0)
        return tf.while_loop(lambda t, h: t < 3, body, (0, tf.zeros([2], tf.float64)))[1]
    check_gradients(f, [np.random.RandomState(0).randn(3, 2)])


def test_gradient_with_data_dependent_trip_count_and_cond():
    def f(x):
        def body(i, h):
            return i + 1, tf.cond(tf.reduce_sum(h) > 0, lambda: h * x, lambda: h + x)
        return tf.while_loop(lambda i, h: tf.reduce_sum(h) < 5.0, body, (0, x),
                             maximum_iterations=6)[1]
    check_gradients(f, [np.array([0.5, 0.7])])


def test_gradient_through_recorded_random_values():
    # The backward loop reuses the recorded draws; it does not draw again.
    x = tf.constant([1.0, 2.0])
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * tf.random_uniform([2])),
                         (0, x))
    g = tf.gradients(tf.reduce_sum(y), x)[0]
    with tf.Session() as s:
        yv, gv = s.run([y, g])
    np.testing.assert_allclose(gv * np.array([1.0, 2.0]), yv, rtol=1e-5)


def test_gradient_asked_twice_and_loop_inside_cond():
    def f(x):
        _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * tf.sin(y)), (0, x))
        tf.gradients(y, x)  # records are added once and reused by the second gradient
        return y * y
    check_gradients(f, [np.array([0.6, 1.3])])
    p = tf.placeholder(tf.bool, [])
    x = tf.constant([1.0, 2.0])
    z = tf.cond(p, lambda: tf.while_loop(lambda i, v: i < 3,
                                         lambda i, v: (i + 1, v * 2.0), (0, x))[1],
                lambda: x * 0.0)
    gz = tf.gradients(z, x)[0]
    with tf.Session() as s:
        taken = s.run([z, gz], {p: True})
        np.testing.assert_array_equal(taken[0], [8.0, 16.0])
        np.testing.assert_array_equal(taken[1], [8.0, 8.0])
        np.testing.assert_array_equal(s.run(gz, {p: False}), [0.0, 0.0])


def test_back_prop_false_gives_no_gradient():
    x = tf.constant([1.0, 2.0])
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 2.0), (0, x),
                         back_prop=False)
    assert tf.gradients(y, x) == [None]
    _, z = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 2.0), (0, x))
    assert tf.gradients(z, tf.constant(1.0)) == [None]


def test_optimizer_trains_a_variable_used_in_a_loop():
    w = tf.Variable([0.5, -0.3], name="w")
    x = tf.constant([1.0, 2.0])
    _, h = tf.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, tf.tanh(h * w + x)),
                         (0, tf.zeros([2])))
    loss = tf.reduce_sum(tf.square(h - 0.5))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        first = s.run(loss)
        for _ in range(20):
            s.run(train)
        assert s.run(loss) < first / 2


# -- serialization and distribution ---------------------------------------------------------

def test_graph_with_while_round_trips_as_plain_data():
    w = tf.Variable(2.0, name="w")
    x = tf.placeholder(tf.float32, [2], name="x")

    def outer(i, y):
        _, z = tf.while_loop(lambda j, z: j < 2, lambda j, z: (j + 1, z * w), (0, y))
        return i + 1, z + 1.0
    _, y = tf.while_loop(lambda i, y: i < 3, outer, (0, x))
    gx, gw = tf.gradients(tf.reduce_sum(y * y), [x, w])
    text = json.dumps(tf.get_default_graph().as_graph_def())
    g2 = import_graph_def(json.loads(text))
    assert g2.get_operation_by_name(y.op.name).type == "While"
    feed = [1.0, 0.0]
    with tf.Session() as s:
        s.run(w.initializer)
        want = s.run([gx, gw], {x: feed})
    with tf.Session(graph=g2) as s:
        s.run(g2.get_operation_by_name("w/Assign"))
        out = s.run([g2.get_tensor_by_name(t.name) for t in (y, gx, gw)],
                    {g2.get_tensor_by_name("x:0"): feed})
    ref = np.array(feed)
    for _ in range(3):
        ref = ref * 4 + 1
    np.testing.assert_allclose(out[0], ref)
    # d sum(y^2)/dx = 2 y * 64 (y = 64 x + 21); the imported gradient agrees.
    np.testing.assert_allclose(out[1], 2 * ref * 64)
    np.testing.assert_allclose(out[1], want[0])
    np.testing.assert_allclose(out[2], want[1])


def test_malformed_sub_graph_is_refused():
    r = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)])
    gd = tf.get_default_graph().as_graph_def()
    node = next(n for n in gd["node"] if n["op"] == "While")
    node["attr"]["body"]["graph"]["node"][-1]["op"] = "NoSuchOp"
    with pytest.raises(tf.errors.NotFoundError, match="NoSuchOp"):
        import_graph_def(gd)
    node["attr"]["body"]["graph"] = ["not", "a", "graph"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Malformed graph"):
        import_graph_def(gd)
    del r


def test_deeply_nested_sub_graphs_are_refused():
    plain = {"version": 1, "node": []}
    for _ in range(40):
        plain = {"version": 1, "node": [{"name": "w", "op": "While", "input": [],
                                         "device": "", "attr": {"body": {"graph": plain}},
                                         "out": []}]}
    with pytest.raises(tf.errors.InvalidArgumentError, match="nested deeper"):
        import_graph_def(plain)


def test_loop_on_worker_reads_ps_variable_and_trains():
    with local_cluster(ps=1, worker=2) as c:
        g = tf.Graph()
        with g.as_default():
            with tf.device("/job:ps/task:0"):
                w = tf.Variable([0.5, -0.3], name="w")
            with tf.device("/job:worker/task:1"):
                x = tf.constant([1.0, 2.0])
                _, h = tf.while_loop(lambda i, h: i < 3,
                                     lambda i, h: (i + 1, tf.tanh(h * w + x)),
                                     (0, tf.zeros([2])))
                loss = tf.reduce_sum(tf.square(h - 0.5))
                train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
            assert h.op.device == "/job:worker/task:1"
            assert w.value() in h.op.inputs
            with tf.Session(c.target("worker", 0), graph=g) as s:
                s.run(tf.global_variables_initializer())
                first = s.run(loss)
                w0 = s.run(w)
                for _ in range(5):
                    s.run(train)
                assert s.run(loss) < first
                assert not np.allclose(s.run(w), w0)


def test_loop_updating_a_ps_variable_runs_beside_it():
    with local_cluster(ps=1, worker=1) as c:
        g = tf.Graph()
        with g.as_default():
            with tf.device("/job:ps/task:0"):
                v = tf.Variable(0.0, name="v")
            with tf.device("/job:worker/task:0"):
                r = tf.while_loop(lambda i: i < 4, lambda i: tf.tuple(
                    [i + 1], control_inputs=[tf.assign_add(v, 1.0)])[0], [0])
            assert r.op.device == v.device
            with tf.Session(c.target("worker", 0), graph=g) as s:
                s.run(v.initializer)
                assert s.run(r) == 4 and s.run(v) == 4.0


def test_tensor_array_value_cannot_cross_tasks():
    with local_cluster(worker=2) as c:
        g = tf.Graph()
        with g.as_default():
            with tf.device("/job:worker/task:0"):
                ta = tf.TensorArray(tf.float32, size=1).write(0, 1.0)
            with tf.device("/job:worker/task:1"):
                out = ta.read(0)
            with tf.Session(c.target("worker", 0), graph=g) as s:
                with pytest.raises(tf.errors.InvalidArgumentError, match="cannot be sent"):
                    s.run(out)
