"""tf.train.ExponentialMovingAverage and MovingAverageOptimizer: shadow names, values
step by step against numpy, restoring averages, and averages on a parameter server."""

import os

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.cluster import local_cluster


def test_shadow_names_collections_and_lookup():
    v = tf.Variable(1.0, name="v")
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
    ema = tf.train.ExponentialMovingAverage(0.9)
    op = ema.apply([v, w])
    assert ema.average(v).op.name == "v/ExponentialMovingAverage"
    assert ema.average(w).op.name == "layer/w/ExponentialMovingAverage"
    assert ema.average_name(w) == "layer/w/ExponentialMovingAverage"
    assert ema.average(tf.Variable(0.0, name="unrelated")) is None
    assert tf.moving_average_variables() == [v, w]
    assert ema.average(v) in tf.global_variables()
    assert ema.average(v) not in tf.trainable_variables()
    assert op.type == "NoOp" and op.name.startswith("ExponentialMovingAverage/")
    with pytest.raises(ValueError, match="already computed"):
        ema.apply([v])
    with pytest.raises(TypeError, match="half, float, or double"):
        ema.apply([tf.Variable(1, name="int_var")])


def test_values_step_by_step_after_the_training_step():
    v = tf.Variable([1.0, 2.0], name="v")
    step = tf.Variable(0.0, name="step", trainable=False)
    inc = tf.group(tf.assign_add(v, [1.0, -1.0]), tf.assign_add(step, 1.0))
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step)
    with tf.control_dependencies([inc]):
        train = ema.apply([v])
    shadow = ema.average(v)
    ref_v, ref_s = np.array([1.0, 2.0]), np.array([1.0, 2.0])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(shadow), ref_s)  # starts at the variable's value
        for n in range(1, 6):
            s.run(train)
            ref_v = ref_v + [1.0, -1.0]
            # The average runs after inc, so the decay sees the new count n.
            decay = min(0.9, (1.0 + n) / (10.0 + n))
            ref_s = ref_s - (1 - decay) * (ref_s - ref_v)
            np.testing.assert_allclose(s.run(shadow), ref_s, rtol=1e-5)


def test_zero_debiased_average_of_a_tensor():
    t = tf.placeholder(tf.float32, [2])
    ema = tf.train.ExponentialMovingAverage(0.5, zero_debias=True)
    with tf.control_dependencies([tf.identity(t)]):
        # The shadows' initializers must not inherit this dependency on a placeholder.
        op = ema.apply([t])
    avg = ema.average(t)
    biased, ref = np.zeros(2), None
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for n, x in enumerate([[4.0, 2.0], [2.0, 0.0], [0.0, 8.0]], start=1):
            s.run(op, {t: x})
            biased = 0.5 * biased + 0.5 * np.array(x)
            ref = biased / (1 - 0.5 ** n)
            np.testing.assert_allclose(s.run(avg), ref, rtol=1e-5)


def test_variables_to_restore_loads_averages_into_the_model(tmp_path):
    w = tf.Variable([0.0, 0.0], name="w")
    other = tf.Variable(5.0, name="other", trainable=False)
    ema = tf.train.ExponentialMovingAverage(0.5)
    with tf.control_dependencies([tf.assign_add(w, [2.0, 4.0])]):
        train = ema.apply([w])
    mapping = ema.variables_to_restore()
    assert mapping["w/ExponentialMovingAverage"] is w
    assert mapping["other"] is other
    saver = tf.train.Saver()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train)
        s.run(train)   # w: 4, 8; shadow: 0.5 * (0.5 * 0 + 0.5 * 2) + 0.5 * 4 ... below
        path = saver.save(s, os.path.join(str(tmp_path), "m.ckpt"))
    shadow = np.zeros(2)
    for wv in ([2.0, 4.0], [4.0, 8.0]):
        shadow = 0.5 * shadow + 0.5 * np.array(wv)
    tf.reset_default_graph()
    w = tf.Variable([0.0, 0.0], name="w")
    tf.Variable(0.0, name="other", trainable=False)
    ema = tf.train.ExponentialMovingAverage(0.5)
    restorer = tf.train.Saver(ema.variables_to_restore())
    with tf.Session() as s:
        restorer.restore(s, path)
        np.testing.assert_allclose(s.run(w), shadow)


def test_moving_average_optimizer_and_swapping_saver(tmp_path):
    w = tf.Variable([1.0], name="w")
    opt = tf.train.MovingAverageOptimizer(tf.train.GradientDescentOptimizer(0.25),
                                          average_decay=0.5)
    train = opt.minimize(tf.reduce_sum(tf.square(w)))
    saver = opt.swapping_saver()
    ref_w, ref_s = 1.0, 1.0
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            s.run(train)
            ref_w -= 0.25 * 2 * ref_w
            ref_s = 0.5 * ref_s + 0.5 * ref_w
        np.testing.assert_allclose(s.run(w), [ref_w], rtol=1e-6)
        path = saver.save(s, os.path.join(str(tmp_path), "swap.ckpt"))
    # The checkpoint holds the average under the variable's own name.
    np.testing.assert_allclose(tf.train.load_variable(path, "w"), [ref_s], rtol=1e-6)


