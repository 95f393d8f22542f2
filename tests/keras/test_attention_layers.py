"""Keras Dot, Attention, AdditiveAttention, MultiHeadAttention and EinsumDense against
numpy; a training step of MultiHeadAttention."""

import numpy as np
import pytest

import tensorfleet as tf

keras = tf.keras
K = keras.backend


@pytest.fixture(autouse=True)
def _keras_session():
    yield
    K.clear_session()


def _softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_dot_layer_and_batch_dot():
    rng = np.random.RandomState(0)
    a, b = rng.randn(3, 4, 5).astype(np.float32), rng.randn(3, 6, 5).astype(np.float32)
    qa, qb = keras.Input(shape=(4, 5)), keras.Input(shape=(6, 5))
    y = keras.layers.Dot(axes=2)([qa, qb])
    n = keras.layers.dot([qa, qa], axes=(2, 2), normalize=True)
    out, nv = K.get_session().run([y, n], {qa: a, qb: b})
    np.testing.assert_allclose(out, np.einsum("bid,bjd->bij", a, b), rtol=1e-5, atol=1e-5)
    an = a / np.linalg.norm(a, axis=2, keepdims=True)
    np.testing.assert_allclose(nv, np.einsum("bid,bjd->bij", an, an), rtol=1e-5, atol=1e-5)
    v1, v2 = rng.randn(3, 4).astype(np.float32), rng.randn(3, 4).astype(np.float32)
    np.testing.assert_allclose(K.eval(K.batch_dot(v1, v2, axes=1)),
                               (v1 * v2).sum(1, keepdims=True), rtol=1e-5)


def test_attention_and_additive_attention_with_causal_mask():
    rng = np.random.RandomState(1)
    q, v = rng.randn(2, 3, 4).astype(np.float32), rng.randn(2, 5, 4).astype(np.float32)
    qi, vi = keras.Input(shape=(3, 4)), keras.Input(shape=(5, 4))
    att = keras.layers.Attention(use_scale=True)
    out, w = att([qi, vi], return_attention_scores=True)
    causal = att([qi, vi], use_causal_mask=True)
    add = keras.layers.AdditiveAttention()
    a_out = add([qi, vi])
    sess = K.get_session()
    K.set_value(att.scale, 0.5)
    o, wv, c, ao = sess.run([out, w, causal, a_out], {qi: q, vi: v})
    scores = 0.5 * np.einsum("bqd,bvd->bqv", q, v)
    np.testing.assert_allclose(wv, _softmax(scores), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(o, _softmax(scores) @ v, rtol=1e-5, atol=1e-5)
    masked = np.where(np.arange(5)[None, :] <= np.arange(3)[:, None], scores, -1e9)
    np.testing.assert_allclose(c, _softmax(masked) @ v, rtol=1e-5, atol=1e-5)
    scale = K.get_value(add.scale)
    s = (scale * np.tanh(q[:, :, None] + v[:, None])).sum(-1)
    np.testing.assert_allclose(ao, _softmax(s) @ v, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="query, value"):
        att(qi)


def test_multi_head_attention_against_numpy_and_training():
    rng = np.random.RandomState(2)
    q, v = rng.randn(2, 3, 4).astype(np.float32), rng.randn(2, 5, 6).astype(np.float32)
    qi, vi = keras.Input(shape=(3, 4)), keras.Input(shape=(5, 6))
    mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=2)
    out, scores = mha(qi, vi, return_attention_scores=True)
    assert K.int_shape(out) == (None, 3, 4)
    assert [w.name for w in mha.weights][:2] == ["multi_head_attention/query/kernel:0",
                                                 "multi_head_attention/query/bias:0"]
    o, s = K.get_session().run([out, scores], {qi: q, vi: v})
    qk, qb, kk, kb, vk, vb, ok, ob = K.batch_get_value(mha.weights)
    qp = np.einsum("bsd,dhk->bshk", q, qk) + qb
    kp = np.einsum("bsd,dhk->bshk", v, kk) + kb
    vp = np.einsum("bsd,dhk->bshk", v, vk) + vb
    w = _softmax(np.einsum("bqhk,bvhk->bhqv", qp / np.sqrt(3), kp))
    np.testing.assert_allclose(s, w, rtol=1e-5, atol=1e-6)
    ctx = np.einsum("bhqv,bvhk->bqhk", w, vp)
    np.testing.assert_allclose(o, np.einsum("bqhk,hkd->bqd", ctx, ok) + ob, rtol=1e-4,
                               atol=1e-5)
    model = keras.Model([qi, vi], mha(qi, vi))
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    target = np.zeros((2, 3, 4), np.float32)
    l0 = model.train_on_batch([q, v], target)
    assert model.test_on_batch([q, v], target) < l0
    with pytest.raises(ValueError, match="attention_axes"):
        keras.layers.MultiHeadAttention(2, 3, attention_axes=(1,))


def test_einsum_dense_kernel_shape_bias_and_values():
    rng = np.random.RandomState(3)
    xv = rng.randn(2, 3, 4).astype(np.float32)
    x = keras.Input(shape=(3, 4))
    layer = keras.layers.experimental.EinsumDense("abc,cd->abd", output_shape=(3, 5),
                                                  bias_axes="d", activation="relu")
    y = layer(x)
    k, b = K.batch_get_value(layer.weights)
    assert k.shape == (4, 5) and b.shape == (5,)
    np.testing.assert_allclose(K.get_session().run(y, {x: xv}),
                               np.maximum(xv @ k + b, 0), rtol=1e-5, atol=1e-6)
    e2 = keras.layers.EinsumDense("...b,bc->...c", output_shape=6)
    y2 = e2(x)
    assert K.int_shape(y2) == (None, 3, 6)
    with pytest.raises(ValueError, match="equation"):
        keras.layers.EinsumDense("abc", output_shape=3)
