"""Names the TF1 census found missing, added since, and the census tool itself.

``tf.contrib.training.create_train_op``, ``slim.learning.create_train_op`` (per-gradient
clipping, gradient multipliers), ``slim.utils.convert_collection_to_dict`` and
``slim.model_analyzer``: values against numpy references. The census tool
(``benchmarks/census.py``) is checked on small programs whose names are known.
"""

import collections
import importlib.util
import json
import os
import threading

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CENSUS_DIR = os.path.join(ROOT, "tests", "fixtures", "tf1_census")


def _census_module():
    spec = importlib.util.spec_from_file_location("census",
                                                  os.path.join(ROOT, "benchmarks", "census.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _linear_problem():
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], np.float32)
    y = np.array([[1.0], [2.0], [0.0]], np.float32)
    w0 = np.array([[0.3], [-0.2]], np.float32)
    return x, y, w0


def _numpy_loss_grad(x, y, w):
    err = x @ w - y
    return float(np.mean(err ** 2)), 2.0 * x.T @ err / len(x)


# -- tf.contrib.training.create_train_op -------------------------------------------------

def test_create_train_op_yields_loss_before_update_and_applies_sgd():
    x, y, w0 = _linear_problem()
    with tf.Graph().as_default():
        w = tf.Variable(w0, name="w")
        loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(x), w) - y))
        counter = tf.Variable(0.0, trainable=False, name="counter")
        tf.add_to_collection(tf.GraphKeys.UPDATE_OPS, tf.assign_add(counter, 1.0))
        train_op = tf.contrib.training.create_train_op(
            loss, tf.train.GradientDescentOptimizer(0.1))
        assert train_op in tf.get_collection(tf.GraphKeys.TRAIN_OP)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(train_op)
            w1, n, step = sess.run([w, counter, tf.train.get_global_step()])
    want_loss, grad = _numpy_loss_grad(x, y, w0)
    assert got == pytest.approx(want_loss, rel=1e-5)
    np.testing.assert_allclose(w1, w0 - 0.1 * grad, rtol=1e-5)
    assert n == 1.0 and step == 1


def test_create_train_op_fails_the_step_on_a_nan_loss():
    with tf.Graph().as_default():
        w = tf.Variable(1.0)
        bad = tf.placeholder(tf.float32, [])
        train_op = tf.contrib.training.create_train_op(w * bad, tf.train.GradientDescentOptimizer(
            0.1), global_step=None)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(train_op, {bad: 2.0}) == pytest.approx(2.0)
            with pytest.raises(tf.errors.InvalidArgumentError, match="LossTensor is inf or nan"):
                sess.run(train_op, {bad: np.nan})


def test_create_train_op_without_variables_is_a_value_error():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="no variables to optimize"):
            tf.contrib.training.create_train_op(tf.constant(1.0),
                                                tf.train.GradientDescentOptimizer(0.1),
                                                global_step=None)


def test_transform_grads_fn_sees_and_replaces_the_gradients():
    x, y, w0 = _linear_problem()
    with tf.Graph().as_default():
        w = tf.Variable(w0)
        loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(x), w) - y))
        train_op = tf.contrib.training.create_train_op(
            loss, tf.train.GradientDescentOptimizer(1.0), global_step=None,
            transform_grads_fn=lambda gv: [(g * 0.0 + 1.0, v) for g, v in gv])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train_op)
            np.testing.assert_allclose(sess.run(w), w0 - 1.0, rtol=1e-6)


# -- slim.learning.create_train_op -----------------------------------------------------

def test_slim_create_train_op_scales_then_clips_each_gradient():
    x, y, w0 = _linear_problem()
    b0 = np.array([0.5], np.float32)
    with tf.Graph().as_default():
        w = tf.Variable(w0, name="w")
        b = tf.Variable(b0, name="b")
        loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(x), w) + b - y))
        train_op = tf.contrib.slim.learning.create_train_op(
            loss, tf.train.GradientDescentOptimizer(0.1), clip_gradient_norm=0.5,
            gradient_multipliers={"b": 3.0})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train_op)
            w1, b1 = sess.run([w, b])
    err = x @ w0 + b0 - y
    gw = 2.0 * x.T @ err / len(x)
    gb = 3.0 * 2.0 * err.sum(0) / len(x)

    def clip(g):
        n = np.linalg.norm(g)
        return g * 0.5 / n if n > 0.5 else g

    np.testing.assert_allclose(w1, w0 - 0.1 * clip(gw), rtol=1e-5)
    np.testing.assert_allclose(b1, b0 - 0.1 * clip(gb), rtol=1e-5)


