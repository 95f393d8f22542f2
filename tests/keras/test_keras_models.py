"""tf.keras models in graph mode: Sequential, functional and subclassed models,
compile/fit/evaluate/predict, weight files, callbacks, and mixing with tf.Session."""

import glob
import os

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


def _blobs(n=240, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, 4).astype(np.float32)
    y = (x[:, 0] - 0.5 * x[:, 1] + 0.3 * x[:, 2] > 0).astype(np.int64)
    return x, y


def _images(n=160, seed=1):
    rng = np.random.RandomState(seed)
    x = rng.rand(n, 8, 8, 1).astype(np.float32)
    y = rng.randint(0, 2, n)
    x[y == 1, :4] += 0.5  # class 1: a brighter top half
    return x, keras.utils.to_categorical(y, 2)


def test_sequential_mlp_learns():
    tf.set_random_seed(2)
    x, y = _blobs()
    model = keras.Sequential([keras.layers.Dense(16, activation="relu", input_shape=(4,)),
                              keras.layers.Dense(2, activation="softmax")])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    assert model.metrics_names == ["loss", "acc"]
    assert [w.name for w in model.weights] == ["dense/kernel:0", "dense/bias:0",
                                               "dense_1/kernel:0", "dense_1/bias:0"]
    assert model.output.name == "dense_1/Softmax:0"
    hist = model.fit(x, y, batch_size=16, epochs=12, verbose=0,
                     validation_data=(x[:40], y[:40]))
    h = hist.history
    assert sorted(h) == ["acc", "loss", "val_acc", "val_loss"]
    assert hist.epoch == list(range(12))
    assert h["loss"][-1] < 0.7 * h["loss"][0]
    assert h["acc"][-1] > 0.85 and h["acc"][-1] > h["acc"][0] + 0.05
    loss, acc = model.evaluate(x, y, verbose=0)
    probs = model.predict(x, batch_size=7)
    assert probs.shape == (240, 2)
    ref_loss = -np.mean(np.log(np.clip(probs[np.arange(240), y], 1e-7, 1)))
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-4)
    np.testing.assert_allclose(acc, np.mean(probs.argmax(1) == y), rtol=1e-6)


def test_functional_conv_net_learns_and_reuses_on_new_tensor():
    tf.set_random_seed(1)
    x, y = _images()
    inp = keras.Input(shape=(8, 8, 1))
    h = keras.layers.Conv2D(4, 3, padding="same", activation="relu")(inp)
    h = keras.layers.BatchNormalization()(h)
    h = keras.layers.MaxPooling2D()(h)
    h = keras.layers.Dropout(0.1)(h)
    h = keras.layers.Flatten()(h)
    out = keras.layers.Dense(2, activation="softmax")(h)
    model = keras.Model(inputs=inp, outputs=out)
    assert [layer.name for layer in model.layers] == [
        "input_1", "conv2d", "batch_normalization", "max_pooling2d", "dropout", "flatten",
        "dense"]
    assert len(model.trainable_weights) == 6 and len(model.non_trainable_weights) == 2
    model.compile(keras.optimizers.Adam(0.01), "categorical_crossentropy",
                  metrics=["accuracy"])
    moving_before = K.get_value(model.layers[2].moving_mean)
    hist = model.fit(x, y, batch_size=32, epochs=15, verbose=0)
    assert hist.history["loss"][-1] < 0.6 * hist.history["loss"][0]
    assert hist.history["acc"][-1] > 0.8 > hist.history["acc"][0]
    assert not np.allclose(K.get_value(model.layers[2].moving_mean), moving_before)
    ph = tf.placeholder(tf.float32, [None, 8, 8, 1])
    again = model(ph)
    np.testing.assert_allclose(K.get_session().run(again, {ph: x[:5]}), model.predict(x[:5]),
                               rtol=1e-5, atol=1e-6)


