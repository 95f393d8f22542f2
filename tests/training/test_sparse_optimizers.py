"""FTRL, Adadelta, proximal GD, proximal Adagrad, Adagrad-DA and lazy Adam.

Each optimizer's update is checked step by step against a numpy implementation of
TensorFlow 1.x's rule (the formula is written above each rule), with a dense
gradient and with the sparse gradient of a ``tf.gather`` that repeats indices.
The numbers were also compared by hand with TensorFlow 2.21's
``tf.compat.v1.train`` optimizers on these inputs (agreement within 4e-6).
"""

import numpy as np
import pytest

import tensorfleet as tf

LR = 0.1
INIT = np.arange(15, dtype=np.float32).reshape(5, 3) / 10.0 - 0.5
DENSE_GRADS = [np.random.RandomState(s).randn(5, 3).astype(np.float32) for s in range(3)]
# Row 1 is never read; row 4 only at the first step; duplicates at every step.
SPARSE_IDX = [np.array([0, 2, 0, 4]), np.array([2, 3, 2]), np.array([3, 0, 0])]
SPARSE_VALS = [np.random.RandomState(10 + s).randn(len(i), 3).astype(np.float32)
               for s, i in enumerate(SPARSE_IDX)]


# -- numpy references: rule(state, g) updates the float64 arrays of `state` ----------------

def ftrl_rule(lr, lr_power=-0.5, l1=0.0, l2=0.0, shrinkage=0.0, beta=0.0):
    # TF docs (ApplyFtrlV2): grad_s = grad + 2*l2_shrinkage*var; accum_new = accum + grad^2;
    # linear += grad_s - (accum_new^(-lr_power) - accum^(-lr_power)) / lr * var;
    # quadratic = 1/(accum_new^(lr_power) * lr) + 2*l2;
    # var = (sign(linear)*l1 - linear) / quadratic if |linear| > l1 else 0; accum = accum_new.
    # FtrlOptimizer adds beta / (2 * lr) to l2.
    l2 = l2 + beta / (2.0 * lr)

    def rule(s, g):
        g_s = g + 2.0 * shrinkage * s["var"]
        new = s["accum"] + g * g
        p = -lr_power
        s["linear"] += g_s - (new ** p - s["accum"] ** p) / lr * s["var"]
        quad = new ** p / lr + 2.0 * l2
        s["var"] = np.where(np.abs(s["linear"]) > l1,
                            (np.sign(s["linear"]) * l1 - s["linear"]) / quad, 0.0)
        s["accum"] = new
    return rule


def adadelta_rule(lr, rho, eps):
    # TF docs (ApplyAdadelta): accum = rho*accum + (1-rho)*grad^2;
    # update = sqrt(accum_update + epsilon) * rsqrt(accum + epsilon) * grad;
    # accum_update = rho*accum_update + (1-rho)*update^2; var -= lr * update.
    def rule(s, g):
        s["accum"] = rho * s["accum"] + (1 - rho) * g * g
        upd = np.sqrt(s["accum_update"] + eps) / np.sqrt(s["accum"] + eps) * g
        s["accum_update"] = rho * s["accum_update"] + (1 - rho) * upd * upd
        s["var"] -= lr * upd
    return rule


def _prox(v, lr_t, l1, l2):
    # var = sign(prox_v)/(1 + lr*l2) * max{|prox_v| - lr*l1, 0}
    return np.sign(v) * np.maximum(np.abs(v) - lr_t * l1, 0.0) / (1.0 + lr_t * l2)


def proximal_gd_rule(lr, l1, l2):
    # TF docs (ApplyProximalGradientDescent): prox_v = var - alpha * delta;
    # var = sign(prox_v)/(1 + alpha*l2) * max{|prox_v| - alpha*l1, 0}.
    def rule(s, g):
        s["var"] = _prox(s["var"] - lr * g, lr, l1, l2)
    return rule