def test_average_of_a_ps_variable_lives_on_the_ps():
    with local_cluster(ps=1, worker=1) as c:
        setter = tf.train.replica_device_setter(ps_tasks=1,
                                                worker_device="/job:worker/task:0")
        with tf.device(setter):
            w = tf.Variable([2.0, -1.0], name="w")
            loss = tf.reduce_sum(tf.square(w))
            step = tf.train.GradientDescentOptimizer(0.25).minimize(loss)
            ema = tf.train.ExponentialMovingAverage(0.5)
            with tf.control_dependencies([step]):
                train = ema.apply([w])
        assert ema.average(w).device == w.device == "/job:ps/task:0"
        ref_w, ref_s = np.array([2.0, -1.0]), np.array([2.0, -1.0])
        with tf.Session(c.target("worker", 0)) as s:
            s.run(tf.global_variables_initializer())
            for _ in range(3):
                s.run(train)
                ref_w = ref_w - 0.25 * 2 * ref_w
                ref_s = 0.5 * ref_s + 0.5 * ref_w
                np.testing.assert_allclose(s.run(ema.average(w)), ref_s, rtol=1e-6)
        held = {v["name"] for v in c.server("ps", 0).worker.status()["variables"]}
        worker_held = {v["name"] for v in c.server("worker", 0).worker.status()["variables"]}
    assert "w/ExponentialMovingAverage" in held
    assert "w/ExponentialMovingAverage" not in worker_held


def test_tf1_program_with_slim_layers_optimize_loss_and_ema_on_a_cluster():
    from tensorfleet.contrib import slim
    xv = np.random.RandomState(0).rand(8, 4).astype(np.float32)
    yv = (xv.sum(1, keepdims=True) > 2).astype(np.float32)
    with local_cluster(ps=2, worker=1) as c:
        with tf.device(tf.train.replica_device_setter(ps_tasks=2,
                                                      worker_device="/job:worker/task:0")):
            x = tf.placeholder(tf.float32, [None, 4])
            y = tf.placeholder(tf.float32, [None, 1])
            gs = tf.train.get_or_create_global_step()
            with slim.arg_scope([slim.fully_connected], normalizer_fn=slim.batch_norm,
                                weights_regularizer=slim.l2_regularizer(1e-3)):
                h = slim.fully_connected(x, 8, scope="fc1")
            logits = slim.fully_connected(h, 1, activation_fn=None, scope="out")
            loss = tf.losses.sigmoid_cross_entropy(y, logits) + \
                tf.losses.get_regularization_loss()
            train = tf.contrib.layers.optimize_loss(loss, gs, 0.5, "SGD")
            ema = tf.train.ExponentialMovingAverage(0.9, num_updates=gs)
            with tf.control_dependencies([train]):
                train = ema.apply(tf.trainable_variables())
        devices = {v.op.name: v.device for v in tf.global_variables()}
        assert devices["fc1/weights/ExponentialMovingAverage"] == devices["fc1/weights"]
        assert devices["fc1/BatchNorm/moving_mean"].startswith("/job:ps/")
        with tf.Session(c.target("worker", 0)) as s:
            s.run(tf.global_variables_initializer())
            first = s.run(loss, {x: xv, y: yv})
            for _ in range(15):
                s.run(train, {x: xv, y: yv})
            last = s.run(loss, {x: xv, y: yv})
            assert s.run(gs) == 15
            w, avg = s.run([tf.trainable_variables()[0],
                            ema.average(tf.trainable_variables()[0])])
    assert last < first
    assert not np.allclose(w, avg) and np.all(np.isfinite(avg))


def test_sync_replicas_optimizer_applies_the_averages_after_each_step():
    """The seed's recipe: SyncReplicasOptimizer(variable_averages=ema, ...)."""
    import time
    with local_cluster(ps=1, worker=1) as c:
        g = tf.Graph()
        with g.as_default():
            with tf.device("/job:ps/task:0"):
                w = tf.Variable([1.0, -2.0], name="w")
                gs = tf.train.get_or_create_global_step()
            with tf.device("/job:worker/task:0"):
                loss = tf.reduce_sum(tf.square(w))
            ema = tf.train.ExponentialMovingAverage(0.5)
            opt = tf.train.SyncReplicasOptimizer(
                tf.train.GradientDescentOptimizer(0.25), replicas_to_aggregate=1,
                total_num_replicas=1, variable_averages=ema, variables_to_average=[w])
            train = opt.minimize(loss, global_step=gs)
            hook = opt.make_session_run_hook(True, num_tokens=0)
            hook.begin()
            init, local_init = tf.global_variables_initializer(), tf.local_variables_initializer()
        assert ema.average(w).device == "/job:ps/task:0"
        coord = tf.train.Coordinator()
        with tf.Session(c.target("worker", 0), graph=g) as s:
            s.run(init)
            s.run(local_init)
            hook.after_create_session(s, coord)
            s.run(train)
            expected = 0.5 * np.array([1.0, -2.0]) + 0.5 * np.array([0.5, -1.0])
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and \
                    not np.allclose(s.run(ema.average(w)), expected):
                time.sleep(0.02)
            np.testing.assert_allclose(s.run(ema.average(w)), expected, rtol=1e-6)
            np.testing.assert_allclose(s.run(w), [0.5, -1.0], rtol=1e-6)
            hook.end(s)
            coord.request_stop()
            coord.join(stop_grace_period_secs=5)
