"""Optimizers, learning-rate schedules and the global step.

Each optimizer's update is checked against a numpy re-implementation of its
rule over three steps, with a dense gradient and with a sparse one produced by
``tf.gather`` (so the gradient is an IndexedSlices with duplicate indices).
"""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.kernels.sparse_rows import sum_duplicates
from tensorfleet.training import training_ops

LR = 0.1
INIT = np.arange(15, dtype=np.float32).reshape(5, 3) / 10.0 - 0.5
DENSE_GRADS = [np.random.RandomState(s).randn(5, 3).astype(np.float32) for s in range(3)]
# Row 1 is never read; row 4 is read at the first step only; duplicates every step.
SPARSE_IDX = [np.array([0, 2, 0, 4]), np.array([2, 3, 2]), np.array([3, 0, 0])]
SPARSE_VALS = [np.random.RandomState(10 + s).randn(len(i), 3).astype(np.float32)
               for s, i in enumerate(SPARSE_IDX)]


# -- numpy reference rules: rule(state, g) mutates the float64 arrays in `state` -----------

def sgd_rule(s, g):
    s["var"] -= LR * g


def momentum_rule(nesterov):
    def rule(s, g):
        s["accum"] = 0.9 * s["accum"] + g
        step = g + 0.9 * s["accum"] if nesterov else s["accum"]
        s["var"] -= LR * step
    return rule


def adagrad_rule(s, g):
    s["accum"] += g * g
    s["var"] -= LR * g / np.sqrt(s["accum"])


def adam_rule(s, g):
    s["t"] += 1
    t = s["t"]
    lr_t = LR * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
    s["m"] = 0.9 * s["m"] + 0.1 * g
    s["v"] = 0.999 * s["v"] + 0.001 * g * g
    s["var"] -= lr_t * s["m"] / (np.sqrt(s["v"]) + 1e-8)


def rmsprop_rule(centered):
    def rule(s, g):
        s["ms"] = 0.9 * s["ms"] + 0.1 * g * g
        denom = s["ms"] + 1e-10
        if centered:
            s["mg"] = 0.9 * s["mg"] + 0.1 * g
            denom = denom - s["mg"] ** 2
        s["mom"] = 0.5 * s["mom"] + LR * g / np.sqrt(denom)
        s["var"] -= s["mom"]
    return rule


CASES = {
    "sgd": (lambda: tf.train.GradientDescentOptimizer(LR), sgd_rule, {}),
    "momentum": (lambda: tf.train.MomentumOptimizer(LR, 0.9), momentum_rule(False),
                 {"accum": 0.0}),
    "nesterov": (lambda: tf.train.MomentumOptimizer(LR, 0.9, use_nesterov=True),
                 momentum_rule(True), {"accum": 0.0}),
    "adagrad": (lambda: tf.train.AdagradOptimizer(LR), adagrad_rule, {"accum": 0.1}),
    "adam": (lambda: tf.train.AdamOptimizer(LR), adam_rule, {"m": 0.0, "v": 0.0}),
    "rmsprop": (lambda: tf.train.RMSPropOptimizer(LR, momentum=0.5), rmsprop_rule(False),
                {"ms": 1.0, "mom": 0.0}),
    "rmsprop_centered": (lambda: tf.train.RMSPropOptimizer(LR, momentum=0.5, centered=True),
                         rmsprop_rule(True), {"ms": 1.0, "mom": 0.0, "mg": 0.0}),
}


def _new_state(slots):
    s = {"var": INIT.astype(np.float64), "t": 0}
    s.update({k: np.full(INIT.shape, v, dtype=np.float64) for k, v in slots.items()})
    return s


def _sparse_reference(name, rule, state, idx, vals):
    g = np.zeros(INIT.shape)
    np.add.at(g, idx, vals.astype(np.float64))
    if name == "adam":
        # TF1 semantics: the moments decay on every row.
        rule(state, g)
        return
    rows = np.unique(idx)
    sub = {k: (v[rows].copy() if isinstance(v, np.ndarray) else v) for k, v in state.items()}
    rule(sub, g[rows])
    for k, v in sub.items():
        if isinstance(v, np.ndarray):
            state[k][rows] = v