def test_multiply_gradients_refuses_empty_multipliers():
    with pytest.raises(ValueError, match="gradient_multipliers is empty"):
        tf.contrib.training.multiply_gradients([], {})


# -- slim.utils and slim.model_analyzer --------------------------------------------------

def test_end_points_by_alias_from_outputs_collections():
    slim = tf.contrib.slim
    with tf.Graph().as_default():
        images = tf.placeholder(tf.float32, [None, 8, 8, 3])
        with tf.variable_scope("net"):
            with slim.arg_scope([slim.conv2d, slim.max_pool2d], outputs_collections="ends"):
                net = slim.conv2d(images, 4, [3, 3], scope="conv1")
                net = slim.max_pool2d(net, [2, 2], scope="pool1")
        ends = slim.utils.convert_collection_to_dict("ends")
        assert list(ends) == ["net/conv1", "net/pool1"]
        assert ends["net/pool1"] is net
        assert ends["net/conv1"].shape.as_list() == [None, 8, 8, 4]
        slim.utils.convert_collection_to_dict("ends", clear_collection=True)
        assert tf.get_collection("ends") == []


def test_analyze_vars_counts_elements_and_bytes(capsys):
    with tf.Graph().as_default():
        a = tf.get_variable("a", [3, 4])
        b = tf.get_variable("b", [5], dtype=tf.float64)
        size, nbytes = tf.contrib.slim.model_analyzer.analyze_vars([a, b], print_info=True)
    assert (size, nbytes) == (17, 12 * 4 + 5 * 8)
    out = capsys.readouterr().out
    assert "a:0 (float32 (3, 4)) [12, bytes: 48]" in out
    assert "Total size of variables: 17" in out


# -- tf.train.batch_join / shuffle_batch_join ----------------------------------------------

def _drain(fetch, deadline_secs=60.0):
    """Every value of ``fetch`` until OutOfRangeError; a watchdog stops a hung pipeline."""
    out = []
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        watchdog = threading.Timer(deadline_secs, coord.request_stop)
        watchdog.start()
        try:
            for _ in range(1000):
                try:
                    out.append(sess.run(fetch))
                except tf.errors.OutOfRangeError:
                    break
            else:
                pytest.fail("pipeline never ran out of input")
        finally:
            watchdog.cancel()
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)
    return out


def _sources(n_sources, n, epochs=1):
    out = []
    for s in range(n_sources):
        x, = tf.train.slice_input_producer([np.arange(n, dtype=np.int64) + 100 * s],
                                           num_epochs=epochs, shuffle=False)
        out.append({"x": x, "square": x * x})
    return out


def test_batch_join_batches_every_element_of_every_input_once():
    with tf.Graph().as_default():
        b = tf.train.batch_join(_sources(3, 5), batch_size=4, allow_smaller_final_batch=True)
        assert sorted(b) == ["square", "x"]
        batches = _drain(b)
    xs = np.concatenate([v["x"] for v in batches])
    np.testing.assert_array_equal(np.concatenate([v["square"] for v in batches]), xs * xs)
    assert sorted(xs.tolist()) == sorted(s * 100 + i for s in range(3) for i in range(5))
    assert all(len(v["x"]) == 4 for v in batches[:-1])


def test_shuffle_batch_join_sees_every_element_epochs_times():
    with tf.Graph().as_default():
        b = tf.train.shuffle_batch_join([[s["x"]] for s in _sources(2, 6, epochs=2)],
                                        batch_size=4, capacity=12, min_after_dequeue=2, seed=1)
        assert isinstance(b, list) and b[0].shape.as_list() == [4]
        batches = _drain(b)
    counts = collections.Counter(np.concatenate([v[0] for v in batches]).tolist())
    assert counts == {s * 100 + i: 2 for s in range(2) for i in range(6)}


def test_join_inputs_must_be_alike():
    with tf.Graph().as_default():
        a = tf.constant(1.0)
        with pytest.raises(ValueError, match="entry 1 of tensors_list has dtypes"):
            tf.train.batch_join([[a], [tf.constant(1)]], batch_size=2)
        with pytest.raises(ValueError, match="not structured like entry 0"):
            tf.train.batch_join([[a], {"a": a}], batch_size=2)
        with pytest.raises(ValueError, match="non-empty list"):
            tf.train.shuffle_batch_join([], batch_size=2, capacity=4, min_after_dequeue=1)
        with pytest.raises(ValueError, match="must be less than capacity"):
            tf.train.shuffle_batch_join([[a]], batch_size=2, capacity=4, min_after_dequeue=4)