def test_subclassed_model_and_binary_accuracy():
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = keras.layers.Dense(8, activation="tanh")
            self.out = keras.layers.Dense(1, activation="sigmoid")

        def call(self, inputs, training=None):
            return self.out(self.hidden(inputs))

    tf.set_random_seed(3)
    x, y = _blobs(seed=3)
    net = Net()
    assert net.name == "net"
    net.compile(keras.optimizers.SGD(0.5, momentum=0.5), "binary_crossentropy",
                metrics=["accuracy"])
    hist = net.fit(x, y.astype(np.float32), epochs=8, batch_size=16, verbose=0)
    assert hist.history["loss"][-1] < 0.5 * hist.history["loss"][0]
    assert [w.name for w in net.weights] == ["net/dense/kernel:0", "net/dense/bias:0",
                                             "net/dense_1/kernel:0", "net/dense_1/bias:0"]
    p = net.predict(x)
    _, acc = net.evaluate(x, y, verbose=0)
    np.testing.assert_allclose(acc, np.mean((p[:, 0] > 0.5) == y), rtol=1e-6)


def test_multi_output_losses_metrics_and_train_on_batch():
    x, y = _blobs(40, seed=4)
    inp = keras.Input(shape=(4,))
    a = keras.layers.Dense(2, name="a")(inp)
    b = keras.layers.Dense(1, name="b")(inp)
    model = keras.Model(inp, [a, b])
    model.compile("sgd", ["mse", "mae"], metrics=["mae"], loss_weights=[1.0, 0.5])
    assert model.metrics_names == ["loss", "a_loss", "b_loss", "a_mean_absolute_error",
                                   "b_mean_absolute_error"]
    ta, tb = np.zeros((40, 2), np.float32), y.astype(np.float32)
    pa, pb = model.predict(x)
    out = model.test_on_batch(x, [ta, tb])
    np.testing.assert_allclose(out[1], np.mean(pa ** 2), rtol=1e-5)
    np.testing.assert_allclose(out[2], np.mean(np.abs(pb[:, 0] - tb)), rtol=1e-5)
    np.testing.assert_allclose(out[0], out[1] + 0.5 * out[2], rtol=1e-5)
    first = model.train_on_batch(x, [ta, tb])[0]
    for _ in range(20):
        last = model.train_on_batch(x, [ta, tb])[0]
    assert last < first


def test_sgd_update_matches_numpy():
    x = np.array([[1.0, 2.0]], np.float32)
    y = np.array([[3.0]], np.float32)
    model = keras.Sequential([keras.layers.Dense(1, input_dim=2, kernel_initializer="ones",
                                                 bias_initializer="zeros")])
    model.compile(keras.optimizers.SGD(learning_rate=0.1), "mse")
    model.train_on_batch(x, y)
    # loss = (x.w + b - y)^2, pred 3.0 - 3.0 = 0 -> no change; shift target to see a step
    model.train_on_batch(x, np.array([[4.0]], np.float32))
    k, b = model.get_weights()
    grad = 2 * (3.0 - 4.0)
    np.testing.assert_allclose(k[:, 0], 1.0 - 0.1 * grad * x[0], rtol=1e-6)
    np.testing.assert_allclose(b, [-0.1 * grad], rtol=1e-6)
    K.set_value(model.optimizer.lr, 0.0)
    model.train_on_batch(x, np.array([[10.0]], np.float32))
    np.testing.assert_allclose(model.get_weights()[0], k)


@pytest.mark.parametrize("opt", ["sgd", "adam", "rmsprop", "adagrad",
                                 "tf_train"])
def test_optimizers_reduce_loss(opt):
    x, y = _blobs(120, seed=5)
    model = keras.Sequential([keras.layers.Dense(2, activation="softmax", input_shape=(4,))])
    optimizer = tf.train.GradientDescentOptimizer(0.5) if opt == "tf_train" else \
        keras.optimizers.get(opt)
    if opt == "adagrad":
        optimizer = keras.optimizers.Adagrad(0.1)
    model.compile(optimizer, "sparse_categorical_crossentropy")
    hist = model.fit(x, y, epochs=6, batch_size=20, verbose=0, shuffle=False)
    assert hist.history["loss"][-1] < hist.history["loss"][0]


