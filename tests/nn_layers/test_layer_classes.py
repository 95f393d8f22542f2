"""tf.layers layer objects (Dense, Conv2D, Conv2DTranspose, pooling, Flatten, Dropout ...)
and the functional conv2d_transpose/conv1d/separable_conv2d: variable names as TF 1.x
makes them, sharing on repeated calls, values against numpy."""

import numpy as np
import pytest

import tensorfleet as tf

RNG = np.random.RandomState(2)


def names(vs):
    return [v.name for v in vs]


def test_dense_names_sharing_and_collections():
    x = tf.placeholder(tf.float32, [None, 4])
    d = tf.layers.Dense(3, activation=tf.nn.relu)
    assert d.name == "dense" and not d.built
    y = d(x)
    assert d.built and y.name == "dense/Relu:0" and y.shape.as_list() == [None, 3]
    assert names(d.variables) == ["dense/kernel:0", "dense/bias:0"]
    assert names(d.trainable_variables) == names(d.weights) == names(d.variables)
    assert d.kernel.get_shape().as_list() == [4, 3] and d.units == 3
    y2 = d(x)
    assert y2.name != y.name and len(tf.global_variables()) == 2
    tf.layers.dense(x, 2)
    tf.layers.Dense(3, name="foo")(x)
    with tf.variable_scope("outer"):
        d3 = tf.layers.Dense(3)
        d3(x)
    assert names(tf.global_variables()) == [
        "dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0",
        "foo/kernel:0", "foo/bias:0", "outer/dense/kernel:0", "outer/dense/bias:0"]
    assert d3.scope_name == "outer/dense"
    frozen = tf.layers.Dense(2, trainable=False, use_bias=False)
    frozen(x)
    assert frozen.trainable_variables == [] and len(frozen.non_trainable_variables) == 1
    assert frozen.variables[0] not in tf.trainable_variables()
    xv = RNG.randn(5, 4).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        k, b, out, out2 = sess.run([d.kernel, d.bias, y, y2], {x: xv})
    np.testing.assert_allclose(out, np.maximum(xv @ k + b, 0), rtol=1e-5)
    np.testing.assert_array_equal(out, out2)


def test_dense_rank3_regularizer_and_errors():
    x = tf.placeholder(tf.float32, [2, None, 4])
    d = tf.layers.Dense(3, kernel_regularizer=lambda w: tf.reduce_sum(w * w))
    y = d(x)
    assert y.shape.as_list() == [2, None, 3]
    assert len(d.losses) == 1
    assert d.losses[0] in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    xv = RNG.randn(2, 5, 4).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, k = sess.run([y, d.kernel], {x: xv})
    np.testing.assert_allclose(out, xv @ k, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="units"):
        tf.layers.Dense(0)
    with pytest.raises(ValueError, match="last dimension"):
        tf.layers.Dense(2)(tf.placeholder(tf.float32, [2, None]))
    with pytest.raises(TypeError, match="unexpected"):
        tf.layers.Dense(2, bogus=1)


def _np_conv_transpose(x, w, stride, padding):
    kh, kw, co, _ = w.shape
    n, h, wd, _ = x.shape
    oh = h * stride if padding == "SAME" else h * stride + max(kh - stride, 0)
    ow = wd * stride if padding == "SAME" else wd * stride + max(kw - stride, 0)
    full = np.zeros((n, (h - 1) * stride + kh, (wd - 1) * stride + kw, co))
    for i in range(h):
        for j in range(wd):
            full[:, i * stride:i * stride + kh, j * stride:j * stride + kw] += np.einsum(
                "nc,abdc->nabd", x[:, i, j], w)
    pt = max((h - 1) * stride + kh - oh, 0) // 2
    pl = max((wd - 1) * stride + kw - ow, 0) // 2
    return full[:, pt:pt + oh, pl:pl + ow]


@pytest.mark.parametrize("padding", ["same", "valid"])
def test_conv2d_transpose_layer_and_function(padding):
    xv = RNG.randn(2, 4, 3, 3).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 4, 3, 3])
    layer = tf.layers.Conv2DTranspose(5, 3, strides=2, padding=padding)
    y = layer(x)
    pad = padding.upper()
    want = [None, 8, 6, 5] if pad == "SAME" else [None, 9, 7, 5]
    assert y.shape.as_list() == want
    assert names(layer.variables) == ["conv2d_transpose/kernel:0", "conv2d_transpose/bias:0"]
    assert layer.kernel.get_shape().as_list() == [3, 3, 5, 3]
    y2 = tf.layers.conv2d_transpose(x, 4, (3, 2), strides=(2, 3), padding=padding,
                                    name="up")
    y3 = tf.layers.conv2d_transpose(x, 4, (3, 2), strides=(2, 3), padding=padding,
                                    name="up", reuse=True)
    assert len(tf.global_variables()) == 4
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(layer.bias, np.arange(5, dtype=np.float32)))
        out, k, o2, o3 = sess.run([y, layer.kernel, y2, y3], {x: xv})
    ref = _np_conv_transpose(xv.astype(np.float64), k, 2, pad) + np.arange(5)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(o2, o3)
    assert o2.shape[1:3] == ((8, 9) if pad == "SAME" else (9, 9))