@pytest.mark.parametrize("name", sorted(CASES))
def test_dense_update_matches_numpy(name):
    make_opt, rule, slots = CASES[name]
    var = tf.Variable(INIT, name="w")
    g = tf.placeholder(tf.float32, [5, 3])
    loss = tf.reduce_sum(var * g)
    train = make_opt().minimize(loss)
    ref = _new_state(slots)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for grad in DENSE_GRADS:
            sess.run(train, feed_dict={g: grad})
            rule(ref, grad.astype(np.float64))
            np.testing.assert_allclose(sess.run(var), ref["var"], rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_sparse_update_matches_numpy(name):
    make_opt, rule, slots = CASES[name]
    var = tf.Variable(INIT, name="emb")
    idx = tf.placeholder(tf.int32, [None])
    vals = tf.placeholder(tf.float32, [None, 3])
    loss = tf.reduce_sum(tf.gather(var, idx) * vals)
    opt = make_opt()
    (grad, _), = opt.compute_gradients(loss)
    assert isinstance(grad, tf.IndexedSlices)
    train = opt.apply_gradients([(grad, var)])
    ref = _new_state(slots)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i, v in zip(SPARSE_IDX, SPARSE_VALS):
            sess.run(train, feed_dict={idx: i, vals: v})
            _sparse_reference(name, rule, ref, i, v)
            got = sess.run(var)
            np.testing.assert_allclose(got, ref["var"], rtol=2e-5, atol=2e-6)
        np.testing.assert_array_equal(got[1], INIT[1])  # never read: untouched


def test_sum_duplicates():
    vals = np.arange(8, dtype=np.float32).reshape(4, 2)
    v, i = sum_duplicates(vals, np.array([3, 1, 3, 0]))
    order = np.argsort(i)
    np.testing.assert_array_equal(i[order], [0, 1, 3])
    np.testing.assert_array_equal(v[order], [[6, 7], [2, 3], [0 + 4, 1 + 5]])
    v2, i2 = sum_duplicates(vals, np.array([2, 0, 1, 3]))
    assert v2 is vals and i2.tolist() == [2, 0, 1, 3]


def test_global_step_increments_after_updates():
    gs = tf.train.get_or_create_global_step()
    assert gs.dtype.base_dtype == tf.int64
    assert tf.get_collection(tf.GraphKeys.GLOBAL_STEP) == [gs]
    assert gs in tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)
    assert gs not in tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)
    assert tf.train.get_or_create_global_step() is gs
    assert tf.contrib.framework.get_or_create_global_step() is gs
    assert tf.train.get_global_step() is gs
    with pytest.raises(ValueError, match="already exists"):
        tf.train.create_global_step()
    w = tf.Variable([1.0, 2.0], name="w")
    train = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(w * w),
                                                            global_step=gs)
    assert train in tf.get_collection("train_op")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert tf.train.global_step(sess, gs) == 0
        for _ in range(3):
            sess.run(train)
        assert tf.train.global_step(sess, gs) == 3
        np.testing.assert_allclose(sess.run(w), [0.0, 0.0])


def test_global_step_keeps_device_scope():
    with tf.device("/job:ps/task:0"):
        gs = tf.train.create_global_step()
    assert "/job:ps/task:0" in gs.device
    assert gs.op.name == "global_step"


def test_get_global_step_none_and_type_check():
    assert tf.train.get_global_step() is None
    tf.Variable(1.5, name="global_step")
    with pytest.raises(TypeError, match="integer scalar"):
        tf.train.get_global_step()