def test_save_and_load_weights_round_trip(tmp_path):
    def build():
        inp = keras.Input(shape=(6, 2))
        h = keras.layers.LSTM(3)(inp)
        h = keras.layers.BatchNormalization()(h)
        return keras.Model(inp, keras.layers.Dense(2)(h))

    x = np.random.RandomState(6).randn(4, 6, 2).astype(np.float32)
    first = build()
    want = first.predict(x)
    prefix = str(tmp_path / "weights")
    first.save_weights(prefix)
    assert glob.glob(prefix + "*")
    second = build()
    assert [w.name for w in second.weights][0] == "lstm_1/lstm_cell/kernel:0"
    assert not np.allclose(second.predict(x), want)
    second.load_weights(prefix)
    np.testing.assert_allclose(second.predict(x), want, rtol=1e-6)
    for a, b in zip(first.get_weights(), second.get_weights()):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="HDF5"):
        first.load_weights(prefix, by_name=True)


def test_deferred_sequential_builds_from_data_and_summary():
    model = keras.Sequential()
    model.add(keras.layers.Dense(3, activation="relu"))
    model.add(keras.layers.Dense(1))
    with pytest.raises(ValueError, match="not yet been built"):
        model.summary()
    model.compile("rmsprop", "mse")
    x, y = _blobs(32, seed=7)
    model.fit(x, y, verbose=0, epochs=1)
    assert [w.name for w in model.weights][0] == "sequential/dense/kernel:0"
    lines = []
    model.summary(print_fn=lines.append)
    assert lines[0] == 'Model: "sequential"'
    assert any(line.startswith("dense (Dense)") and "(None, 3)" in line and
               line.rstrip().endswith("15") for line in lines)
    assert "Total params: 19" in lines and "Trainable params: 19" in lines


def test_callbacks_history_early_stopping_checkpoint_lambda(tmp_path):
    x, y = _blobs(64, seed=8)
    model = keras.Sequential([keras.layers.Dense(2, activation="softmax", input_shape=(4,))])
    model.compile(keras.optimizers.SGD(0.0), "sparse_categorical_crossentropy")
    seen = []
    stop = keras.callbacks.EarlyStopping(monitor="loss", patience=2)
    ckpt = keras.callbacks.ModelCheckpoint(str(tmp_path / "w-{epoch:02d}"),
                                           save_weights_only=True, monitor="loss")
    lam = keras.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: seen.append(e))
    hist = model.fit(x, y, epochs=20, verbose=0, callbacks=[stop, ckpt, lam],
                     shuffle=False)
    # With a zero learning rate the loss never improves: patience 2 stops after epoch 3.
    assert hist.epoch == [0, 1, 2] and seen == [0, 1, 2]
    assert stop.stopped_epoch == 2
    assert os.path.exists(str(tmp_path / "w-03.index"))
    with pytest.raises(ValueError, match="save_weights_only"):
        keras.callbacks.ModelCheckpoint(str(tmp_path / "m"))


def test_progress_output_and_tensorboard(tmp_path, capsys):
    x, y = _blobs(32, seed=9)
    model = keras.Sequential([keras.layers.Dense(2, activation="softmax", input_shape=(4,))])
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
    tb = keras.callbacks.TensorBoard(log_dir=str(tmp_path / "logs"))
    model.fit(x, y, epochs=2, verbose=2, callbacks=[tb])
    out = capsys.readouterr().out
    assert "Epoch 2/2" in out and "32/32" in out and "loss:" in out and "acc:" in out
    assert glob.glob(str(tmp_path / "logs" / "events.out.tfevents.*"))


def test_keras_and_session_code_mix():
    x = tf.placeholder(tf.float32, [None, 3])
    y = keras.layers.Dense(2, kernel_initializer="ones")(x)
    z = tf.reduce_sum(y) + tf.Variable(1.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert K.get_session() is sess
        np.testing.assert_allclose(sess.run(z, {x: np.ones((2, 3))}), 13.0)
    sess2 = K.get_session()
    assert sess2 is not sess
    np.testing.assert_allclose(sess2.run(y, {x: np.ones((1, 3))}), [[3.0, 3.0]])


def test_compile_and_fit_errors():
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
    with pytest.raises(RuntimeError, match="compile"):
        model.fit(np.zeros((2, 2)), np.zeros((2, 1)), verbose=0)
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match="expected"):
        model.fit(np.zeros((2, 3)), np.zeros((2, 1)), verbose=0)
    with pytest.raises(ValueError, match="same number of samples"):
        model.fit(np.zeros((2, 2)), np.zeros((3, 1)), verbose=0)
    with pytest.raises(ValueError, match="not supported"):
        model.fit(np.zeros((2, 2)), np.zeros((2, 1)), sample_weight=np.ones(2), verbose=0)
    with pytest.raises(ValueError, match="Unknown optimizer"):
        model.compile("nadamx", "mse")


