"""tf.keras utilities, losses, metrics, activations, regularizers, backend and datasets."""

import numpy as np
import pytest

import tensorfleet as tf

keras = tf.keras
K = keras.backend


@pytest.fixture(autouse=True)
def _keras_session():
    np.random.seed(0)  # fit shuffles with numpy's global generator
    yield
    K.clear_session()


def test_to_categorical_hand_computed():
    np.testing.assert_array_equal(keras.utils.to_categorical([0, 2, 1]),
                                  [[1, 0, 0], [0, 0, 1], [0, 1, 0]])
    out = keras.utils.to_categorical([[1], [3]], num_classes=4)
    assert out.shape == (2, 4) and out.dtype == np.float32
    np.testing.assert_array_equal(out, [[0, 1, 0, 0], [0, 0, 0, 1]])
    assert keras.utils.to_categorical(np.array([[0, 1], [1, 1]])).shape == (2, 2, 2)
    with pytest.raises(ValueError, match="out of range"):
        keras.utils.to_categorical([3], num_classes=3)


def test_pad_sequences_hand_computed():
    seqs = [[1, 2, 3], [4, 5], [6]]
    pad = keras.preprocessing.sequence.pad_sequences
    np.testing.assert_array_equal(pad(seqs), [[1, 2, 3], [0, 4, 5], [0, 0, 6]])
    np.testing.assert_array_equal(pad(seqs, maxlen=2), [[2, 3], [4, 5], [0, 6]])
    np.testing.assert_array_equal(
        pad(seqs, maxlen=2, padding="post", truncating="post", value=9),
        [[1, 2], [4, 5], [6, 9]])
    out = pad([[0.5], []], maxlen=3, dtype="float32", value=-1.0)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[-1, -1, 0.5], [-1, -1, -1]])
    with pytest.raises(ValueError, match="Padding type"):
        pad(seqs, padding="middle")


def test_losses_against_numpy():
    rng = np.random.RandomState(0)
    t = rng.rand(4, 3).astype(np.float32)
    p = rng.rand(4, 3).astype(np.float32) * 0.9 + 0.05
    onehot = np.eye(3, dtype=np.float32)[[0, 2, 1, 1]]
    logits = rng.randn(4, 3).astype(np.float32)
    soft = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    L = keras.losses
    got = K.get_session().run({
        "mse": L.mse(t, p), "mae": L.mae(t, p),
        "cce": L.categorical_crossentropy(onehot, p),
        "cce_softmax": L.categorical_crossentropy(onehot, tf.nn.softmax(logits)),
        "scce": L.sparse_categorical_crossentropy(np.array([0, 2, 1, 1]), p),
        "bce": L.binary_crossentropy(np.round(t), p),
        "obj": L.MeanSquaredError()(t, p),
        "logits": L.CategoricalCrossentropy(from_logits=True)(onehot, logits),
    })
    np.testing.assert_allclose(got["mse"], ((t - p) ** 2).mean(-1), rtol=1e-5)
    np.testing.assert_allclose(got["mae"], np.abs(t - p).mean(-1), rtol=1e-5)
    pn = p / p.sum(1, keepdims=True)
    np.testing.assert_allclose(got["cce"], -(onehot * np.log(pn)).sum(1), rtol=1e-5)
    np.testing.assert_allclose(got["cce_softmax"], -(onehot * np.log(soft)).sum(1), rtol=1e-5)
    # Probabilities that do not sum to one are normalized (softmax of their logs).
    np.testing.assert_allclose(got["scce"], -np.log(pn[np.arange(4), [0, 2, 1, 1]]),
                               rtol=1e-5)
    r = np.round(t)
    np.testing.assert_allclose(got["bce"], -(r * np.log(p) + (1 - r) * np.log(1 - p)).mean(1),
                               rtol=1e-4)
    np.testing.assert_allclose(got["obj"], ((t - p) ** 2).mean(), rtol=1e-5)
    np.testing.assert_allclose(got["logits"], -(onehot * np.log(soft)).sum(1).mean(),
                               rtol=1e-5)
    assert L.get("mse") is L.mean_squared_error
    with pytest.raises(ValueError, match="Unknown loss"):
        L.get("nope")


def test_metrics_against_numpy():
    y_true = np.array([[0, 1], [1, 0], [0, 1]], np.float32)
    y_pred = np.array([[0.2, 0.8], [0.3, 0.7], [0.4, 0.6]], np.float32)
    M = keras.metrics
    got = K.get_session().run([M.categorical_accuracy(y_true, y_pred),
                               M.sparse_categorical_accuracy(np.array([1, 1, 0]), y_pred),
                               M.binary_accuracy(y_true, y_pred)])
    np.testing.assert_array_equal(got[0], [1, 0, 1])
    np.testing.assert_array_equal(got[1], [1, 1, 0])
    np.testing.assert_allclose(got[2], [1, 0, 1])