def proximal_adagrad_rule(lr, l1, l2):
    # TF docs (ApplyProximalAdagrad): accum += grad * grad; prox_v = var - lr * grad *
    # (1 / sqrt(accum)); var = sign(prox_v)/(1 + lr*l2) * max{|prox_v| - lr*l1, 0},
    # lr meaning the per-coordinate rate lr / sqrt(accum) in the last step.
    def rule(s, g):
        s["accum"] += g * g
        lr_t = lr / np.sqrt(s["accum"])
        s["var"] = _prox(s["var"] - lr_t * g, lr_t, l1, l2)
    return rule


def adagrad_da_rule(lr, l1, l2):
    # TF (ApplyAdagradDA, AdagradDAOptimizer with T = global_step + 1):
    # ga += grad; gg += grad^2;
    # var = -lr * sign(ga) * max(|ga| - T*l1, 0) / (T*l2*lr + sqrt(gg)).
    def rule(s, g):
        s["t"] += 1
        t = s["t"]
        s["ga"] += g
        s["gg"] += g * g
        s["var"] = (-lr * np.sign(s["ga"]) * np.maximum(np.abs(s["ga"]) - t * l1, 0.0)
                    / (t * l2 * lr + np.sqrt(s["gg"])))
    return rule


def adam_rule(lr, b1=0.9, b2=0.999, eps=1e-8):
    # TF docs (AdamOptimizer): lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t);
    # m = beta1*m + (1-beta1)*g; v = beta2*v + (1-beta2)*g^2; var -= lr_t*m/(sqrt(v)+eps).
    # LazyAdam applies the same to the rows of a sparse gradient only; t counts steps.
    def rule(s, g):
        s["t"] += 1
        lr_t = lr * np.sqrt(1 - b2 ** s["t"]) / (1 - b1 ** s["t"])
        s["m"] = b1 * s["m"] + (1 - b1) * g
        s["v"] = b2 * s["v"] + (1 - b2) * g * g
        s["var"] -= lr_t * s["m"] / (np.sqrt(s["v"]) + eps)
    return rule


GS = "global_step"
CASES = {
    "ftrl": (lambda gs: tf.train.FtrlOptimizer(LR, l1_regularization_strength=0.01,
                                               l2_regularization_strength=0.02),
             ftrl_rule(LR, l1=0.01, l2=0.02), {"accum": 0.1, "linear": 0.0}),
    "ftrl_power_shrinkage": (
        lambda gs: tf.train.FtrlOptimizer(
            LR, learning_rate_power=-0.7, initial_accumulator_value=0.2,
            l1_regularization_strength=0.3, l2_regularization_strength=0.02,
            l2_shrinkage_regularization_strength=0.05),
        ftrl_rule(LR, -0.7, 0.3, 0.02, 0.05), {"accum": 0.2, "linear": 0.0}),
    "ftrl_beta": (lambda gs: tf.train.FtrlOptimizer(LR, l2_regularization_strength=0.02,
                                                    beta=0.5),
                  ftrl_rule(LR, l2=0.02, beta=0.5), {"accum": 0.1, "linear": 0.0}),
    "adadelta": (lambda gs: tf.train.AdadeltaOptimizer(0.5, rho=0.9, epsilon=1e-6),
                 adadelta_rule(0.5, 0.9, 1e-6), {"accum": 0.0, "accum_update": 0.0}),
    "proximal_gd": (lambda gs: tf.train.ProximalGradientDescentOptimizer(
        LR, l1_regularization_strength=0.05, l2_regularization_strength=0.1),
        proximal_gd_rule(LR, 0.05, 0.1), {}),
    "proximal_gd_l2_only": (lambda gs: tf.train.ProximalGradientDescentOptimizer(
        LR, l2_regularization_strength=0.1), proximal_gd_rule(LR, 0.0, 0.1), {}),
    "proximal_adagrad": (lambda gs: tf.train.ProximalAdagradOptimizer(
        LR, l1_regularization_strength=0.05, l2_regularization_strength=0.1),
        proximal_adagrad_rule(LR, 0.05, 0.1), {"accum": 0.1}),
    "adagrad_da": (lambda gs: tf.train.AdagradDAOptimizer(
        LR, gs, l1_regularization_strength=0.05, l2_regularization_strength=0.1),
        adagrad_da_rule(LR, 0.05, 0.1), {"ga": 0.0, "gg": 0.1}),
    "adagrad_da_no_l1": (lambda gs: tf.train.AdagradDAOptimizer(LR, gs),
                         adagrad_da_rule(LR, 0.0, 0.0), {"ga": 0.0, "gg": 0.1}),
    "lazy_adam": (lambda gs: tf.contrib.opt.LazyAdamOptimizer(LR), adam_rule(LR),
                  {"m": 0.0, "v": 0.0}),
}