# -- more learning-rate schedules -------------------------------------------------------

STEPS = [0, 3, 10, 17, 33, 49, 60, 75]


def _schedule_values(make):
    with tf.Graph().as_default():
        g = tf.placeholder(tf.int64, [])
        lr = make(g)
        with tf.Session() as sess:
            return np.array([sess.run(lr, {g: k}) for k in STEPS])


def _cos01(x):
    return 0.5 * (1 + np.cos(np.pi * x))


def _sgdr(step, first, t_mul, m_mul, alpha):
    frac = step / first
    if t_mul == 1.0:
        i = np.floor(frac)
        frac = frac - i
    else:
        i = np.floor(np.log(1 - frac * (1 - t_mul)) / np.log(t_mul))
        frac = (frac - (1 - t_mul ** i) / (1 - t_mul)) / t_mul ** i
    return 0.1 * ((1 - alpha) * m_mul ** i * _cos01(frac) + alpha)


@pytest.mark.parametrize("make,ref", [
    (lambda g: tf.train.natural_exp_decay(0.1, g, 10, 0.5),
     lambda k: 0.1 * np.exp(-0.5 * k / 10)),
    (lambda g: tf.train.natural_exp_decay(0.1, g, 10, 0.5, staircase=True),
     lambda k: 0.1 * np.exp(-0.5 * np.floor(k / 10))),
    (lambda g: tf.train.cosine_decay(0.1, g, 50, alpha=0.1),
     lambda k: 0.1 * (0.9 * _cos01(min(k, 50) / 50) + 0.1)),
    (lambda g: tf.train.linear_cosine_decay(0.1, g, 50, num_periods=2.0, alpha=0.1, beta=0.01),
     lambda k: 0.1 * ((0.1 + (50 - min(k, 50)) / 50) * _cos01(4.0 * min(k, 50) / 50) + 0.01)),
    (lambda g: tf.train.cosine_decay_restarts(0.1, g, 10, t_mul=2.0, m_mul=0.5, alpha=0.05),
     lambda k: _sgdr(k, 10, 2.0, 0.5, 0.05)),
    (lambda g: tf.train.cosine_decay_restarts(0.1, g, 10, t_mul=1.0, m_mul=0.9),
     lambda k: _sgdr(k, 10, 1.0, 0.9, 0.0)),
], ids=["natural_exp", "natural_exp_staircase", "cosine", "linear_cosine", "sgdr", "sgdr_t1"])
def test_learning_rate_schedules_match_their_formulas(make, ref):
    got = _schedule_values(make)
    np.testing.assert_allclose(got, [ref(k) for k in STEPS], rtol=1e-5, atol=1e-7)


def test_schedules_need_a_global_step():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="global_step is required for cosine_decay"):
            tf.train.cosine_decay(0.1, None, 10)


# -- tf.nn compositions ------------------------------------------------------------------

X = np.array([[-30., -1.5, 0., 0.7, 40.], [2., -0.3, 1., -4., 0.1]], np.float32)
T = np.array([[1., 0., 1., 0., 0.], [0.5, 1., 0., 1., 1.]], np.float32)


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def _softplus(z):
    return np.logaddexp(0.0, z)


def test_activations_match_numpy():
    x64 = X.astype(np.float64)
    with tf.Graph().as_default():
        sw, ss, cr = _run([tf.nn.swish(X), tf.nn.softsign(X), tf.nn.crelu(X[:, :2])])
        w = np.arange(10, dtype=np.float32).reshape(5, 2) / 10
        rl = _run(tf.nn.relu_layer(X, w, np.array([0.5, -0.5], np.float32)))
    np.testing.assert_allclose(sw, x64 / (1 + np.exp(-x64)), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ss, X / (1 + np.abs(X)), rtol=1e-6)
    np.testing.assert_array_equal(cr, np.maximum(np.concatenate([X[:, :2], -X[:, :2]], 1), 0))
    np.testing.assert_allclose(rl, np.maximum(X @ w + [0.5, -0.5], 0), rtol=1e-6)


