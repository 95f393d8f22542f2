"""tf.contrib.layers: names and values of the layers, regularizers, initializers,
summaries and optimize_loss, against numpy references."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.contrib import layers
from tensorfleet.contrib.framework import arg_scope

RNG = np.random.RandomState(7)


def _run(fetches, feed=None):
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(tf.local_variables_initializer())
        return s.run(fetches, feed)


def _names(coll=tf.GraphKeys.GLOBAL_VARIABLES):
    return [v.op.name for v in tf.get_collection(coll)]


def _conv_ref(x, w, stride, pad):
    kh, kw = w.shape[:2]
    if pad == "SAME":
        oh, ow = -(-x.shape[1] // stride), -(-x.shape[2] // stride)
        ph = max((oh - 1) * stride + kh - x.shape[1], 0)
        pw = max((ow - 1) * stride + kw - x.shape[2], 0)
        x = np.pad(x, [(0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)])
    oh = (x.shape[1] - kh) // stride + 1
    ow = (x.shape[2] - kw) // stride + 1
    out = np.zeros([x.shape[0], oh, ow, w.shape[3]])
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            out[:, i, j, :] = np.tensordot(patch, w, axes=([1, 2, 3], [0, 1, 2]))
    return out


def test_variable_names_and_collections_match_tf1():
    x = tf.placeholder(tf.float32, [None, 6, 6, 3])
    h = layers.conv2d(x, 4, 3)
    h = layers.conv2d(h, 4, 3, normalizer_fn=layers.batch_norm,
                      normalizer_params={"scale": True})
    t = layers.conv2d_transpose(h, 2, 3)
    f = layers.fully_connected(layers.flatten(h), 5)
    layers.fully_connected(f, 2, scope="logits")
    layers.layer_norm(f)
    layers.stack(f, layers.fully_connected, [3, 4])
    layers.repeat(x, 2, layers.conv2d, 3, [3, 3], scope="conv1")
    layers.embed_sequence(tf.constant([[1, 2]]), vocab_size=5, embed_dim=3)
    assert _names() == [
        "Conv/weights", "Conv/biases", "Conv_1/weights", "Conv_1/BatchNorm/beta",
        "Conv_1/BatchNorm/gamma", "Conv_1/BatchNorm/moving_mean",
        "Conv_1/BatchNorm/moving_variance", "Conv2d_transpose/weights",
        "Conv2d_transpose/biases", "fully_connected/weights", "fully_connected/biases",
        "logits/weights", "logits/biases", "LayerNorm/beta", "LayerNorm/gamma",
        "Stack/fully_connected_1/weights", "Stack/fully_connected_1/biases",
        "Stack/fully_connected_2/weights", "Stack/fully_connected_2/biases",
        "conv1/conv1_1/weights", "conv1/conv1_1/biases", "conv1/conv1_2/weights",
        "conv1/conv1_2/biases", "EmbedSequence/embeddings"]
    assert _names(tf.GraphKeys.MODEL_VARIABLES) == _names()
    trainable = set(_names(tf.GraphKeys.TRAINABLE_VARIABLES))
    assert "Conv_1/BatchNorm/moving_mean" not in trainable
    assert "Conv_1/BatchNorm/gamma" in trainable
    assert t.shape.as_list() == [None, 6, 6, 2]
    w = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)[0]
    assert w.shape.as_list() == [3, 3, 3, 4]


def test_fully_connected_and_conv2d_values():
    xv = RNG.rand(2, 5, 5, 3).astype(np.float32)
    x = tf.constant(xv)
    c = layers.conv2d(x, 4, [3, 2], stride=2, padding="SAME",
                      biases_initializer=tf.constant_initializer(0.5))
    flat = layers.flatten(c)
    y = layers.fully_connected(flat, 3, activation_fn=None)
    y3 = layers.fully_connected(tf.constant(RNG.rand(2, 4, 3).astype(np.float32)), 2,
                                activation_fn=tf.nn.relu, scope="seq")
    mv = tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)
    cw, fw, fb, cv, yv, y3v = _run([mv[0], mv[2], mv[3], c, y, y3])
    ref_c = np.maximum(_conv_ref(xv, cw, 2, "SAME") + 0.5, 0)
    np.testing.assert_allclose(cv, ref_c, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(yv, cv.reshape(2, -1) @ fw + fb, rtol=1e-5, atol=1e-5)
    assert y3v.shape == (2, 4, 2) and (y3v >= 0).all()


def test_conv2d_transpose_values():
    xv = RNG.rand(1, 3, 3, 2).astype(np.float32)
    y = layers.conv2d_transpose(tf.constant(xv), 3, 2, stride=2, activation_fn=None)
    w = tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)[0]
    yv, wv = _run([y, w])
    ref = np.zeros([1, 6, 6, 3])
    for i in range(3):
        for j in range(3):
            ref[0, 2 * i:2 * i + 2, 2 * j:2 * j + 2, :] += np.einsum("c,aboc->abo", xv[0, i, j], wv)
    np.testing.assert_allclose(yv, ref, rtol=1e-5, atol=1e-5)


def _bn_ref(x, axes, eps=1e-3):
    m, v = x.mean(axes), x.var(axes)
    return (x - m) / np.sqrt(v + eps), m, v


@pytest.mark.parametrize("shape", [(4, 3, 3, 2), (5, 3, 2)])
def test_batch_norm_training_updates_moving_averages(shape):
    xv = RNG.rand(*shape).astype(np.float32) * 3
    x = tf.constant(xv)
    y = layers.batch_norm(x, decay=0.9, scale=True, is_training=True)
    mm, mv = [v for v in tf.global_variables() if "moving" in v.name]
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.identity(y)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        yv = s.run(train)
        mmv, mvv = s.run([mm, mv])
    axes = tuple(range(len(shape) - 1))
    ref, m, v = _bn_ref(xv, axes)
    np.testing.assert_allclose(yv, ref, rtol=1e-4, atol=1e-4)
    n = np.prod([shape[a] for a in axes])
    # Rank 4 inputs feed the moving variance the Bessel-corrected variance (TF's
    # fused kernel); rank 3 inputs the plain batch variance.
    fed = v * n / (n - 1) if len(shape) == 4 else v
    np.testing.assert_allclose(mmv, 0.1 * m, rtol=1e-5)
    np.testing.assert_allclose(mvv, 0.9 + 0.1 * fed, rtol=1e-5)


def test_batch_norm_inference_and_inline_updates():
    xv = RNG.rand(6, 3).astype(np.float32)
    x = tf.constant(xv)
    is_training = tf.placeholder(tf.bool, [])
    y = layers.batch_norm(x, decay=0.5, center=True, is_training=is_training,
                          updates_collections=None,
                          param_initializers={"beta": tf.constant_initializer(0.25)})
    assert not tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    mm, mv = [v for v in tf.global_variables() if "moving" in v.name]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        infer = s.run(y, {is_training: False})
        np.testing.assert_allclose(infer, xv / np.sqrt(1 + 1e-3) + 0.25, rtol=1e-5)
        assert np.allclose(s.run(mm), 0)  # not training: no update
        train = s.run(y, {is_training: True})
        ref, m, v = _bn_ref(xv, (0,))
        np.testing.assert_allclose(train, ref + 0.25, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(s.run(mm), 0.5 * m, rtol=1e-5)
        np.testing.assert_allclose(s.run(mv), 0.5 + 0.5 * v * 6 / 5, rtol=1e-5)


def test_batch_norm_rejects_unsupported_options():
    x = tf.zeros([2, 3])
    with pytest.raises(ValueError, match="renorm"):
        layers.batch_norm(x, renorm=True)
    with pytest.raises(ValueError, match="zero_debias"):
        layers.batch_norm(x, zero_debias_moving_mean=True)


def test_layer_norm_values():
    xv = RNG.rand(3, 4, 5).astype(np.float32)
    y = layers.layer_norm(tf.constant(xv), begin_norm_axis=1)
    m = xv.mean((1, 2), keepdims=True)
    v = xv.var((1, 2), keepdims=True)
    np.testing.assert_allclose(_run(y), (xv - m) / np.sqrt(v + 1e-12), rtol=1e-4, atol=1e-4)
    beta = tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)[0]
    assert beta.shape.as_list() == [5]


def test_regularizers_values_and_collection():
    wv = np.array([[1.0, -2.0], [3.0, -4.0]], np.float32)
    w = tf.constant(wv)
    l1, l2 = layers.l1_regularizer(0.5)(w), layers.l2_regularizer(0.25)(w)
    l12 = layers.l1_l2_regularizer(0.5, 0.25)(w)
    summed = layers.sum_regularizer([layers.l1_regularizer(1.0), None])(w)
    assert layers.l2_regularizer(0.0)(w) is None
    with pytest.raises(ValueError):
        layers.l1_regularizer(-1.0)
    with pytest.raises(TypeError):
        layers.l2_regularizer("big")
    with pytest.raises(ValueError, match="integer"):
        layers.l2_regularizer(1)
    only_l2 = layers.l1_l2_regularizer(0.0, 0.25)(w)
    x = tf.constant(np.ones([1, 2], np.float32))
    layers.fully_connected(x, 2, weights_regularizer=layers.l2_regularizer(0.1),
                           weights_initializer=tf.constant_initializer(2.0))
    reg = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert len(reg) == 1
    penalty = layers.apply_regularization(layers.l1_regularizer(1.0), [w])
    assert len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == 2
    out = _run([l1, l2, l12, summed, reg[0], penalty, only_l2])
    np.testing.assert_allclose(out, [5.0, 0.25 * 15.0, 5.0 + 3.75, 10.0, 0.1 * 8.0, 10.0,
                                     3.75], rtol=1e-6)
    with pytest.raises(ValueError, match="No weights"):
        layers.apply_regularization(layers.l1_regularizer(1.0))


def test_initializers_spread():
    tf.set_random_seed(3)
    xu = tf.get_variable("u", [200, 300], initializer=layers.xavier_initializer())
    he = tf.get_variable("he", [3, 3, 64, 200],
                         initializer=layers.variance_scaling_initializer())
    xn = tf.get_variable("n", [400, 100], initializer=layers.xavier_initializer(uniform=False))
    u, h, n = _run([xu, he, xn])
    limit = np.sqrt(6.0 / 500)
    assert np.abs(u).max() <= limit and np.abs(u).max() > 0.98 * limit
    # Truncated at 2 stddev, the spread is 0.8796 of the untruncated one.
    np.testing.assert_allclose(h.std(), np.sqrt(1.3 * 2.0 / (9 * 64)) * 0.8796, rtol=0.03)
    np.testing.assert_allclose(n.std(), np.sqrt(1.3 / 250) * 0.8796, rtol=0.03)
    with pytest.raises(TypeError):
        layers.variance_scaling_initializer(mode="FAN_SUM")


def test_arg_scope_sets_defaults():
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    with arg_scope([layers.conv2d, layers.fully_connected], activation_fn=None,
                   weights_initializer=tf.ones_initializer()):
        with arg_scope([layers.conv2d], padding="VALID") as sc:
            a = layers.conv2d(x, 2, 3)
            b = layers.conv2d(x, 2, 3, padding="SAME")
        f = layers.fully_connected(tf.ones([1, 2]), 1)
    with arg_scope(sc):
        c = layers.conv2d(x, 2, 3)
    d = layers.conv2d(x, 2, 3)
    assert a.shape.as_list() == [None, 6, 6, 2] and b.shape.as_list() == [None, 8, 8, 2]
    assert c.shape.as_list() == [None, 6, 6, 2] and d.shape.as_list() == [None, 8, 8, 2]
    assert f.op.type != "Relu" and d.op.type == "Relu"
    assert _run(f)[0, 0] == 2.0
    with pytest.raises(ValueError, match="add_arg_scope"):
        with arg_scope([tf.nn.relu], name="x"):
            pass


def test_pools_flatten_dropout_one_hot():
    xv = RNG.rand(2, 4, 4, 1).astype(np.float32)
    x = tf.constant(xv)
    mp, ap = layers.max_pool2d(x, 2), layers.avg_pool2d(x, [2, 2], stride=2)
    assert mp.op.name.startswith("MaxPool2D")
    fl = layers.flatten(x)
    ident = layers.dropout(x, 0.5, is_training=False)
    dropped = layers.dropout(tf.ones([1000]), 0.8)
    oh = layers.one_hot_encoding(tf.constant([0, 2]), 3)
    mpv, apv, flv, idv, dv, ohv = _run([mp, ap, fl, ident, dropped, oh])
    blocks = xv.reshape(2, 2, 2, 2, 2, 1)
    np.testing.assert_allclose(mpv, blocks.max((2, 4)), rtol=1e-6)
    np.testing.assert_allclose(apv, blocks.mean((2, 4)), rtol=1e-6)
    np.testing.assert_allclose(flv, xv.reshape(2, 16))
    np.testing.assert_allclose(idv, xv)
    assert set(np.round(np.unique(dv), 4)) <= {0.0, 1.25} and 0.7 < (dv > 0).mean() < 0.9
    np.testing.assert_allclose(ohv, [[1, 0, 0], [0, 0, 1]])
    with pytest.raises(ValueError):
        layers.flatten(tf.ones([3]))


def test_embed_sequence_values():
    ids = tf.constant([[1, 3, 1], [0, 3, 2]])
    e = layers.embed_sequence(ids, vocab_size=4, embed_dim=2)
    eu = layers.embed_sequence(ids, scope="EmbedSequence", reuse=True, unique=True)
    table = tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)[0]
    ev, euv, tv = _run([e, eu, table])
    np.testing.assert_allclose(ev, tv[[[1, 3, 1], [0, 3, 2]]])
    np.testing.assert_allclose(euv, ev)
    with pytest.raises(ValueError):
        layers.embed_sequence(ids)


def test_summaries():
    h = tf.nn.relu(tf.constant([-1.0, 2.0, 0.0, 3.0]), name="act")
    layers.summarize_activation(h)
    layers.summarize_tensor(tf.constant(3.0, name="scalar_t"))
    tf.get_variable("sv", [2])
    layers.summarize_variables()
    tags = [s.op.get_attr("tag") if hasattr(s.op, "get_attr") else s.op.attrs["tag"]
            for s in tf.get_collection(tf.GraphKeys.SUMMARIES)]
    assert tags[:2] == ["act/zeros", "act/activation"]
    assert "scalar_t" in tags[2] and any("sv" in t for t in tags[3:])
    merged = _run(tf.summary.merge_all())
    assert isinstance(merged, bytes) and b"act/zeros" in merged


def test_optimize_loss_sgd_step_and_updates():
    w = tf.get_variable("w", [2], initializer=tf.constant_initializer([1.0, -2.0]))
    x = tf.constant(RNG.rand(4, 2).astype(np.float32))
    bn = layers.batch_norm(x, decay=0.5)
    loss = tf.reduce_sum(tf.square(w)) + 0.0 * tf.reduce_sum(bn)
    gs = tf.train.get_or_create_global_step()
    train = layers.optimize_loss(loss, gs, 0.1, "SGD", variables=[w])
    mm = [v for v in tf.global_variables() if "moving_mean" in v.name][0]
    assert "OptimizeLoss/learning_rate" in _names()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        lv = s.run(train)
        np.testing.assert_allclose(lv, 5.0, rtol=1e-6)
        np.testing.assert_allclose(s.run(w), [0.8, -1.6], rtol=1e-6)
        assert s.run(gs) == 1
        assert np.abs(s.run(mm)).sum() > 0  # the batch-norm update ran with the step
    summary_names = [t.op.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)]
    assert any("loss" in n for n in summary_names)
    assert any("learning_rate" in n for n in summary_names)


def test_optimize_loss_clipping_and_optimizer_forms():
    w = tf.get_variable("w", [2], initializer=tf.constant_initializer([3.0, 4.0]))
    loss = 0.5 * tf.reduce_sum(tf.square(w))
    gs = tf.train.get_or_create_global_step()
    clipped = layers.optimize_loss(loss, gs, 1.0, tf.train.GradientDescentOptimizer,
                                   clip_gradients=1.0, name="clip")
    inst = layers.optimize_loss(loss, gs, None, tf.train.GradientDescentOptimizer(0.5),
                                increment_global_step=False, name="inst")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(clipped)
        # Gradient (3, 4) has norm 5, clipped to norm 1.
        np.testing.assert_allclose(s.run(w), [3 - 0.6, 4 - 0.8], rtol=1e-6)
        s.run(inst)
        np.testing.assert_allclose(s.run(w), [2.4 * 0.5, 3.2 * 0.5], rtol=1e-6)
        assert s.run(gs) == 1
    with pytest.raises(ValueError, match="Optimizer name"):
        layers.optimize_loss(loss, gs, 0.1, "Nope")
    with pytest.raises(ValueError, match="Learning rate is None"):
        layers.optimize_loss(loss, gs, None, "SGD")


def test_separable_conv2d_softmax_bias_add_unit_norm():
    xv = RNG.rand(1, 4, 4, 2).astype(np.float32)
    x = tf.constant(xv)
    y = layers.separable_conv2d(x, 3, 3, depth_multiplier=2, activation_fn=None)
    d = layers.separable_conv2d(x, None, [1, 1], depth_multiplier=1, activation_fn=None,
                                scope="dw")
    assert _names()[:3] == ["SeparableConv2d/depthwise_weights",
                            "SeparableConv2d/pointwise_weights", "SeparableConv2d/biases"]
    dw, pw = tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)[:2]
    dw1 = tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)[3]
    logits = np.array([[[1.0, 2.0, 3.0]], [[0.0, 0.0, 0.0]]], np.float32)
    sm = layers.softmax(tf.constant(logits))
    ba = layers.bias_add(tf.ones([2, 3]), initializer=tf.constant_initializer([1.0, 2.0, 3.0]))
    un = layers.unit_norm(tf.constant([[3.0, 4.0]]), dim=1, epsilon=0.0)
    yv, dv, dwv, pwv, dw1v, smv, bav, unv = _run([y, d, dw, pw, dw1, sm, ba, un])
    assert dwv.shape == (3, 3, 2, 2) and pwv.shape == (1, 1, 4, 3)
    # Depthwise channels are ordered channel-major (c * multiplier + m).
    mid = np.concatenate([_conv_ref(xv[..., c:c + 1], dwv[:, :, c:c + 1, :], 1, "SAME")
                          for c in range(2)], axis=3)
    np.testing.assert_allclose(yv, np.tensordot(mid, pwv[0, 0], 1), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(dv, xv * dw1v[0, 0, :, 0], rtol=1e-5)
    e = np.exp(logits - logits.max(-1, keepdims=True))
    np.testing.assert_allclose(smv, e / e.sum(-1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(bav, [[2.0, 3.0, 4.0]] * 2)
    np.testing.assert_allclose(unv, [[0.6, 0.8]], rtol=1e-6)