def test_exponential_decay_staircase_values():
    step = tf.placeholder(tf.int64, [])
    stair = tf.train.exponential_decay(0.1, step, 10, 0.5, staircase=True)
    smooth = tf.train.exponential_decay(0.1, step, 10, 0.5)
    with tf.Session() as sess:
        got = [sess.run(stair, {step: s}) for s in (0, 9, 10, 25)]
        np.testing.assert_allclose(got, [0.1, 0.1, 0.05, 0.025], rtol=1e-6)
        np.testing.assert_allclose(sess.run(smooth, {step: 5}), 0.1 * 0.5 ** 0.5, rtol=1e-6)
    with pytest.raises(ValueError, match="global_step is required"):
        tf.train.exponential_decay(0.1, None, 10, 0.5)


def test_other_schedules():
    step = tf.placeholder(tf.int64, [])
    pw = tf.train.piecewise_constant(step, [10, 20], [1.0, 0.5, 0.1])
    poly = tf.train.polynomial_decay(1.0, step, 10, end_learning_rate=0.0, power=2.0)
    cyc = tf.train.polynomial_decay(1.0, step, 10, end_learning_rate=0.0, cycle=True)
    inv = tf.train.inverse_time_decay(1.0, step, 10, 0.5, staircase=True)
    with tf.Session() as sess:
        assert [float(sess.run(pw, {step: s})) for s in (0, 10, 11, 20, 21)] == pytest.approx(
            [1.0, 1.0, 0.5, 0.5, 0.1])
        assert sess.run(poly, {step: 5}) == pytest.approx(0.25)
        assert sess.run(poly, {step: 50}) == pytest.approx(0.0)
        assert sess.run(cyc, {step: 15}) == pytest.approx(0.25)
        assert sess.run(inv, {step: 25}) == pytest.approx(1.0 / 2.0)
    with pytest.raises(ValueError, match="one less"):
        tf.train.piecewise_constant(step, [10], [1.0])


def test_decayed_learning_rate_drives_optimizer():
    gs = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(1.0, gs, 1, 0.5, staircase=True)
    w = tf.Variable([0.0], name="w")
    train = tf.train.GradientDescentOptimizer(lr).minimize(tf.reduce_sum(w * -1.0),
                                                           global_step=gs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        np.testing.assert_allclose(sess.run(w), [1.0 + 0.5 + 0.25])


def test_minimize_converges_on_linear_regression():
    rng = np.random.RandomState(0)
    xs = rng.randn(64, 3).astype(np.float32)
    w_true = np.array([[1.5], [-2.0], [0.5]], dtype=np.float32)
    ys = xs @ w_true + 0.3
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.placeholder(tf.float32, [None, 1])
    w = tf.Variable(np.zeros((3, 1), np.float32), name="w")
    b = tf.Variable(0.0, name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    train = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, {x: xs, y: ys})
        for _ in range(150):
            sess.run(train, {x: xs, y: ys})
        assert sess.run(loss, {x: xs, y: ys}) < 1e-4 * first
        np.testing.assert_allclose(sess.run(w), w_true, atol=1e-2)
        assert sess.run(b) == pytest.approx(0.3, abs=1e-2)


def test_slots_and_updates_colocated_with_variable():
    with tf.device("/job:ps/task:1"):
        w = tf.Variable(np.ones((2, 2), np.float32), name="w")
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(np.ones(2, np.float32), name="v")
    with tf.device("/job:worker/task:0"):
        loss = tf.reduce_sum(tf.matmul(w, tf.reshape(v, [2, 1])))
        opt = tf.train.AdamOptimizer(0.1)
        opt.minimize(loss)
    assert opt.get_slot_names() == ["m", "v"]
    for var in (w, v):
        for slot_name in ("m", "v"):
            slot = opt.get_slot(var, slot_name)
            assert slot.op.attrs["_class"] == [f"loc:@{var.op.name}"]
            assert slot.device == var.device
            assert slot not in tf.trainable_variables()
    assert opt.get_slot(w, "m").op.name == "w/Adam"
    assert opt.get_slot(w, "v").op.name == "w/Adam_1"
    updates = [op for op in tf.get_default_graph().get_operations() if op.type == "ApplyAdam"]
    assert {op.inputs[0].op.name for op in updates} == {"w", "v"}
    for op in updates:
        assert op.device == op.inputs[0].op.device
        # Constant hyperparameters are made on the variable's task: nothing but the
        # gradient (and Adam's shared beta powers) crosses to the parameter server.
        assert all(t.op.device == op.device for t in op.inputs[5:9])
    names = sorted(x.op.name for x in opt.variables())
    assert "beta1_power" in names and "beta2_power" in names and len(names) == 6
    # Beta powers live with the first variable by name ("v").
    b1 = [x for x in opt.variables() if x.op.name == "beta1_power"][0]
    assert b1.device == v.device


def test_rmsprop_slot_names_and_initial_values():
    w = tf.Variable(np.zeros(3, np.float32), name="w")
    opt = tf.train.RMSPropOptimizer(0.1, centered=True)
    opt.minimize(tf.reduce_sum(w * w))
    assert opt.get_slot(w, "rms").op.name == "w/RMSProp"
    assert opt.get_slot(w, "mg").op.name == "w/RMSProp_1"
    assert opt.get_slot(w, "momentum").op.name == "w/RMSProp_2"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(opt.get_slot(w, "rms")), [1.0, 1.0, 1.0])