def test_activations_and_regularized_model_loss():
    x = np.array([[-2.0, -0.5, 0.0, 1.5]], np.float32)
    A = keras.activations
    got = K.get_session().run([A.relu(x), A.elu(x), A.softmax(x), A.hard_sigmoid(x),
                               A.get("softplus")(x)])
    np.testing.assert_allclose(got[0], np.maximum(x, 0))
    np.testing.assert_allclose(got[1], np.where(x > 0, x, np.exp(x) - 1), rtol=1e-5)
    np.testing.assert_allclose(got[2], np.exp(x) / np.exp(x).sum(), rtol=1e-5)
    np.testing.assert_allclose(got[3], np.clip(0.2 * x + 0.5, 0, 1), rtol=1e-6)
    np.testing.assert_allclose(got[4], np.log1p(np.exp(x)), rtol=1e-5)
    assert A.get(None) is A.linear and A.linear(x) is x

    model = keras.Sequential([keras.layers.Dense(
        2, input_shape=(3,), kernel_regularizer=keras.regularizers.l2(0.1),
        bias_regularizer=keras.regularizers.l1(0.5), bias_initializer="ones")])
    model.compile("sgd", "mse")
    assert len(model.losses) == 2
    k, b = model.get_weights()
    xv, yv = np.ones((2, 3), np.float32), np.zeros((2, 2), np.float32)
    want = ((xv @ k + b) ** 2).mean() + 0.1 * (k ** 2).sum() + 0.5 * np.abs(b).sum()
    np.testing.assert_allclose(model.evaluate(xv, yv, verbose=0), want, rtol=1e-5)


def test_backend_session_values_and_phase():
    v = K.variable(np.arange(6).reshape(2, 3), name="kv")
    assert v.name == "kv:0" and K.int_shape(v) == (2, 3) and K.dtype(v) == "float32"
    np.testing.assert_array_equal(K.get_value(v), np.arange(6).reshape(2, 3))
    K.set_value(v, np.ones((2, 3)))
    np.testing.assert_array_equal(K.eval(v), np.ones((2, 3)))
    with pytest.raises(ValueError, match="does not fit"):
        K.set_value(v, np.ones(4))
    ph = K.placeholder(shape=(None, 3))
    assert K.int_shape(ph) == (None, 3) and K.ndim(ph) == 2
    f = K.function([ph], [K.sum(ph * K.gather(v, 0), axis=1)])
    np.testing.assert_allclose(f([np.full((1, 3), 2.0)])[0], [6.0])
    phase = K.learning_phase()
    assert phase.name == "keras_learning_phase:0" and K.learning_phase() is phase
    assert K.floatx() == "float32" and K.epsilon() == 1e-7
    K.set_learning_phase(1)
    assert K.learning_phase() == 1
    g = tf.get_default_graph()
    K.clear_session()
    assert tf.get_default_graph() is not g


def test_initializers_namespace_still_works():
    init = keras.initializers.get("glorot_uniform")
    assert isinstance(init, keras.initializers.GlorotUniform)
    assert keras.initializers.RandomNormal().stddev == 0.05
    t = keras.initializers.Constant(3.0)([2], dtype=tf.float32)
    np.testing.assert_array_equal(K.get_session().run(t), [3.0, 3.0])
    with pytest.raises(ValueError, match="Unknown initializer"):
        keras.initializers.get("nope")


def test_mnist_load_data_from_path_and_missing_file(tmp_path, monkeypatch):
    path = tmp_path / "mnist.npz"
    rng = np.random.RandomState(1)
    arrays = {"x_train": rng.randint(0, 255, (3, 28, 28), dtype=np.uint8),
              "y_train": np.array([1, 2, 3], np.uint8),
              "x_test": rng.randint(0, 255, (2, 28, 28), dtype=np.uint8),
              "y_test": np.array([4, 5], np.uint8)}
    np.savez(path, **arrays)
    (xt, yt), (xs, ys) = keras.datasets.mnist.load_data(path=str(path))
    np.testing.assert_array_equal(xt, arrays["x_train"])
    np.testing.assert_array_equal(ys, arrays["y_test"])
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"\.keras/datasets/mnist\.npz"):
        keras.datasets.mnist.load_data()
    (tmp_path / ".keras" / "datasets").mkdir(parents=True)
    np.savez(tmp_path / ".keras" / "datasets" / "mnist.npz", **arrays)
    (xt2, _), _ = keras.datasets.mnist.load_data()
    np.testing.assert_array_equal(xt2, arrays["x_train"])