def _state(slots):
    s = {"var": INIT.astype(np.float64), "t": 0}
    s.update({k: np.full(INIT.shape, v, dtype=np.float64) for k, v in slots.items()})
    return s


def _sparse_step(rule, state, idx, vals):
    """The rule on the touched rows only, duplicates summed (TF's _apply_sparse_duplicate_
    indices); adagrad_da's and lazy Adam's step count advances every step."""
    rows, inv = np.unique(idx, return_inverse=True)
    g = np.zeros((len(rows), INIT.shape[1]))
    np.add.at(g, inv, vals.astype(np.float64))
    sub = {k: (v[rows].copy() if isinstance(v, np.ndarray) else v) for k, v in state.items()}
    rule(sub, g)
    for k, v in sub.items():
        if isinstance(v, np.ndarray):
            state[k][rows] = v
        else:
            state[k] = v


@pytest.mark.parametrize("name", sorted(CASES))
def test_dense_update_matches_numpy(name):
    make, rule, slots = CASES[name]
    gs = tf.train.get_or_create_global_step()
    var = tf.Variable(INIT, name="w")
    g = tf.placeholder(tf.float32, [5, 3])
    train = make(gs).minimize(tf.reduce_sum(var * g), global_step=gs, var_list=[var])
    ref = _state(slots)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for grad in DENSE_GRADS:
            sess.run(train, {g: grad})
            rule(ref, grad.astype(np.float64))
            np.testing.assert_allclose(sess.run(var), ref["var"], rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_sparse_update_matches_numpy(name):
    make, rule, slots = CASES[name]
    gs = tf.train.get_or_create_global_step()
    var = tf.Variable(INIT, name="emb")
    idx = tf.placeholder(tf.int32, [None])
    vals = tf.placeholder(tf.float32, [None, 3])
    opt = make(gs)
    (grad, _), = opt.compute_gradients(tf.reduce_sum(tf.gather(var, idx) * vals), [var])
    assert isinstance(grad, tf.IndexedSlices)
    train = opt.apply_gradients([(grad, var)], global_step=gs)
    ref = _state(slots)
    slots_of = [opt.get_slot(var, n) for n in opt.get_slot_names()]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        slots_before = sess.run(slots_of)
        for i, v in zip(SPARSE_IDX, SPARSE_VALS):
            sess.run(train, {idx: i, vals: v})
            _sparse_step(rule, ref, i, v)
            got = sess.run(var)
            np.testing.assert_allclose(got, ref["var"], rtol=2e-5, atol=2e-6)
        np.testing.assert_array_equal(got[1], INIT[1])  # never read: untouched
        # Row 1 of every slot keeps its initial value, bit for bit; touched rows moved.
        for before, after in zip(slots_before, sess.run(slots_of)):
            np.testing.assert_array_equal(after[1], before[1])
            assert np.all(after[[0, 2, 3]] != before[[0, 2, 3]])


def test_lazy_adam_leaves_untouched_moments_alone_but_adam_decays_them():
    var_l = tf.Variable(INIT, name="lazy")
    var_a = tf.Variable(INIT, name="adam")
    idx = tf.placeholder(tf.int32, [None])
    vals = tf.placeholder(tf.float32, [None, 3])
    lazy = tf.contrib.opt.LazyAdamOptimizer(LR)
    adam = tf.train.AdamOptimizer(LR)
    train = [lazy.minimize(tf.reduce_sum(tf.gather(var_l, idx) * vals), var_list=[var_l]),
             adam.minimize(tf.reduce_sum(tf.gather(var_a, idx) * vals), var_list=[var_a])]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {idx: [0, 2], vals: np.ones((2, 3), np.float32)})
        sess.run(train, {idx: [3], vals: np.ones((1, 3), np.float32)})
        m_lazy, m_adam = sess.run([lazy.get_slot(var_l, "m"), adam.get_slot(var_a, "m")])
        w_lazy, w_adam = sess.run([var_l, var_a])
    # Rows 0 and 2 were read at step 1 only: lazy keeps m = 0.1, Adam decayed it to 0.09.
    np.testing.assert_allclose(m_lazy[[0, 2]], 0.1, rtol=1e-6)
    np.testing.assert_allclose(m_adam[[0, 2]], 0.09, rtol=1e-6)
    # Step 2 moves rows 0 and 2 under Adam (non-zero m) but not under lazy Adam.
    assert np.all(w_adam[[0, 2]] != w_lazy[[0, 2]])
    np.testing.assert_array_equal(w_lazy[[1, 4]], INIT[[1, 4]])
    assert lazy.get_slot_names() == ["m", "v"]
    assert sorted(v.op.name for v in lazy.variables()) == [
        "beta1_power", "beta2_power", "lazy/Adam", "lazy/Adam_1"]