def test_weighted_cross_entropy_matches_its_definition_without_overflow():
    x, t = X.astype(np.float64), T.astype(np.float64)
    # -q t log(sigmoid(x)) - (1-t) log(1-sigmoid(x)), via softplus: finite at |x| = 40.
    want = 2.5 * t * _softplus(-x) + (1 - t) * _softplus(x)
    with tf.Graph().as_default():
        got = _run(tf.nn.weighted_cross_entropy_with_logits(targets=T, logits=X, pos_weight=2.5))
        by_labels = _run(tf.nn.weighted_cross_entropy_with_logits(labels=T, logits=X,
                                                                  pos_weight=2.5))
    np.testing.assert_allclose(got, want, rtol=1e-5)
    np.testing.assert_array_equal(got, by_labels)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="same shape"):
            tf.nn.weighted_cross_entropy_with_logits(targets=T[:1], logits=X, pos_weight=1.0)
        with pytest.raises(ValueError, match="not both"):
            tf.nn.weighted_cross_entropy_with_logits(targets=T, labels=T, logits=X,
                                                     pos_weight=1.0)


def test_composite_gradients_are_numerically_right():
    rng = np.random.RandomState(0)
    x = rng.randn(3, 4)
    t = rng.uniform(0, 1, (3, 4))
    check_gradients(lambda a: tf.nn.swish(a), [x])
    check_gradients(lambda a: tf.nn.softsign(a), [x])
    check_gradients(lambda a, b: tf.nn.weighted_cross_entropy_with_logits(
        targets=b, logits=a, pos_weight=3.0), [x, t])


def test_sufficient_statistics_and_normalize_moments_give_mean_and_variance():
    with tf.Graph().as_default():
        c, m, v, sh = tf.nn.sufficient_statistics(X, [1], shift=0.5, keep_dims=True)
        mean, var = tf.nn.normalize_moments(c, m, v, sh)
        got = _run([c, m, v, mean, var])
        ph = tf.placeholder(tf.float32, [None, 5])
        c2, m2, _, _ = tf.nn.sufficient_statistics(ph, [0, 1])
        dyn = _run([c2, m2], {ph: X})
    assert got[0] == 5.0
    np.testing.assert_allclose(got[1], (X - 0.5).sum(1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(got[2], ((X - 0.5) ** 2).sum(1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(got[3], X.mean(1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(got[4], X.var(1, keepdims=True), rtol=1e-4)
    assert dyn[0] == 10.0 and dyn[1] == pytest.approx(X.sum(), rel=1e-6)


# -- tf.sort / tf.argsort / tf.reverse ----------------------------------------------------

def test_sort_and_argsort_match_numpy_stable_order():
    rng = np.random.RandomState(3)
    x = rng.randint(-3, 4, (4, 6)).astype(np.int32)   # many ties
    f = rng.randn(3, 5).astype(np.float32)
    with tf.Graph().as_default():
        got = _run([tf.sort(x), tf.argsort(x), tf.argsort(x, axis=0),
                    tf.sort(f, axis=0, direction="DESCENDING"),
                    tf.argsort(f, direction="DESCENDING")])
    np.testing.assert_array_equal(got[0], np.sort(x, axis=-1))
    np.testing.assert_array_equal(got[1], np.argsort(x, axis=-1, kind="stable"))
    np.testing.assert_array_equal(got[2], np.argsort(x, axis=0, kind="stable"))
    np.testing.assert_array_equal(got[3], -np.sort(-f, axis=0))
    np.testing.assert_array_equal(got[4], np.argsort(-f, axis=-1, kind="stable"))
    assert got[1].dtype == np.int32 and got[0].dtype == np.int32


def test_sort_gradient_and_errors():
    check_gradients(lambda a: tf.sort(a, axis=0), [np.random.RandomState(1).randn(4, 3)])
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="direction must be"):
            tf.sort([1.0, 2.0], direction="UP")
        with pytest.raises(ValueError, match="out of range"):
            tf.argsort([[1.0, 2.0]], axis=2)


def test_reverse_flips_the_given_axes():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32)  # unknown rank
        got = _run([tf.reverse(x, [1]), tf.reverse(x, [0, -1]), tf.reverse_v2(x, []),
                    tf.reverse(ph, [-1]), tf.reverse(ph, [0, 2])], {ph: x})
    np.testing.assert_array_equal(got[0], x[:, ::-1])
    np.testing.assert_array_equal(got[1], x[::-1, :, ::-1])
    np.testing.assert_array_equal(got[2], x)
    np.testing.assert_array_equal(got[3], x[..., ::-1])
    np.testing.assert_array_equal(got[4], x[::-1, :, ::-1])
    check_gradients(lambda a: tf.reverse(a, [1]), [np.random.RandomState(2).randn(2, 3)])
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="names a dimension twice"):
            tf.reverse(x, [1, -2])
        with pytest.raises(ValueError, match="mixed signs"):
            tf.reverse(tf.placeholder(tf.float32), [0, -1])


# -- numerics checks, tf.compat, tf.VERSION -----------------------------------------------

def test_check_numerics_passes_finite_values_and_fails_on_nan():
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32, [2])
        y = tf.check_numerics(ph * 2.0, "doubled")
        z = tf.verify_tensor_all_finite(ph, "input")
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {ph: [1.0, 2.0]}), [2.0, 4.0])
            with pytest.raises(tf.errors.InvalidArgumentError, match="doubled : Tensor had"):
                sess.run(y, {ph: [1.0, np.inf]})
            with pytest.raises(tf.errors.InvalidArgumentError, match="input : Tensor had"):
                sess.run(z, {ph: [np.nan, 0.0]})
        with pytest.raises(TypeError, match="floating point"):
            tf.check_numerics(tf.constant([1, 2]), "ints")
    check_gradients(lambda a: tf.check_numerics(a * a, "sq"), [np.array([1.0, -2.0])])


