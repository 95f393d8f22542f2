"""tf.contrib.opt.AdamWOptimizer / MomentumWOptimizer (against a numpy AdamW),
MovingAverageOptimizer under contrib.opt, tf.train.maybe_batch family,
noisy_linear_cosine_decay statistics, and the contrib.framework / contrib.learn additions."""

import numpy as np
import pytest

import tensorfleet as tf


def _numpy_adamw(var, grads, wd, lr, b1=0.9, b2=0.999, eps=1e-8):
    m = np.zeros_like(var)
    v = np.zeros_like(var)
    for t, g in enumerate(grads, start=1):
        var = var - wd * var
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        var = var - lr_t * m / (np.sqrt(v) + eps)
    return var


def test_adamw_dense_matches_numpy_and_decay_var_list():
    v0, w0 = np.array([1.0, -2.0, 3.0]), np.array([0.5, 4.0])
    v = tf.Variable(v0, dtype=tf.float64)
    w = tf.Variable(w0, dtype=tf.float64)
    loss = tf.reduce_sum(v * v) + tf.reduce_sum(w)
    opt = tf.contrib.opt.AdamWOptimizer(0.05, learning_rate=0.1)
    step = opt.minimize(loss, decay_var_list=[v])
    names = sorted(x.op.name for x in tf.global_variables())
    assert "Variable/AdamW" in names and "Variable/AdamW_1" in names
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        gv = []
        for _ in range(3):
            gv.append(2 * sess.run(v))
            sess.run(step)
        got_v, got_w = sess.run([v, w])
    np.testing.assert_allclose(got_v, _numpy_adamw(v0, gv, 0.05, 0.1), rtol=1e-5)
    np.testing.assert_allclose(got_w, _numpy_adamw(w0, [np.ones(2)] * 3, 0.0, 0.1), rtol=1e-5)


def test_adamw_sparse_decays_only_touched_rows():
    table0 = np.arange(8, dtype=np.float64).reshape(4, 2) + 1
    table = tf.Variable(table0)
    rows = tf.nn.embedding_lookup(table, [2, 0, 2])
    loss = tf.reduce_sum(rows)
    grads = tf.gradients(loss, [table])
    assert isinstance(grads[0], tf.IndexedSlices)
    opt = tf.contrib.opt.AdamWOptimizer(0.1, learning_rate=0.01)
    step = opt.apply_gradients([(grads[0], table)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step)
        got = sess.run(table)
    dense_grad = np.zeros_like(table0)
    dense_grad[0] = 1
    dense_grad[2] = 2
    want = table0.copy()
    for r in (0, 2):
        want[r] = _numpy_adamw(table0[r], [dense_grad[r]], 0.1, 0.01)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    np.testing.assert_array_equal(got[[1, 3]], table0[[1, 3]])


def test_momentumw_and_extend_with_decay():
    v = tf.Variable([2.0], dtype=tf.float64)
    opt = tf.contrib.opt.MomentumWOptimizer(0.5, learning_rate=0.1, momentum=0.9)
    step = opt.minimize(tf.reduce_sum(3.0 * v))
    SGDW = tf.contrib.opt.extend_with_decoupled_weight_decay(tf.train.GradientDescentOptimizer)
    u = tf.Variable([2.0], dtype=tf.float64)
    step2 = SGDW(0.25, learning_rate=0.1).minimize(tf.reduce_sum(u))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([step, step2])
        # v: 2 - 0.5*2 = 1, then momentum step 0.1*3 -> 0.7; u: 2*0.75 - 0.1 = 1.4
        np.testing.assert_allclose(sess.run(v), [0.7])
        np.testing.assert_allclose(sess.run(u), [1.4])
    with pytest.raises(TypeError, match="Optimizer class"):
        tf.contrib.opt.extend_with_decoupled_weight_decay(int)


def test_contrib_opt_moving_average_optimizer_is_trains_and_swaps():
    assert tf.contrib.opt.MovingAverageOptimizer is tf.train.MovingAverageOptimizer
    v = tf.Variable(1.0)
    opt = tf.contrib.opt.MovingAverageOptimizer(tf.train.GradientDescentOptimizer(0.5),
                                                average_decay=0.5)
    step = opt.minimize(v * 1.0)
    saver = opt.swapping_saver()
    assert saver is not None
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step)
        assert sess.run(v) == pytest.approx(0.5)