def test_slot_names_variable_names_and_initial_values():
    var = tf.Variable(INIT, name="w")
    loss = tf.reduce_sum(var)
    gs = tf.train.get_or_create_global_step()
    expect = {
        "Ftrl": (tf.train.FtrlOptimizer(LR), {"accum": ("w/Ftrl", 0.1),
                                              "linear": ("w/Ftrl_1", 0.0)}),
        "Named": (tf.train.FtrlOptimizer(LR, initial_accumulator_value=0.0, name="F2",
                                         accum_name="acc", linear_name="lin"),
                  {"accum": ("w/acc", 0.0), "linear": ("w/lin", 0.0)}),
        "Adadelta": (tf.train.AdadeltaOptimizer(), {"accum": ("w/Adadelta", 0.0),
                                                    "accum_update": ("w/Adadelta_1", 0.0)}),
        "ProximalAdagrad": (tf.train.ProximalAdagradOptimizer(LR, 0.3),
                            {"accumulator": ("w/ProximalAdagrad", 0.3)}),
        "AdagradDA": (tf.train.AdagradDAOptimizer(LR, gs, 0.2),
                      {"gradient_accumulator": ("w/AdagradDA", 0.0),
                       "gradient_squared_accumulator": ("w/AdagradDA_1", 0.2)}),
        "ProximalGradientDescent": (tf.train.ProximalGradientDescentOptimizer(LR), {}),
    }
    for opt, _ in expect.values():
        opt.minimize(loss, var_list=[var])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for key, (opt, slots) in expect.items():
            assert opt.get_slot_names() == sorted(slots), key
            for slot_name, (var_name, init) in slots.items():
                slot = opt.get_slot(var, slot_name)
                assert slot.op.name == var_name
                assert slot not in tf.trainable_variables()
                np.testing.assert_array_equal(sess.run(slot.initialized_value()),
                                              np.full(INIT.shape, init, np.float32))
    assert tf.train.AdadeltaOptimizer().get_name() == "Adadelta"
    assert tf.train.ProximalGradientDescentOptimizer(LR).get_name() == "ProximalGradientDescent"