def test_add_check_numerics_ops_names_the_first_bad_tensor():
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32, [], name="x")
        y = tf.log(ph, name="log_x")
        check = tf.add_check_numerics_ops()
        with tf.Session() as sess:
            assert sess.run([y, check], {ph: 1.0})[0] == 0.0
            with pytest.raises(tf.errors.InvalidArgumentError, match="log_x:0 : Tensor had"):
                sess.run([y, check], {ph: 0.0})


def test_compat_conversions_and_version():
    assert tf.compat.as_bytes("h\u00e9") == "h\u00e9".encode("utf-8")
    assert tf.compat.as_bytes(bytearray(b"ab")) == b"ab"
    assert tf.compat.as_text(b"h\xc3\xa9") == "h\u00e9"
    assert tf.compat.as_str(b"x") == "x" and tf.compat.as_str_any(3) == "3"
    assert isinstance(np.int64(3), tf.compat.integral_types)
    with pytest.raises(TypeError, match="Expected binary or unicode string"):
        tf.compat.as_bytes(3)
    assert tf.VERSION == tf.__version__


# -- tf.assert_* / tf.debugging ----------------------------------------------------------

@pytest.mark.parametrize("check,good,bad", [
    (tf.assert_equal, ([1, 2], [1, 2]), ([1, 2], [1, 3])),
    (tf.assert_none_equal, ([1, 2], [3, 4]), ([1, 2], [3, 2])),
    (tf.assert_less, ([1, 2], [2, 3]), ([1, 2], [2, 2])),
    (tf.assert_less_equal, ([1, 2], [1, 2]), ([1, 3], [1, 2])),
    (tf.assert_greater, ([2, 3], [1, 2]), ([2, 2], [1, 2])),
    (tf.assert_greater_equal, ([1, 2], [1, 2]), ([0, 2], [1, 2])),
], ids=["equal", "none_equal", "less", "less_equal", "greater", "greater_equal"])
def test_binary_asserts_at_run_time_and_on_constants(check, good, bad):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int32, [2])
        y = tf.placeholder(tf.int32, [2])
        op = check(x, y, message="custom")
        with tf.Session() as sess:
            sess.run(op, {x: good[0], y: good[1]})
            with pytest.raises(tf.errors.InvalidArgumentError, match="custom"):
                sess.run(op, {x: bad[0], y: bad[1]})
        check(tf.constant(good[0]), tf.constant(good[1]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="did not hold"):
            check(tf.constant(bad[0]), tf.constant(bad[1]))


def test_sign_near_rank_type_checks():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        ops = [tf.assert_positive(x), tf.assert_non_negative(x),
               tf.assert_near(x, tf.ones_like(x), atol=0.01)]
        unknown = tf.placeholder(tf.float32)
        rank_op = tf.debugging.assert_rank(unknown, 2)
        with tf.Session() as sess:
            sess.run(ops, {x: [1.005, 0.999]})
            for op, v in zip(ops, ([0.0, 1.0], [-1.0, 1.0], [1.0, 1.02])):
                with pytest.raises(tf.errors.InvalidArgumentError):
                    sess.run(op, {x: v})
            sess.run(rank_op, {unknown: np.zeros((2, 2))})
            with pytest.raises(tf.errors.InvalidArgumentError, match="must have rank"):
                sess.run(rank_op, {unknown: np.zeros(3)})
        with pytest.raises(ValueError, match="must have rank 1"):
            tf.assert_rank(tf.zeros([2, 2]), 1)
        tf.assert_rank_at_least(tf.zeros([2, 2]), 1)
        with pytest.raises(ValueError, match="Expected scalar"):
            tf.assert_scalar(tf.zeros([2]))
        with pytest.raises(TypeError, match="must be of type int32"):
            tf.assert_type(tf.zeros([2]), tf.int32)
        with pytest.raises(TypeError, match="Expected integer"):
            tf.assert_integer(tf.zeros([2]))
        assert tf.debugging.is_numeric_tensor(tf.zeros([1]))
        assert not tf.debugging.is_numeric_tensor(tf.constant(["a"]))


# -- tf.train.init_from_checkpoint -------------------------------------------------------

def _save_old_model(path):
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([7.0, 8.0, 9.0], np.float32)
    e = np.arange(20, dtype=np.float32).reshape(10, 2)
    with tf.Graph().as_default():
        with tf.variable_scope("old"):
            tf.get_variable("w", initializer=w)
            tf.get_variable("b", initializer=b)
            tf.get_variable("emb", initializer=e)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, str(path / "model.ckpt"))
    return w, b, e