def test_maybe_batch_keeps_only_selected_elements():
    x = tf.train.range_input_producer(10, shuffle=False).dequeue()
    b = tf.train.maybe_batch([x], tf.equal(x % 2, 0), 3)
    v = tf.constant([[1, 2], [3, 4], [5, 6]])
    b2 = tf.train.maybe_batch({"v": v}, tf.constant([True, False, True]), 2, enqueue_many=True)
    sb = tf.train.maybe_shuffle_batch([tf.constant([7, 8, 9])], 2, 10, 0,
                                      tf.constant([False, True, True]), enqueue_many=True,
                                      seed=3)
    assert b2["v"].shape.as_list() == [2, 2]
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert sess.run(b)[0].tolist() == [0, 2, 4]
        assert sess.run(b)[0].tolist() == [6, 8, 0]
        assert sess.run(b2)["v"].tolist() == [[1, 2], [5, 6]]
        assert set(sess.run(sb)[0].tolist()) <= {8, 9}
        coord.request_stop()
        coord.join(threads)
    with pytest.raises(ValueError, match="scalar"):
        tf.train.maybe_batch([x], tf.constant([True, False]), 2)


def test_noisy_linear_cosine_decay_statistics():
    tf.set_random_seed(7)
    gs = tf.placeholder(tf.int64, [])
    lr = tf.train.noisy_linear_cosine_decay(1.0, gs, 100, initial_variance=1.0,
                                            variance_decay=0.55)
    std = 0.5 * np.sqrt(1.0 / 51 ** 0.55)
    with tf.Session() as sess:
        vals = np.array([sess.run(lr, {gs: 50}) for _ in range(2000)])
        end = sess.run(lr, {gs: 500})  # past decay_steps: cosine factor 0
    # (0.5 + noise) * 0.5 + 0.001: mean 0.251, sd 0.5 * sqrt(variance)
    assert abs(vals.mean() - 0.251) < 4 * std / np.sqrt(2000)
    assert abs(vals.std() - std) < 0.1 * std
    assert end == pytest.approx(0.001)
    with pytest.raises(ValueError, match="global_step"):
        tf.train.noisy_linear_cosine_decay(1.0, None, 10)


def test_contrib_framework_and_learn_additions(tmp_path):
    with tf.name_scope("outer"):
        with tf.name_scope("inner"):
            assert tf.contrib.framework.get_name_scope() == "outer/inner"
    v = tf.Variable([[1.0, 2.0]], name="v")
    v2 = tf.Variable(1.0, name="v2")
    op, feed = tf.contrib.framework.assign_from_values({"v": [3.0, 4.0], "v2": 5.0})
    fn = tf.contrib.framework.assign_from_values_fn({"v2": 6.0})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(op, feed)
        got = sess.run([v, v2])
        fn(sess)
        assert sess.run(v2) == 6.0
    assert got[0].tolist() == [[3.0, 4.0]] and got[1] == 5.0
    with pytest.raises(ValueError, match="wasn't found"):
        tf.contrib.framework.assign_from_values({"nope": 1.0})
    assert tf.contrib.framework.init_from_checkpoint is tf.train.init_from_checkpoint
    assert tf.contrib.learn.RunConfig is tf.estimator.RunConfig


def test_slim_prefetch_queue_and_create_global_step():
    slim = tf.contrib.slim
    i = tf.train.range_input_producer(5, shuffle=False).dequeue()
    q = slim.prefetch_queue.prefetch_queue({"a": i, "b": i * 2}, capacity=4, num_threads=1)
    batch = q.dequeue()
    summaries = [s.op.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)]
    assert any(n.startswith("prefetch_queue/fraction_of_4_full") for n in summaries)
    gs = slim.create_global_step()
    assert gs.op.name == "global_step"
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        got = [sess.run(batch) for _ in range(3)]
        coord.request_stop()
        coord.join(threads)
    assert [(int(g["a"]), int(g["b"])) for g in got] == [(0, 0), (1, 2), (2, 4)]
    with pytest.raises(ValueError, match="capacity"):
        slim.prefetch_queue.prefetch_queue([i], capacity=0)