def test_hyperparameters_as_tensors_and_float64():
    var = tf.Variable(INIT.astype(np.float64), name="w64")
    lr = tf.placeholder(tf.float32, [])
    g = tf.placeholder(tf.float64, [5, 3])
    opt = tf.train.FtrlOptimizer(lr, l1_regularization_strength=tf.constant(0.01),
                                 l2_regularization_strength=0.02, beta=0.5)
    train = opt.minimize(tf.reduce_sum(var * g))
    ref = _state({"accum": 0.1, "linear": 0.0})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step, grad in enumerate(DENSE_GRADS):
            rate = 0.1 * (step + 1)
            sess.run(train, {lr: rate, g: grad.astype(np.float64)})
            ftrl_rule(rate, l1=0.01, l2=0.02, beta=0.5)(ref, grad.astype(np.float64))
            got = sess.run(var)
            assert got.dtype == np.float64
            np.testing.assert_allclose(got, ref["var"], rtol=1e-5, atol=1e-6)


def test_adagrad_da_reads_the_global_step_plus_one():
    gs = tf.train.get_or_create_global_step()
    var = tf.Variable(INIT, name="w")
    opt = tf.train.AdagradDAOptimizer(LR, gs, l1_regularization_strength=0.05)
    train = opt.minimize(tf.reduce_sum(var * DENSE_GRADS[0]), var_list=[var])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(gs, 9))
        sess.run(train)  # without global_step: T stays 10
        ref = _state({"ga": 0.0, "gg": 0.1})
        ref["t"] = 9
        adagrad_da_rule(LR, 0.05, 0.0)(ref, DENSE_GRADS[0].astype(np.float64))
        np.testing.assert_allclose(sess.run(var), ref["var"], rtol=2e-5, atol=2e-6)
        assert sess.run(gs) == 9


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="initial_accumulator_value"):
        tf.train.FtrlOptimizer(LR, initial_accumulator_value=-0.1)
    with pytest.raises(ValueError, match="learning_rate_power"):
        tf.train.FtrlOptimizer(LR, learning_rate_power=0.5)
    with pytest.raises(ValueError, match="l1_regularization_strength"):
        tf.train.FtrlOptimizer(LR, l1_regularization_strength=-1.0)
    with pytest.raises(ValueError, match="l2_shrinkage_regularization_strength"):
        tf.train.FtrlOptimizer(LR, l2_shrinkage_regularization_strength=-1.0)
    with pytest.raises(ValueError, match="initial_accumulator_value"):
        tf.train.ProximalAdagradOptimizer(LR, initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match="initial_gradient_squared_accumulator_value"):
        tf.train.AdagradDAOptimizer(LR, tf.train.get_or_create_global_step(), 0.0)
    with pytest.raises(ValueError, match="global_step"):
        tf.train.AdagradDAOptimizer(LR, None)


def test_kernel_rejects_bad_hyperparameters_at_run_time():
    var = tf.Variable(INIT, name="w")
    lr = tf.placeholder(tf.float32, [])
    power = tf.placeholder(tf.float32, [])
    train = tf.train.FtrlOptimizer(lr, learning_rate_power=power).minimize(tf.reduce_sum(var))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match="lr is not a positive"):
            sess.run(train, {lr: 0.0, power: -0.5})
        with pytest.raises(tf.errors.InvalidArgumentError, match="lr_power"):
            sess.run(train, {lr: 0.1, power: 0.5})
        np.testing.assert_array_equal(sess.run(var), INIT)


def test_ftrl_minimizes_a_sparse_logistic_regression():
    rs = np.random.RandomState(0)
    w_true = np.zeros(20, np.float32)
    w_true[:4] = [2.0, -2.0, 1.5, -1.5]
    x = rs.randn(200, 20).astype(np.float32)
    y = (x @ w_true > 0).astype(np.float32)
    w = tf.Variable(tf.zeros([20, 1]), name="w")
    logits = tf.matmul(tf.constant(x), w)
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
        labels=tf.constant(y[:, None]), logits=logits))
    train = tf.train.FtrlOptimizer(1.0, l1_regularization_strength=2.0).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(60):
            sess.run(train)
        last, got = sess.run([loss, w])
    assert last < 0.25 * first
    # L1 keeps the irrelevant weights at exactly zero.
    assert np.count_nonzero(got[4:]) == 0
    assert np.all(np.sign(got[:4, 0]) == np.sign(w_true[:4]))