def test_init_from_checkpoint_maps_scopes_names_and_partitioned_variables(tmp_path):
    w, b, e = _save_old_model(tmp_path)
    with tf.Graph().as_default():
        with tf.variable_scope("new"):
            nw = tf.get_variable("w", [2, 3])
            nb = tf.get_variable("b", [3])
        other_b = tf.get_variable("other_b", [3])
        emb = tf.get_variable("emb", [10, 2], partitioner=tf.fixed_size_partitioner(2))
        untouched = tf.get_variable("untouched", [2], initializer=tf.ones_initializer())
        tf.train.init_from_checkpoint(str(tmp_path), {"old/": "new/", "old/b": "other_b",
                                                      "old/emb": emb})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([nw, nb, other_b, untouched] + list(emb))
    np.testing.assert_array_equal(got[0], w)
    np.testing.assert_array_equal(got[1], b)
    np.testing.assert_array_equal(got[2], b)
    np.testing.assert_array_equal(got[3], [1.0, 1.0])
    np.testing.assert_array_equal(np.concatenate(got[4:]), e)


def test_init_from_checkpoint_refuses_what_is_not_there(tmp_path):
    _save_old_model(tmp_path)
    with tf.Graph().as_default():
        tf.get_variable("w", [2, 3])
        with pytest.raises(ValueError, match="tensor old/nope is not in checkpoint"):
            tf.train.init_from_checkpoint(str(tmp_path), {"old/nope": "w"})
        with pytest.raises(ValueError, match="variable nope is not in the graph"):
            tf.train.init_from_checkpoint(str(tmp_path), {"old/w": "nope"})
        with pytest.raises(ValueError, match="shape"):
            tf.train.init_from_checkpoint(str(tmp_path), {"old/b": "w"})


# -- tf.contrib.training.HParams ----------------------------------------------------------

def test_hparams_parse_and_types():
    h = tf.contrib.training.HParams(lr=0.1, layers=[64, 32], name="x", use_bn=True, steps=10)
    assert h.parse("lr=1, layers=[8,4,2],name=abc, use_bn=false,steps=3") is h
    assert h.values() == {"lr": 1.0, "layers": [8, 4, 2], "name": "abc", "use_bn": False,
                          "steps": 3}
    assert isinstance(h.lr, float) and "lr" in h and "nope" not in h
    h.set_hparam("lr", 2)
    assert h.lr == 2.0 and isinstance(h.lr, float)
    h.override_from_dict({"steps": 7}).parse_json('{"name": "j"}')
    assert (h.steps, h.name) == (7, "j")
    assert h.get("nope", 5) == 5 and h.get("steps", 0) == 7
    assert json_roundtrip(h) == h.values()
    h.add_hparam("dropout", 0.5)
    assert h.dropout == 0.5
    h.del_hparam("dropout")
    assert "dropout" not in h


def json_roundtrip(h):
    return json.loads(h.to_json(sort_keys=True))