def test_conv2d_transpose_layer_with_unknown_spatial_dims_trains():
    x = tf.placeholder(tf.float32, [None, None, None, 2])
    y = tf.layers.Conv2DTranspose(1, 2, strides=2, padding="valid")(x)
    assert y.shape.as_list() == [None, None, None, 1]
    loss = tf.reduce_mean(tf.square(y - 1.0))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    xv = RNG.rand(3, 3, 2, 2).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, {x: xv})
        for _ in range(30):
            sess.run(train, {x: xv})
        assert sess.run(y, {x: xv}).shape == (3, 6, 4, 1)
        assert sess.run(loss, {x: xv}) < first / 4


def test_conv_pool_flatten_dropout_objects():
    xv = RNG.randn(2, 6, 6, 3).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 6, 6, 3])
    conv = tf.layers.Conv2D(4, 3, padding="same", activation=tf.nn.relu)
    pool = tf.layers.MaxPooling2D(2, 2)
    avg = tf.layers.AveragePooling2D(3, 3)
    flat = tf.layers.Flatten()
    drop = tf.layers.Dropout(0.5, seed=1)
    h = conv(x)
    p = pool(h)
    f = flat(p)
    assert names(conv.variables) == ["conv2d/kernel:0", "conv2d/bias:0"]
    assert p.name == "max_pooling2d/MaxPool:0" and f.shape.as_list() == [None, 36]
    assert flat.variables == [] and pool.name == "max_pooling2d"
    training = tf.placeholder(tf.bool, [])
    dropped = drop(f, training=training)
    assert drop(f).name.startswith("dropout")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        hv, pv, fv, av = sess.run([h, p, f, avg(x)], {x: xv})
        d_train, d_eval = (sess.run(dropped, {x: xv, training: t}) for t in (True, False))
    np.testing.assert_allclose(pv, hv.reshape(2, 3, 2, 3, 2, 4).max(axis=(2, 4)))
    np.testing.assert_allclose(av, xv.reshape(2, 2, 3, 2, 3, 3).mean(axis=(2, 4)),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(fv, pv.reshape(2, -1))
    np.testing.assert_array_equal(d_eval, fv)
    kept = d_train != 0
    np.testing.assert_allclose(d_train[kept], 2 * fv[kept], rtol=1e-6)
    with pytest.raises(ValueError, match="rate"):
        tf.layers.Dropout(1.0)
    with pytest.raises(ValueError, match="channels_last"):
        tf.layers.Conv2D(2, 3, data_format="channels_first")
    with pytest.raises(ValueError, match="rank 4"):
        tf.layers.Conv2D(2, 3)(tf.placeholder(tf.float32, [2, 3, 3]))


def test_conv1d_and_separable_conv2d_layers():
    x1 = tf.placeholder(tf.float32, [2, 7, 3])
    c1 = tf.layers.Conv1D(4, 3, strides=2, padding="same")
    y1 = c1(x1)
    assert y1.shape.as_list() == [2, 4, 4]
    assert names(c1.variables) == ["conv1d/kernel:0", "conv1d/bias:0"]
    assert c1.kernel.get_shape().as_list() == [3, 3, 4]
    x2 = tf.placeholder(tf.float32, [2, 5, 5, 3])
    y2 = tf.layers.separable_conv2d(x2, 6, 3, depth_multiplier=2)
    assert y2.shape.as_list() == [2, 3, 3, 6]
    assert names(tf.global_variables())[2:] == [
        "separable_conv2d/depthwise_kernel:0", "separable_conv2d/pointwise_kernel:0",
        "separable_conv2d/bias:0"]
    y3 = tf.layers.conv1d(x1, 2, 2, name="c")
    xv1, xv2 = RNG.randn(2, 7, 3), RNG.randn(2, 5, 5, 3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out1, k1, out3 = sess.run([y1, c1.kernel, y3], {x1: xv1})
        assert sess.run(y2, {x2: xv2}).shape == (2, 3, 3, 6)
    xp = np.pad(xv1, [(0, 0), (1, 1), (0, 0)])
    ref = np.stack([np.einsum("nkc,kco->no", xp[:, 2 * i:2 * i + 3], k1) for i in range(4)], 1)
    np.testing.assert_allclose(out1, ref, rtol=1e-4, atol=1e-5)
    assert out3.shape == (2, 6, 2)


def test_base_layer_passes_inputs_through_and_apply():
    layer = tf.layers.Layer(name="plain")
    x = tf.constant([1.0, 2.0])
    assert layer(x) is x and layer.variables == [] and layer.name == "plain"
    d = tf.layers.Dense(1)
    assert d.apply(tf.zeros([1, 2])).shape.as_list() == [1, 1]


def test_conv3d_and_1d_3d_pooling_layers():
    x5 = tf.placeholder(tf.float32, [2, 4, 4, 4, 2])
    c3 = tf.layers.Conv3D(3, 2, strides=2)
    y = c3(x5)
    assert y.shape.as_list() == [2, 2, 2, 2, 3]
    assert names(c3.variables) == ["conv3d/kernel:0", "conv3d/bias:0"]
    assert c3.kernel.get_shape().as_list() == [2, 2, 2, 2, 3]
    tf.layers.conv3d(x5, 1, 3, padding="same")
    assert "conv3d_1/kernel:0" in names(tf.global_variables())
    xv5 = RNG.randn(2, 4, 4, 4, 2).astype(np.float32)
    x3 = tf.placeholder(tf.float32, [2, 6, 3])
    xv3 = RNG.randn(2, 6, 3).astype(np.float32)
    p1 = tf.layers.max_pooling1d(x3, 2, 2)
    a1 = tf.layers.AveragePooling1D(3, 3)(x3)
    p3 = tf.layers.MaxPooling3D(2, 2)(x5)
    a3 = tf.layers.average_pooling3d(x5, 2, 2)
    assert p1.shape.as_list() == [2, 3, 3] and p3.shape.as_list() == [2, 2, 2, 2, 2]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, k, b = sess.run([y, c3.kernel, c3.bias], {x5: xv5})
        vp1, va1, vp3, va3 = sess.run([p1, a1, p3, a3], {x3: xv3, x5: xv5})
    ref = np.einsum("nadbhcwx,dhwxo->nabco",
                    xv5.reshape(2, 2, 2, 2, 2, 2, 2, 2).astype(np.float64), k) + b
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(vp1, xv3.reshape(2, 3, 2, 3).max(2))
    np.testing.assert_allclose(va1, xv3.reshape(2, 2, 3, 3).mean(2), rtol=1e-5, atol=1e-6)
    blocks = xv5.reshape(2, 2, 2, 2, 2, 2, 2, 2)
    np.testing.assert_allclose(vp3, blocks.max(axis=(2, 4, 6)))
    np.testing.assert_allclose(va3, blocks.mean(axis=(2, 4, 6)), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="rank 3"):
        tf.layers.MaxPooling1D(2, 2)(x5)


def test_batch_normalization_layer_matches_numpy_and_updates_moving_stats():
    x = tf.placeholder(tf.float64, [None, 3, 4])
    training = tf.placeholder(tf.bool, [])
    bn = tf.layers.BatchNormalization(axis=1, momentum=0.5)
    y = bn(x, training=training)
    assert names(bn.trainable_variables) == ["batch_normalization/gamma:0",
                                             "batch_normalization/beta:0"]
    assert names(bn.non_trainable_variables) == ["batch_normalization/moving_mean:0",
                                                 "batch_normalization/moving_variance:0"]
    assert len(bn.updates) == 2
    assert set(bn.updates) <= set(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
    y_eval = bn(x)
    xv = RNG.randn(5, 3, 4) * 2 + 1
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(bn.gamma, [1.0, 2.0, 3.0]))
        out, _ = sess.run([y, bn.updates], {x: xv, training: True})
        mm, mv = sess.run([bn.moving_mean, bn.moving_variance])
        ev = sess.run(y_eval, {x: xv})
    mean, var = xv.mean(axis=(0, 2)), xv.var(axis=(0, 2))
    ref = (xv - mean[:, None]) / np.sqrt(var[:, None] + 1e-3) * np.array([1, 2, 3.0])[:, None]
    np.testing.assert_allclose(out, ref, rtol=1e-10)
    np.testing.assert_allclose(mm, 0.5 * mean)
    np.testing.assert_allclose(mv, 0.5 + 0.5 * var)
    np.testing.assert_allclose(ev, (xv - mm[:, None]) / np.sqrt(mv[:, None] + 1e-3)
                               * np.array([1, 2, 3.0])[:, None], rtol=1e-10)
    # The functional form gives the same result on the same statistics.
    fy = tf.layers.batch_normalization(x, axis=1, training=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(fy, {x: xv}), (xv - mean[:, None]) / np.sqrt(
            var[:, None] + 1e-3), rtol=1e-10)
    with pytest.raises(ValueError, match="renorm"):
        tf.layers.BatchNormalization(renorm=True)
