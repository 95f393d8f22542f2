"""Keras monitoring callbacks (BaseLogger, CSVLogger, RemoteMonitor against a local HTTP
server, ReduceLROnPlateau, SidecarEvaluatorModelExport, whole-model ModelCheckpoint) and
the premade LinearModel / WideDeepModel."""

import csv
import http.server
import json
import threading
import urllib.parse

import numpy as np
import pytest

import tensorfleet as tf

keras = tf.keras
K = keras.backend
cb = keras.callbacks


@pytest.fixture(autouse=True)
def _keras_session():
    np.random.seed(0)
    yield
    K.clear_session()


def _data(n=32):
    rng = np.random.RandomState(0)
    x = rng.randn(n, 3).astype(np.float32)
    return x, x @ np.array([[1.0], [-2.0], [0.5]], np.float32)


def _model(lr=0.05):
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(3,))])
    model.compile(optimizer=keras.optimizers.SGD(lr), loss="mse", metrics=["mae"])
    return model


def test_csv_logger_and_base_logger(tmp_path):
    x, y = _data()
    path = tmp_path / "log.csv"
    base = cb.BaseLogger()
    hist = _model().fit(x, y, batch_size=8, epochs=3, verbose=0,
                        callbacks=[base, cb.CSVLogger(str(path))])
    rows = list(csv.DictReader(open(path)))
    assert [int(r["epoch"]) for r in rows] == [0, 1, 2]
    np.testing.assert_allclose([float(r["loss"]) for r in rows], hist.history["loss"],
                               rtol=1e-5)
    _model().fit(x, y, batch_size=8, epochs=1, verbose=0,
                 callbacks=[cb.CSVLogger(str(path), append=True)])
    assert len(list(csv.DictReader(open(path)))) == 4


def test_remote_monitor_posts_epoch_logs():
    got = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802  (http.server's name)
            body = self.rfile.read(int(self.headers["Content-Length"]))
            got.append((self.path, body))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass
    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        root = f"http://127.0.0.1:{server.server_address[1]}"
        x, y = _data()
        _model().fit(x, y, batch_size=16, epochs=2, verbose=0,
                     callbacks=[cb.RemoteMonitor(root=root)])
        _model().fit(x, y, batch_size=16, epochs=1, verbose=0,
                     callbacks=[cb.RemoteMonitor(root=root, send_as_json=True)])
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert [p for p, _ in got] == ["/publish/epoch/end/"] * 3
    first = json.loads(urllib.parse.parse_qs(got[0][1].decode())["data"][0])
    assert first["epoch"] == 0 and "loss" in first
    assert json.loads(got[2][1])["epoch"] == 0
    with pytest.raises(ValueError, match="http"):
        cb.RemoteMonitor(root="ftp://x")


def test_reduce_lr_on_plateau_lowers_the_rate():
    x, y = _data()
    model = _model(lr=0.0)  # no progress: the loss stalls at once
    rl = cb.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_lr=0.0)
    K.set_value(model.optimizer.lr, 0.0)
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    K.set_value(model.optimizer.lr, 1e-9)
    hist = model.fit(x, y, batch_size=32, epochs=4, verbose=0, callbacks=[rl])
    lrs = hist.history["lr"]
    assert lrs[0] == pytest.approx(1e-9) and lrs[-1] < lrs[0]
    with pytest.raises(ValueError, match="factor"):
        cb.ReduceLROnPlateau(factor=2.0)


def test_model_checkpoint_whole_model_and_sidecar_export(tmp_path):
    x, y = _data()
    model = _model()
    path = str(tmp_path / "m-{epoch}.h5")
    model.fit(x, y, batch_size=8, epochs=2, verbose=0,
              callbacks=[cb.ModelCheckpoint(path, monitor="loss")])
    loaded = keras.models.load_model(str(tmp_path / "m-2.h5"))
    np.testing.assert_allclose(loaded.predict(x), model.predict(x), rtol=1e-6)
    export = cb.SidecarEvaluatorModelExport(str(tmp_path / "best-{epoch}.h5"),
                                            checkpoint_filepath=str(tmp_path / "ckpt"),
                                            save_weights_only=False)
    model.evaluate(x, y, verbose=0, callbacks=[export])
    assert (tmp_path / "best-1.h5").exists()
    with pytest.raises(ValueError, match=".h5"):
        cb.ModelCheckpoint(str(tmp_path / "m"), save_weights_only=False)


def test_linear_model_fits_a_linear_function():
    x, y = _data(64)
    model = keras.models.LinearModel()
    model.compile(optimizer=keras.optimizers.SGD(0.3), loss="mse")
    model.fit(x, y, batch_size=64, epochs=40, verbose=0)
    kernel = model.layers[0].get_weights()[0]
    np.testing.assert_allclose(kernel.ravel(), [1.0, -2.0, 0.5], atol=0.02)
    again = keras.layers.deserialize({"class_name": "LinearModel",
                                      "config": model.get_config()})
    assert isinstance(again, keras.models.LinearModel) and again.units == 1


def test_wide_deep_model_with_two_optimizers():
    x, y = _data(64)
    linear = keras.experimental.LinearModel()
    dnn = keras.Sequential([keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                            keras.layers.Dense(1)])
    model = keras.experimental.WideDeepModel(linear, dnn)
    model.compile(optimizer=[keras.optimizers.SGD(0.05), keras.optimizers.SGD(0.0)],
                  loss="mse")
    dnn_before = [w.copy() for w in dnn.get_weights()]
    before = model.evaluate(x, y, verbose=0)
    model.fit(x, y, batch_size=16, epochs=5, verbose=0)
    assert model.evaluate(x, y, verbose=0) < before
    for a, b in zip(dnn_before, dnn.get_weights()):
        np.testing.assert_array_equal(a, b)  # the deep part's optimizer has rate 0
    with pytest.raises(ValueError, match="two"):
        model.compile(optimizer=["sgd"] * 3, loss="mse")