@pytest.mark.parametrize("action,error", [
    (lambda h: h.set_hparam("steps", 2.5), "Could not cast hparam 'steps'"),
    (lambda h: h.set_hparam("use_bn", 1), "Could not cast hparam 'use_bn'"),
    (lambda h: h.set_hparam("name", 3), "Could not cast hparam 'name'"),
    (lambda h: h.set_hparam("layers", 3), "scalar for list"),
    (lambda h: h.parse("steps=2.5"), "Could not parse hparam 'steps'"),
    (lambda h: h.parse("nope=1"), "Unknown hyperparameter"),
    (lambda h: h.parse("steps=[1,2]"), "list for scalar"),
    (lambda h: h.add_hparam("steps", 1), "exists already"),
    (lambda h: h.add_hparam("values", 1), "reserved"),
    (lambda h: h.get("steps", "x"), "Could not cast"),
], ids=["float_to_int", "int_to_bool", "int_to_str", "scalar_to_list", "parse_float_to_int",
        "parse_unknown", "parse_list_to_scalar", "add_twice", "add_reserved", "get_default"])
def test_hparams_refuse_values_of_another_type(action, error):
    h = tf.contrib.training.HParams(layers=[64, 32], name="x", use_bn=True, steps=10)
    with pytest.raises(ValueError, match=error):
        action(h)


# -- tf.contrib.layers.instance_norm -----------------------------------------------------

def test_instance_norm_matches_numpy_in_both_layouts():
    x = np.random.RandomState(4).randn(2, 3, 4, 5).astype(np.float32) * 3 + 1
    with tf.Graph().as_default():
        y = tf.contrib.layers.instance_norm(x, param_initializers={
            "gamma": tf.constant_initializer(2.0), "beta": tf.constant_initializer(0.5)})
        y_nchw = tf.contrib.layers.instance_norm(np.transpose(x, (0, 3, 1, 2)),
                                                 data_format="NCHW", scale=False)
        names = sorted(v.op.name for v in tf.global_variables())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, got_nchw = sess.run([y, y_nchw])
    assert names == ["InstanceNorm/beta", "InstanceNorm/gamma", "InstanceNorm_1/beta"]
    mean = x.mean(axis=(1, 2), keepdims=True)
    var = x.var(axis=(1, 2), keepdims=True)
    want = (x - mean) / np.sqrt(var + 1e-6)
    np.testing.assert_allclose(got, want * 2.0 + 0.5, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_nchw, np.transpose(want, (0, 3, 1, 2)), rtol=1e-4, atol=1e-5)


def test_instance_norm_gradient_and_errors():
    check_gradients(lambda a: tf.contrib.layers.instance_norm(a, center=False, scale=False),
                    [np.random.RandomState(5).randn(2, 3, 3, 2)])
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="at least 3"):
            tf.contrib.layers.instance_norm(tf.zeros([2, 3]))
        with pytest.raises(ValueError, match="data_format"):
            tf.contrib.layers.instance_norm(tf.zeros([2, 3, 3, 1]), data_format="NDHWC")
        with pytest.raises(ValueError, match="param_initializers keys"):
            tf.contrib.layers.instance_norm(tf.zeros([2, 3, 3, 1]),
                                            param_initializers={"moving_mean": None})


# -- tf.io -------------------------------------------------------------------------------

def test_tf_io_files_records_and_parsing(tmp_path):
    gf = tf.io.gfile
    d = str(tmp_path / "a" / "b")
    gf.makedirs(d)
    assert gf.isdir(d) and gf.exists(d)
    with gf.GFile(d + "/x.txt", "w") as f:
        f.write("hello")
    assert gf.listdir(d) == ["x.txt"] and gf.glob(d + "/*.txt") == [d + "/x.txt"]
    gf.copy(d + "/x.txt", d + "/y.txt")
    gf.rename(d + "/y.txt", d + "/z.txt")
    assert sorted(gf.listdir(d)) == ["x.txt", "z.txt"] and gf.stat(d + "/z.txt").length == 5
    assert [w[0] for w in gf.walk(str(tmp_path))] == [str(tmp_path), str(tmp_path / "a"), d]
    with pytest.raises(ValueError, match="onerror"):
        gf.walk(d, onerror=print)
    gf.remove(d + "/z.txt")
    gf.rmtree(str(tmp_path / "a"))
    assert not gf.exists(d)
    path = str(tmp_path / "r.tfrecord")
    example = tf.train.Example(features=tf.train.Features(feature={
        "v": tf.train.Feature(int64_list=tf.train.Int64List(value=[3, 4]))}))
    with tf.io.TFRecordWriter(path) as w:
        w.write(example.SerializeToString())
    records = list(tf.io.tf_record_iterator(path))
    with tf.Graph().as_default():
        parsed = tf.io.parse_single_example(records[0],
                                            {"v": tf.io.FixedLenFeature([2], tf.int64)})
        content = tf.io.read_file(path)
        got, raw = _run([parsed["v"], content])
    np.testing.assert_array_equal(got, [3, 4])
    assert raw == open(path, "rb").read()