def test_no_gradients_errors():
    w = tf.Variable([1.0], name="w")
    u = tf.Variable([2.0], name="u")
    opt = tf.train.GradientDescentOptimizer(0.1)
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.minimize(tf.reduce_sum(u * 2.0), var_list=[w])
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.apply_gradients([(None, w)])
    with pytest.raises(ValueError, match="No variables"):
        opt.apply_gradients([])
    with pytest.raises(TypeError, match="tf.Variable"):
        opt.apply_gradients([(tf.constant([1.0]), tf.constant([1.0]))])


def test_bad_arguments():
    with pytest.raises(ValueError, match="initial_accumulator_value"):
        tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)
    w = tf.Variable(np.zeros((2, 2), np.float32), name="w")
    with pytest.raises(ValueError, match="same shape"):
        training_ops.apply_gradient_descent(w, 0.1, np.zeros((3,), np.float32))
    with pytest.raises(TypeError, match="needs a variable"):
        training_ops.apply_gradient_descent(tf.constant([1.0]), 0.1, [1.0])
    bad = training_ops.sparse_apply_gradient_descent(w, 0.1, np.ones((1, 2), np.float32), [7])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = 7"):
            sess.run(bad)
    grad_i = tf.constant(1, dtype=tf.int32)
    with pytest.raises(ValueError, match="Invalid type"):
        tf.train.GradientDescentOptimizer(0.1).compute_gradients(grad_i)


def test_uninitialized_slot_fails_precondition():
    w = tf.Variable([1.0], name="w")
    train = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(w * w))
    with tf.Session() as sess:
        sess.run(w.initializer)
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(train)


def test_use_locking_and_float64():
    w = tf.Variable(np.ones(4), name="w")  # float64
    assert w.dtype.base_dtype == tf.float64
    train = tf.train.AdamOptimizer(0.1, use_locking=True).minimize(tf.reduce_sum(w * w))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        out = sess.run(w)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, 0.9, rtol=1e-6)


def test_gradient_reaches_every_read_of_a_variable():
    w = tf.Variable([1.0, 2.0], name="w")
    loss = tf.reduce_sum(w * 3.0) + tf.reduce_sum(w.read_value() * 2.0)
    (grad, var), = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss)
    assert var is w
    with tf.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_allclose(sess.run(grad), [5.0, 5.0])


@pytest.mark.parametrize("gate", [tf.train.Optimizer.GATE_NONE, tf.train.Optimizer.GATE_GRAPH])
def test_gate_gradients_modes(gate):
    w = tf.Variable([1.0, -1.0], name="w")
    b = tf.Variable(0.5, name="b")
    loss = tf.reduce_sum(w * w) + b * 2.0
    train = tf.train.GradientDescentOptimizer(0.25).minimize(loss, gate_gradients=gate)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [0.5, -0.5])
        assert sess.run(b) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="gate_gradients"):
        tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss, gate_gradients=7)