def test_named_inputs_validation_split_and_set_session():
    rng = np.random.RandomState(10)
    a, b = keras.Input(shape=(2,), name="a"), keras.Input(shape=(3,), name="b")
    merged = keras.layers.Concatenate()([a, b])
    model = keras.Model([a, b], keras.layers.Dense(1, name="out")(merged))
    model.compile("adam", "mse")
    assert model.input_names == ["a", "b"] and model.output_names == ["out"]
    xa, xb = rng.randn(50, 2).astype(np.float32), rng.randn(50, 3).astype(np.float32)
    target = xa.sum(1) - xb.sum(1)
    sess = tf.Session()
    K.set_session(sess)
    hist = model.fit({"a": xa, "b": xb}, target, validation_split=0.2, epochs=2, verbose=0,
                     batch_size=8)
    assert K.get_session() is sess
    assert hist.params["samples"] == 40 and "val_loss" in hist.history
    np.testing.assert_allclose(model.predict([xa[:3], xb[:3]]),
                               sess.run(model.output, {a: xa[:3], b: xb[:3]}), rtol=1e-6)
    with pytest.raises(ValueError, match="No data provided"):
        model.predict({"a": xa})


@pytest.mark.parametrize("name", ["sgd", "adam", "rmsprop", "adagrad"])
def test_one_optimizer_step_matches_keras_formula(name):
    x = np.array([[1.0, 2.0]], np.float32)
    g = np.array([6.0, 12.0])  # d/dk of (x.k - 0)^2 at k = [1, 1]
    opts = {"sgd": keras.optimizers.SGD(0.1), "adam": keras.optimizers.Adam(0.1),
            "rmsprop": keras.optimizers.RMSprop(0.1), "adagrad": keras.optimizers.Adagrad(0.1)}
    want = {"sgd": 1 - 0.1 * g,
            "adam": 1 - 0.1 * np.sqrt(1 - 0.999) / (1 - 0.9) * (0.1 * g) /
            (np.sqrt(0.001 * g ** 2) + 1e-7),
            "rmsprop": 1 - 0.1 * g / (np.sqrt(0.1 * g ** 2) + 1e-7),
            "adagrad": 1 - 0.1 * g / (np.sqrt(0.1 + g ** 2) + 1e-7)}
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,), use_bias=False,
                                                 kernel_initializer="ones")])
    model.compile(opts[name], "mse")
    model.train_on_batch(x, np.zeros((1, 1), np.float32))
    np.testing.assert_allclose(model.get_weights()[0][:, 0], want[name], rtol=1e-5)
    assert K.get_value(model.optimizer.iterations) == 1


def test_models_as_layers_share_weights():
    rng = np.random.RandomState(11)
    enc_in = keras.Input(shape=(3,))
    encoder = keras.Model(enc_in, keras.layers.Dense(2, name="code")(enc_in), name="enc")
    head = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
    a, b = keras.Input(shape=(3,)), keras.Input(shape=(3,))
    out = head(keras.layers.add([encoder(a), encoder(b)]))
    model = keras.Model([a, b], out)
    assert [layer.name for layer in model.layers] == ["input_2", "input_3", "enc", "add",
                                                      "sequential"]
    assert [w.name for w in model.weights] == ["code/kernel:0", "code/bias:0",
                                               "dense/kernel:0", "dense/bias:0"]
    xa, xb = rng.randn(4, 3).astype(np.float32), rng.randn(4, 3).astype(np.float32)
    k, bias, hk, hb = model.get_weights()
    want = ((xa @ k + bias) + (xb @ k + bias)) @ hk + hb
    np.testing.assert_allclose(model.predict([xa, xb]), want, rtol=1e-5, atol=1e-6)
    model.compile("sgd", "mse")
    model.fit([xa, xb], np.zeros((4, 1)), verbose=0)
    np.testing.assert_allclose(encoder.predict(xa), xa @ model.get_weights()[0] +
                               model.get_weights()[1], rtol=1e-5, atol=1e-6)