# -- tf.nest -----------------------------------------------------------------------------

Pair = collections.namedtuple("Pair", ["a", "b"])


def test_nest_flatten_pack_and_map():
    s = {"z": [1, (2, 3)], "a": Pair(a=4, b={"y": 5, "x": 6}), "m": "leaf"}
    flat = tf.nest.flatten(s)
    assert flat == [4, 6, 5, "leaf", 1, 2, 3]  # keys sorted at every level
    back = tf.nest.pack_sequence_as(s, flat)
    assert back == s and list(back) == ["z", "a", "m"] and isinstance(back["a"], Pair)
    doubled = tf.nest.map_structure(lambda x, y: x * y, [1, (2, 3)], [10, (20, 30)])
    assert doubled == [10, (40, 90)]
    assert tf.nest.flatten(7) == [7] and tf.nest.pack_sequence_as(7, ["x"]) == "x"
    assert tf.contrib.framework.nest.is_sequence([1]) and not tf.nest.is_nested("ab")
    ph = tf.placeholder(tf.float32)
    assert tf.nest.flatten((ph, [ph]))[1] is ph


def test_nest_structure_errors():
    with pytest.raises(ValueError, match="Structure had 2 elements"):
        tf.nest.pack_sequence_as([1, 2], [1, 2, 3])
    with pytest.raises(TypeError, match="same sequence type"):
        tf.nest.assert_same_structure([1, 2], (1, 2))
    tf.nest.assert_same_structure([1, 2], (1, 2), check_types=False)
    with pytest.raises(ValueError, match="same nested structure"):
        tf.nest.map_structure(lambda x, y: x, [1, [2]], [1, 2])
    with pytest.raises(ValueError, match="same keys"):
        tf.nest.assert_same_structure({"a": 1}, {"b": 1})


# -- the census tool ---------------------------------------------------------------------

PROGRAM = '''
import tensorflow as tf
import tensorflow.contrib.slim as slim
from tensorflow.contrib import rnn
from tensorflow.contrib.layers import fully_connected, no_such_layer
layers = tf.contrib.layers
FLAGS = tf.app.flags.FLAGS

def f(x):
    y = tf.nn.relu(tf.layers.dense(x, 3)).op.name
    cell = rnn.BasicLSTMCell(4)
    net = slim.conv2d(x, 8, [3, 3])
    z = layers.nonexistent_fn(x)
    return tf.train.Saver().save, tf.estimator.ModeKeys.TRAIN, FLAGS.batch_size, tf.nn.nope
'''


def test_census_collects_names_through_every_kind_of_alias():
    census = _census_module()
    names = census.used_names(PROGRAM)
    for n in ["tensorflow.nn.relu", "tensorflow.layers.dense", "tensorflow.contrib.rnn",
              "tensorflow.contrib.rnn.BasicLSTMCell", "tensorflow.contrib.slim.conv2d",
              "tensorflow.contrib.layers.fully_connected",
              "tensorflow.contrib.layers.nonexistent_fn", "tensorflow.train.Saver",
              "tensorflow.estimator.ModeKeys.TRAIN", "tensorflow.app.flags.FLAGS.batch_size"]:
        assert n in names, n
    missing = sorted({m for m in (census.resolve(n, tf) for n in names) if m})
    assert missing == ["tf.contrib.layers.no_such_layer", "tf.contrib.layers.nonexistent_fn",
                       "tf.nn.nope"]


def test_census_over_the_programs_reports_each_one(capsys):
    census = _census_module()
    assert census.main([CENSUS_DIR]) == 0
    out = capsys.readouterr().out
    programs = sorted(f for f in os.listdir(CENSUS_DIR) if f.endswith(".py"))
    assert 25 <= len(programs) <= 30
    for p in programs:
        assert p + ": " in out
    assert "programs complete" in out
