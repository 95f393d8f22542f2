"""Variables, state ops, variable scopes and initializers."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.framework.serialization import graph_to_plain, import_graph_def


# -- tf.Variable --------------------------------------------------------------------------

def test_variable_graph_structure_and_names():
    with tf.name_scope("layer"):
        w = tf.Variable([[1.0, 2.0]], name="w")
    assert w.name == "layer/w:0"
    assert w.op.type == "VariableV2" and w.op.name == "layer/w"
    assert w.initializer.name == "layer/w/Assign"
    assert w.value().name == "layer/w/read:0"
    assert w.initial_value.name.startswith("layer/w/")
    assert w.shape.as_list() == [1, 2] and w.get_shape().as_list() == [1, 2]
    assert w.dtype is tf.float32
    # The read snapshot is colocated with the storage so it runs on the variable's task.
    assert w.value().op.colocation_groups() == ["loc:@layer/w"]
    w2 = tf.Variable(0, name="w")
    assert w2.op.name == "w"
    w3 = tf.Variable(0, name="w")
    assert w3.op.name == "w_1" and w3.value().name == "w_1/read:0"
    assert tf.Variable(1.0).op.name == "Variable"


def test_variable_device_scope_and_colocation():
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(tf.zeros([3]), name="v")
    assert v.device == v.op.device
    assert "ps" in v.device
    assert v.value().device == v.device
    assert v.initializer.device == v.device


def test_uninitialized_use_names_variable():
    v = tf.Variable(tf.zeros([2]), name="weights")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="Attempting to use uninitialized value weights"):
            sess.run(v)
        with pytest.raises(tf.errors.FailedPreconditionError, match="weights"):
            sess.run(v * 2.0)
        assert not sess.run(tf.is_variable_initialized(v))
        sess.run(v.initializer)
        assert sess.run(tf.is_variable_initialized(v))
        np.testing.assert_allclose(sess.run(v), [0, 0])


def test_values_persist_per_session_and_callable_initial_value():
    v = tf.Variable(lambda: tf.constant([1, 2, 3]), name="c")
    assert v.dtype is tf.int32
    # The callable's ops go under Initializer and live with the variable.
    init_op = v.initial_value.op
    assert init_op.name.startswith("c/Initializer/")
    assert init_op.colocation_groups() == ["loc:@c"]
    inc = v.assign_add([1, 1, 1])
    s1, s2 = tf.Session(), tf.Session()
    s1.run(tf.global_variables_initializer())
    s2.run(tf.global_variables_initializer())
    s1.run(inc)
    s1.run(inc)
    np.testing.assert_array_equal(s1.run(v), [3, 4, 5])
    np.testing.assert_array_equal(s2.run(v), [1, 2, 3])
    s1.close()
    s2.close()


def test_fetched_value_is_a_copy():
    v = tf.Variable([1.0, 2.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        a = sess.run(v)
        sess.run(v.assign_add([10.0, 10.0]))
        np.testing.assert_allclose(a, [1, 2])
        a[0] = 100.0
        np.testing.assert_allclose(sess.run(v), [11, 12])


def test_assign_family_returns_new_value():
    v = tf.Variable([1.0, 2.0, 3.0], name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_allclose(sess.run(v.assign([4.0, 5.0, 6.0])), [4, 5, 6])
        np.testing.assert_allclose(sess.run(tf.assign_add(v, [1.0, 1.0, 1.0])), [5, 6, 7])
        np.testing.assert_allclose(sess.run(v.assign_sub([5.0, 5.0, 5.0])), [0, 1, 2])
        op = v.assign([9.0, 9.0, 9.0], read_value=False)
        assert isinstance(op, tf.Operation)
        assert sess.run(op) is None
        np.testing.assert_allclose(sess.run(v), [9, 9, 9])
        # Reading the assign output feeds downstream ops the new value.
        np.testing.assert_allclose(sess.run(v.assign([1.0, 1.0, 1.0]) * 2.0), [2, 2, 2])


def test_assign_shape_checks():
    v = tf.Variable([1.0, 2.0], name="v")
    with pytest.raises(ValueError, match="v"):
        tf.assign(v, [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="Variable"):
        tf.assign(v.value(), [1.0, 2.0])
    p = tf.placeholder(tf.float32, [None])
    a = tf.assign(v, p)
    flex = tf.Variable([1.0, 2.0], validate_shape=False, name="flex")
    grow = tf.assign(flex, p, validate_shape=False)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"lhs shape= \[2\] rhs shape= \[3\]"):
            sess.run(a, {p: [1.0, 2.0, 3.0]})
        np.testing.assert_allclose(sess.run(grow, {p: [1.0, 2.0, 3.0]}), [1, 2, 3])
        np.testing.assert_allclose(sess.run(flex), [1, 2, 3])


def test_scatter_ops_with_duplicates():
    v = tf.Variable(np.zeros((4, 2), np.float32), name="table")
    idx = tf.placeholder(tf.int32, [None])
    upd = tf.placeholder(tf.float32, [None, 2])
    add = tf.scatter_add(v, idx, upd)
    sub = tf.scatter_sub(v, idx, upd)
    setr = tf.scatter_update(v, idx, upd)
    with tf.Session() as sess:
        sess.run(v.initializer)
        out = sess.run(add, {idx: [1, 1, 3], upd: [[1, 1], [2, 2], [5, 5]]})
        np.testing.assert_allclose(out, [[0, 0], [3, 3], [0, 0], [5, 5]])
        out = sess.run(sub, {idx: [3, 3], upd: [[1, 1], [1, 1]]})
        np.testing.assert_allclose(out[3], [3, 3])
        out = sess.run(setr, {idx: [0], upd: [[7, 8]]})
        np.testing.assert_allclose(out[0], [7, 8])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"indices\[1\] = 9 is not in \[0, 4\)"):
            sess.run(add, {idx: [0, 9], upd: [[1, 1], [1, 1]]})
        sl = tf.IndexedSlices(tf.constant([[1.0, 1.0]]), tf.constant([2]))
        np.testing.assert_allclose(sess.run(v.scatter_add(sl))[2], [1, 1])
        np.testing.assert_allclose(sess.run(v.scatter_update(sl))[2], [1, 1])


def test_count_up_to():
    c = tf.Variable(0, dtype=tf.int64, name="count")
    step = c.count_up_to(2)
    with tf.Session() as sess:
        sess.run(c.initializer)
        assert sess.run(step) == 0
        assert sess.run(step) == 1
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(step)


def test_load_eval_and_operators():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="m")
    x = tf.constant([[1.0], [1.0]])
    with tf.Session() as sess:
        sess.run(v.initializer)
        v.load([[0.0, 1.0], [2.0, 3.0]], sess)
        np.testing.assert_allclose(v.eval(sess), [[0, 1], [2, 3]])
        np.testing.assert_allclose(sess.run(tf.matmul(v, x)), [[1], [5]])
        np.testing.assert_allclose(sess.run(v + 1.0), [[1, 2], [3, 4]])
        np.testing.assert_allclose(sess.run(2.0 * v), [[0, 2], [4, 6]])
        np.testing.assert_allclose(sess.run(v[1]), [2, 3])
        np.testing.assert_allclose(sess.run(-v), [[0, -1], [-2, -3]])
        # Feeding a variable replaces its value for one step.
        np.testing.assert_allclose(sess.run(v * 1.0, {v: np.ones((2, 2))}), np.ones((2, 2)))


def test_read_value_respects_control_dependencies():
    v = tf.Variable(1.0)
    with tf.control_dependencies([v.assign_add(1.0)]):
        after = v.read_value()
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(after) == 2.0
        assert sess.run(after) == 3.0


def test_initialized_value_chains_initializers():
    a = tf.Variable(tf.constant(3.0), name="a")
    b = tf.Variable(a.initialized_value() * 2.0, name="b")
    with tf.Session() as sess:
        sess.run(b.initializer)  # a is still uninitialized
        assert sess.run(b) == 6.0
        sess.run(a.initializer)
        sess.run(a.assign(10.0))
        sess.run(b.initializer)
        assert sess.run(b) == 20.0


def test_collections_and_initializers():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, trainable=False, name="b")
    loc = tf.Variable(3.0, collections=[tf.GraphKeys.LOCAL_VARIABLES], trainable=False,
                      name="loc")
    with tf.name_scope("scope"):
        s = tf.Variable(4.0, name="s")
    assert tf.global_variables() == [a, b, s]
    assert tf.trainable_variables() == [a, s]
    assert tf.local_variables() == [loc]
    assert tf.global_variables("scope") == [s]
    assert tf.all_variables() == tf.global_variables()
    assert tf.model_variables() == []
    init = tf.global_variables_initializer()
    assert init.name == "init" and init.type == "NoOp"
    assert set(init.control_inputs) == {a.initializer, b.initializer, s.initializer}
    with tf.Session() as sess:
        sess.run(init)
        names = sess.run(tf.report_uninitialized_variables())
        assert list(names) == [b"loc"]
        sess.run(tf.local_variables_initializer())
        assert sess.run(tf.report_uninitialized_variables()).shape == (0,)
        assert sess.run(tf.variables_initializer([])) is None
    assert tf.initialize_all_variables().type == "NoOp"


def test_report_uninitialized_variables_colocates_checks():
    with tf.device("/job:ps/task:1"):
        v = tf.Variable(1.0, name="pv")
    w = tf.Variable(2.0, name="wv")
    report = tf.report_uninitialized_variables([v, w])
    checks = [op for op in tf.get_default_graph().get_operations()
              if op.type == "IsVariableInitialized"]
    assert len(checks) == 2
    assert checks[0].colocation_groups() == ["loc:@pv"] and checks[0].device == v.device
    assert report.dtype is tf.string
    with tf.Session() as sess:
        sess.run(w.initializer)
        assert list(sess.run(report)) == [b"pv"]
    assert tf.get_default_session() is None


def test_assert_variables_initialized():
    v = tf.Variable(1.0, name="needs_init")
    check = tf.assert_variables_initialized([v])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="needs_init"):
            sess.run(check)
        sess.run(v.initializer)
        sess.run(check)


def test_variable_errors():
    with pytest.raises(ValueError, match="initial_value must be specified"):
        tf.Variable()
    with pytest.raises(ValueError, match="shape specified"):
        tf.Variable(tf.placeholder(tf.float32, [None]), name="bad")
    with pytest.raises(ValueError, match="collections"):
        tf.Variable(1.0, collections="variables")
    v = tf.Variable(1.0)
    with pytest.raises(ValueError, match="Incompatible type conversion"):
        tf.convert_to_tensor(v, dtype=tf.int32)
    with pytest.raises(TypeError, match="dtype"):
        v.assign(tf.constant(1))


def test_serialized_graph_with_variables_runs():
    with tf.device("/cpu:0"):
        w = tf.Variable([[1.0, 2.0]], name="w")
        b = tf.Variable(tf.ones([2]), name="b")
    tf.add(tf.matmul(tf.constant([[2.0]]), w), b, name="y")
    tf.assign_add(b, [1.0, 1.0], name="step")
    tf.global_variables_initializer()
    plain = graph_to_plain(tf.get_default_graph())
    g2 = import_graph_def(plain)
    with tf.Session(graph=g2) as sess:
        sess.run("init")
        np.testing.assert_allclose(sess.run("y:0"), [[3, 5]])
        sess.run("step")
        np.testing.assert_allclose(sess.run("b/read:0"), [2, 2])
    with g2.as_default():
        w2 = tf.Variable.from_proto(w.to_proto())
        assert w2.name == "w:0" and w2.initializer.name == "w/Assign"
        assert w2.value().name == "w/read:0"


# -- variable scopes ------------------------------------------------------------------------

def test_get_variable_reuse_semantics():
    with tf.variable_scope("foo"):
        w = tf.get_variable("w", [2, 3])
        assert w.name == "foo/w:0"
        with pytest.raises(ValueError, match="Variable foo/w already exists, disallowed. "
                                             "Did you mean to set reuse=True"):
            tf.get_variable("w", [2, 3])
    with tf.variable_scope("foo", reuse=True):
        assert tf.get_variable("w", [2, 3]) is w
        assert tf.get_variable("w") is w
        with pytest.raises(ValueError, match="Variable foo/v does not exist, or was not "
                                             "created with tf.get_variable()"):
            tf.get_variable("v", [1])
        with pytest.raises(ValueError, match="Trying to share variable foo/w, but specified "
                                             "shape"):
            tf.get_variable("w", [3, 3])
        with pytest.raises(ValueError, match="specified dtype"):
            tf.get_variable("w", [2, 3], dtype=tf.float64)
        with tf.variable_scope("inner", reuse=False):
            assert tf.get_variable_scope().reuse  # reuse is inherited, not switched off
    with tf.variable_scope("foo") as scope:
        scope.reuse_variables()
        assert tf.get_variable("w") is w
    for _ in range(2):
        with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
            a = tf.get_variable("a", [1])
    assert tf.global_variables().count(a) == 1
    # A Variable made with tf.Variable is not known to get_variable.
    tf.Variable(1.0, name="plain")
    with tf.variable_scope("", reuse=True):
        with pytest.raises(ValueError, match="does not exist"):
            tf.get_variable("plain")


def test_variable_scope_names_and_name_scopes():
    with tf.variable_scope("net") as net:
        assert net.name == "net" and net.original_name_scope == "net/"
        c = tf.constant(1.0, name="c")
        assert c.op.name == "net/c"
        with tf.variable_scope("layer"):
            w = tf.get_variable("w", [1])
            assert w.op.name == "net/layer/w"
    with tf.variable_scope("net", reuse=True):
        # The variable scope is the same; the name scope is new.
        assert tf.constant(1.0, name="c").op.name == "net_1/c"
        assert tf.get_variable("layer/w") is w
    with tf.variable_scope(net, reuse=True) as again:
        assert again.name == "net"
        assert tf.constant(1.0, name="d").op.name == "net/d"
    with tf.variable_scope(None, default_name="block") as s1:
        pass
    with tf.variable_scope(None, default_name="block") as s2:
        pass
    assert (s1.name, s2.name) == ("block", "block_1")
    with tf.name_scope("ns"):
        v = tf.get_variable("free", [1])
    assert v.op.name == "free"  # name scopes do not prefix get_variable names
    with pytest.raises(TypeError):
        with tf.variable_scope(None):
            pass


def test_scope_defaults_inherited():
    with tf.variable_scope("s", initializer=tf.constant_initializer(7.0), dtype=tf.float64):
        with tf.variable_scope("t"):
            v = tf.get_variable("v", [2])
    assert v.dtype is tf.float64
    i = tf.get_variable("i", [3], dtype=tf.int32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(v), [7, 7])
        np.testing.assert_array_equal(sess.run(i), [0, 0, 0])


def test_get_variable_initializer_forms_and_errors():
    a = tf.get_variable("a", initializer=tf.constant([1.0, 2.0]))
    b = tf.get_variable("b", initializer=[[1, 2]], dtype=tf.int32)
    c = tf.get_variable("c", [2], initializer=tf.zeros_initializer)
    with pytest.raises(ValueError, match="do not specify shape"):
        tf.get_variable("d", [2], initializer=tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="must be fully defined"):
        tf.get_variable("e", [None, 2])
    local = tf.get_local_variable("loc", [1])
    assert local in tf.local_variables() and local not in tf.trainable_variables()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(a), [1, 2])
        np.testing.assert_array_equal(sess.run(b), [[1, 2]])
        np.testing.assert_allclose(sess.run(c), [0, 0])


def test_regularizer_and_custom_getter():
    with tf.variable_scope("r", regularizer=lambda v: tf.reduce_sum(v) * 0.5):
        v = tf.get_variable("v", [2], initializer=tf.ones_initializer())
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert len(losses) == 1 and losses[0].op.name.startswith("r/v/Regularizer/")
    seen = []

    def getter(next_getter, name, *args, **kwargs):
        seen.append(name)
        kwargs["trainable"] = False
        return next_getter(name, *args, **kwargs)

    with tf.variable_scope("g", custom_getter=getter):
        u = tf.get_variable("u", [1])
    assert seen == ["g/u"] and u not in tf.trainable_variables()
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(losses[0]) == 1.0


# -- initializers ---------------------------------------------------------------------------

def _init_values(init, shape, dtype=tf.float32):
    t = init(shape, dtype=dtype)
    with tf.Session() as sess:
        return sess.run(t)


def test_constant_initializers():
    np.testing.assert_array_equal(_init_values(tf.zeros_initializer(), [2, 3]), np.zeros((2, 3)))
    np.testing.assert_array_equal(_init_values(tf.ones_initializer(), [4]), np.ones(4))
    np.testing.assert_array_equal(_init_values(tf.constant_initializer(2.5), [2, 2]),
                                  np.full((2, 2), 2.5))
    np.testing.assert_array_equal(_init_values(tf.constant_initializer([1, 2, 3, 4]), [2, 2]),
                                  [[1, 2], [3, 4]])
    out = _init_values(tf.zeros_initializer(), [3], tf.int64)
    assert out.dtype == np.int64
    eye = _init_values(tf.identity_initializer(gain=2.0), [2, 2])
    np.testing.assert_array_equal(eye, [[2, 0], [0, 2]])


def test_orthogonal_initializer():
    q = _init_values(tf.orthogonal_initializer(seed=1), [4, 3])
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-5)
    with pytest.raises(ValueError, match="two-dimensional"):
        tf.orthogonal_initializer()([3])


def test_random_initializers_statistics_and_shapes():
    n = tf.random_normal_initializer(mean=1.0, stddev=2.0, seed=3)
    vals = _init_values(n, [200, 100])
    assert vals.shape == (200, 100) and vals.dtype == np.float32
    assert abs(vals.mean() - 1.0) < 0.05 and abs(vals.std() - 2.0) < 0.05
    t = _init_values(tf.truncated_normal_initializer(stddev=1.0, seed=3), [10000])
    assert np.abs(t).max() <= 2.0 + 1e-6
    u = _init_values(tf.random_uniform_initializer(-3.0, -1.0, seed=3), [10000])
    assert u.min() >= -3.0 and u.max() < -1.0
    g = _init_values(tf.glorot_uniform_initializer(seed=5), [30, 70])
    limit = np.sqrt(6.0 / 100.0)
    assert np.abs(g).max() <= limit and np.abs(g).max() > 0.9 * limit
    vs = _init_values(tf.variance_scaling_initializer(2.0, "fan_in", "untruncated_normal",
                                                      seed=1), [400, 300])
    assert abs(vs.std() - np.sqrt(2.0 / 400)) < 0.01 * np.sqrt(2.0 / 400) * 10
    gn = _init_values(tf.glorot_normal_initializer(seed=2), [3, 3, 20, 40])
    assert gn.shape == (3, 3, 20, 40)
    with pytest.raises(ValueError, match="floating"):
        tf.random_normal_initializer(dtype=tf.int32)


def test_default_get_variable_initializer_is_glorot_uniform():
    w = tf.get_variable("w", [50, 50])
    with tf.Session() as sess:
        sess.run(w.initializer)
        vals = sess.run(w)
    limit = np.sqrt(6.0 / 100.0)
    assert np.abs(vals).max() <= limit and vals.std() > 0.3 * limit


def test_seeded_initializer_repeats():
    a = tf.get_variable("a", [5], initializer=tf.random_uniform_initializer(seed=7))
    b = tf.get_variable("b", [5], initializer=tf.random_uniform_initializer(seed=7))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(a), sess.run(b))


def test_scatter_many_rows_matches_ufunc_at():
    rng = np.random.RandomState(0)
    start = rng.rand(50, 3).astype(np.float32)
    idx = rng.randint(0, 50, 200)
    upd = rng.rand(200, 3).astype(np.float32)
    v = tf.Variable(start)
    ops = {"add": tf.scatter_add(v, idx, upd), "sub": tf.scatter_sub(v, idx, upd),
           "max": tf.scatter_max(v, idx, upd), "min": tf.scatter_min(v, idx, upd)}
    ufuncs = {"add": np.add, "sub": np.subtract, "max": np.maximum, "min": np.minimum}
    with tf.Session() as sess:
        for k, op in ops.items():
            sess.run(v.initializer)
            want = start.copy()
            ufuncs[k].at(want, idx, upd)
            np.testing.assert_allclose(sess.run(op), want, rtol=1e-6)
