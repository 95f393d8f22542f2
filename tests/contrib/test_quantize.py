"""``tf.contrib.quantize``: the training and evaluation rewrites insert fake quantization
of weights and activations that the model's consumers then read."""

import numpy as np
import pytest

import tensorfleet as tf


def _model(seed=0):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    init = tf.random_normal_initializer(stddev=0.5, seed=seed)
    h = tf.layers.dense(x, 4, activation=tf.nn.relu, kernel_initializer=init, name="h")
    out = tf.layers.dense(h, 1, kernel_initializer=init, name="out")
    loss = tf.reduce_mean(tf.square(out - y))
    return x, y, h, out, loss


def _levels(values):
    """The number of distinct values (quantized tensors have few)."""
    return len(np.unique(np.round(values, 6)))


def _np_fake_quant(x, lo, hi, bits, narrow):
    qmin, qmax = (1.0 if narrow else 0.0), 2.0 ** bits - 1
    scale = (hi - lo) / (qmax - qmin)
    zero = np.round(np.clip(qmin - lo / scale, qmin, qmax))
    nmin, nmax = (qmin - zero) * scale, (qmax - zero) * scale
    return np.floor((np.clip(x, nmin, nmax) - nmin) / scale + 0.5) * scale + nmin


def test_training_rewrite_quantizes_weights_and_activations_and_still_trains():
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(16, 3)).astype(np.float32)
    ys = xs.sum(1, keepdims=True)
    with tf.Graph().as_default() as g:
        x, y, h, out, loss = _model()
        tf.contrib.quantize.create_training_graph(quant_delay=0)
        names = [op.name for op in g.get_operations()]
        assert any(n.startswith("h/weights_quant/") for n in names)
        assert any(n.startswith("out/act_quant/") for n in names)
        matmul = g.get_operation_by_name("h/MatMul")
        step = tf.train.AdamOptimizer(0.05).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            kernel = sess.run(g.get_tensor_by_name("h/kernel:0"))
            w_in = sess.run(matmul.inputs[1])
            np.testing.assert_allclose(
                w_in, _np_fake_quant(kernel, min(kernel.min(), 0), max(kernel.max(), 0), 8,
                                     True), atol=1e-6)
            first = sess.run(loss, {x: xs, y: ys})
            for _ in range(30):
                sess.run(step, {x: xs, y: ys})
            assert sess.run(loss, {x: xs, y: ys}) < first
            a_min, a_max = sess.run(["h/act_quant/min:0", "h/act_quant/max:0"])
            assert a_min > -6.0 and a_max < 6.0  # moved towards the activations' range
            # The next layer reads the quantized activation, not the float one.
            assert g.get_operation_by_name("out/MatMul").inputs[0] is not h


def test_eval_rewrite_reads_the_restored_ranges():
    with tf.Graph().as_default() as g:
        x, y, h, out, loss = _model()
        tf.contrib.quantize.create_eval_graph()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign(g.get_tensor_by_name("h/act_quant/max:0"), 0.5))
            hv, h_float = sess.run([g.get_operation_by_name("out/MatMul").inputs[0], h],
                                   {x: np.ones((2, 3), np.float32) * 3})
            np.testing.assert_allclose(hv, _np_fake_quant(h_float, -6.0, 0.5, 8, False),
                                       atol=1e-6)
            assert hv.max() < 0.52
            assert sess.run("h/act_quant/max:0") == 0.5  # not updated


def test_quant_delay_runs_float_until_the_step():
    with tf.Graph().as_default() as g:
        gs = tf.train.get_or_create_global_step()
        x, y, h, out, loss = _model()
        tf.contrib.quantize.create_training_graph(quant_delay=2)
        w_in = g.get_operation_by_name("h/MatMul").inputs[1]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            kernel = sess.run("h/kernel:0")
            np.testing.assert_array_equal(sess.run(w_in), kernel)
            sess.run(tf.assign(gs, 2))
            assert not np.array_equal(sess.run(w_in), kernel)


def test_errors():
    with tf.Graph().as_default():
        _model()
        with pytest.raises(ValueError, match="needs a global step"):
            tf.contrib.quantize.create_training_graph(quant_delay=5)
        with pytest.raises(ValueError, match="freeze_bn_delay"):
            tf.contrib.quantize.experimental_create_training_graph(freeze_bn_delay=3)
    with pytest.raises(TypeError, match="must be a Graph"):
        tf.contrib.quantize.create_eval_graph("graph")


def test_fake_quant_ops_match_tensorflows_values():
    # Values from TensorFlow 2.21's tf.quantization ops on the same inputs.
    x = np.array([-1.3, -0.1, 0.0, 0.37, 0.5, 2.7], np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        args = sess.run(tf.fake_quant_with_min_max_args(x, -1.0, 1.0, 8, False))
        np.testing.assert_allclose(args, [-0.9960785, -0.10196079, 0.0, 0.36862746,
                                          0.5019608, 1.0039216], atol=1e-6)
        xv, lo, hi = tf.constant(x), tf.constant(-0.7), tf.constant(1.3)
        q = tf.fake_quant_with_min_max_vars(xv, lo, hi, 4, True)
        np.testing.assert_allclose(sess.run(q), [-0.71428573, -0.14285715, 0.0, 0.42857146,
                                                 0.5714286, 1.2857144], atol=1e-6)
        gx, glo, ghi = sess.run(tf.gradients(tf.reduce_sum(q), [xv, lo, hi]))
        explicit = sess.run(tf.fake_quant_with_min_max_vars_gradient(
            np.ones(6, np.float32), x, -0.7, 1.3, 4, True))
        assert gx.tolist() == explicit[0].tolist() == [0, 1, 1, 1, 1, 0]
        assert glo == explicit[1] == 1.0 and ghi == explicit[2] == 1.0
        per = sess.run(tf.fake_quant_with_min_max_vars_per_channel(
            x.reshape(2, 3), [-1.0, -0.5, -1.0], [1.0, 1.0, 0.2]))
        np.testing.assert_allclose(per, [[-0.9960785, -0.1, 0.0], [0.36862746, 0.5,
                                                                    0.20235296]], atol=1e-6)
        pg = sess.run(tf.fake_quant_with_min_max_vars_per_channel_gradient(
            np.ones((2, 3), np.float32), x.reshape(2, 3), [-1.0] * 3, [1.0] * 3))
        assert pg[1].tolist() == [1, 0, 0] and pg[2].tolist() == [0, 0, 1]
        ag = sess.run(tf.fake_quant_with_min_max_args_gradient(np.ones(6, np.float32), x,
                                                              -1.0, 1.0))
        assert ag.tolist() == [0, 1, 1, 1, 1, 0]
    with pytest.raises(ValueError, match="num_bits"):
        tf.fake_quant_with_min_max_args(x, num_bits=1)
    with pytest.raises(ValueError, match="must be less than max"):
        tf.fake_quant_with_min_max_args(x, 1.0, -1.0)
