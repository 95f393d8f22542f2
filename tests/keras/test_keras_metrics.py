"""Keras metric objects in graph mode (update_state / result / reset_state) against numpy
and sklearn-free references; stateful metrics in compile/fit/evaluate."""

import numpy as np
import pytest

import tensorfleet as tf

keras = tf.keras
K = keras.backend
metrics = keras.metrics


@pytest.fixture(autouse=True)
def _keras_session():
    np.random.seed(0)
    yield
    K.clear_session()


def _update_result(m, *args, **kwargs):
    op = m.update_state(*args, **kwargs)
    sess = K.get_session()  # initializes the metric's variables
    sess.run(op)
    return sess.run(m.result())


def test_mean_sum_mean_tensor_and_reset():
    m = metrics.Mean()
    op = m.update_state(tf.constant([1.0, 2.0, 3.0]), sample_weight=tf.constant([1.0, 0.0, 1.0]))
    sess = K.get_session()
    sess.run(op)
    assert sess.run(m.result()) == pytest.approx(2.0)
    sess.run(m.update_state(tf.constant([10.0])))
    assert sess.run(m.result()) == pytest.approx(14 / 3)
    m.reset_state()
    assert sess.run(m.result()) == 0.0
    assert _update_result(metrics.Sum(), [1.0, 2.0]) == pytest.approx(3.0)
    mt = metrics.MeanTensor()
    op = mt.update_state(tf.constant([1.0, 3.0]))
    K.get_session().run(op)
    np.testing.assert_allclose(_update_result(mt, tf.constant([3.0, 5.0])), [2.0, 4.0])
    assert m.name == "mean" and all(not v.trainable for v in m.variables)


@pytest.mark.parametrize("cls,fn,kwargs", [
    ("MeanSquaredError", lambda t, p: ((t - p) ** 2).mean(-1), {}),
    ("MeanAbsoluteError", lambda t, p: np.abs(t - p).mean(-1), {}),
    ("LogCoshError", lambda t, p: np.log(np.cosh(p - t)).mean(-1), {}),
    ("Hinge", lambda t, p: np.maximum(1 - t * p, 0).mean(-1), {}),
    ("CosineSimilarity", lambda t, p: (t * p).sum(-1) / np.linalg.norm(t, axis=-1)
     / np.linalg.norm(p, axis=-1), {}),
    ("Poisson", lambda t, p: (p - t * np.log(p + 1e-7)).mean(-1), {}),
    ("BinaryAccuracy", lambda t, p: ((p > 0.3) == t).mean(-1), {"threshold": 0.3}),
])
def test_mean_metric_wrappers_against_numpy(cls, fn, kwargs):
    rng = np.random.RandomState(1)
    t = (rng.rand(6, 3) > 0.5).astype(np.float32)
    t[:, 0] = 1.0  # no all-zero label rows (their cosine is undefined)
    p = rng.rand(6, 3).astype(np.float32) + 0.01
    m = getattr(metrics, cls)(**kwargs)
    np.testing.assert_allclose(_update_result(m, t, p), fn(t, p).mean(), rtol=1e-5)


def test_root_mean_squared_error_and_relative_error():
    t, p = np.array([1.0, 2.0, 4.0]), np.array([2.0, 2.0, 1.0])
    assert _update_result(metrics.RootMeanSquaredError(), t, p) == pytest.approx(
        np.sqrt(((t - p) ** 2).mean()))
    assert _update_result(metrics.MeanRelativeError(normalizer=t), t, p) == pytest.approx(
        (np.abs(t - p) / t).mean())


def test_confusion_counts_precision_recall():
    t = np.array([1, 0, 1, 1, 0], np.float32)
    p = np.array([0.9, 0.8, 0.4, 0.6, 0.1], np.float32)
    assert _update_result(metrics.TruePositives(), t, p) == 2
    assert _update_result(metrics.FalsePositives(), t, p) == 1
    assert _update_result(metrics.TrueNegatives(), t, p) == 1
    assert _update_result(metrics.FalseNegatives(), t, p) == 1
    np.testing.assert_allclose(_update_result(metrics.TruePositives([0.3, 0.7]), t, p), [3, 1])
    assert _update_result(metrics.Precision(), t, p) == pytest.approx(2 / 3)
    assert _update_result(metrics.Recall(thresholds=0.5), t, p) == pytest.approx(2 / 3)
    top1 = metrics.Precision(top_k=1)
    two = np.array([[0, 1, 1], [1, 0, 0]], np.float32)
    sc = np.array([[0.1, 0.9, 0.5], [0.2, 0.7, 0.1]], np.float32)
    assert _update_result(top1, two, sc) == pytest.approx(0.5)


def _roc_auc(t, p):
    pos, neg = p[t == 1], p[t == 0]
    return np.mean([(a > b) + 0.5 * (a == b) for a in pos for b in neg])


def test_auc_and_points_of_the_curve():
    rng = np.random.RandomState(2)
    t = (rng.rand(300) > 0.5).astype(np.float32)
    p = np.clip(t * 0.3 + rng.rand(300) * 0.7, 0, 1).astype(np.float32)
    auc = _update_result(metrics.AUC(num_thresholds=500), t, p)
    assert auc == pytest.approx(_roc_auc(t, p), abs=5e-3)
    pr = _update_result(metrics.AUC(curve="PR", num_thresholds=500), t, p)
    order = np.argsort(-p)
    tp = np.cumsum(t[order])
    precision, recall = tp / np.arange(1, 301), tp / t.sum()
    ap = np.sum(np.diff(np.concatenate([[0], recall])) * precision)
    assert pr == pytest.approx(ap, abs=0.02)
    sens = _update_result(metrics.SensitivityAtSpecificity(0.8, num_thresholds=1000), t, p)
    ths = np.linspace(0, 1, 1001)
    spec = np.array([((p <= th) & (t == 0)).sum() / (t == 0).sum() for th in ths])
    sen = np.array([((p > th) & (t == 1)).sum() / t.sum() for th in ths])
    assert sens == pytest.approx(sen[spec >= 0.8].max(), abs=0.01)
    with pytest.raises(ValueError, match="curve"):
        metrics.AUC(curve="XY")


def test_iou_family_and_fbeta_and_r2():
    t = np.array([0, 0, 1, 1, 2], np.int32)
    p = np.array([0, 1, 1, 1, 0], np.int32)
    # Class IoUs: 0 -> 1/3, 1 -> 2/3, 2 -> 0.
    assert _update_result(metrics.MeanIoU(3), t, p) == pytest.approx((1 / 3 + 2 / 3 + 0) / 3)
    assert _update_result(metrics.IoU(3, [1]), t, p) == pytest.approx(2 / 3)
    oh = np.eye(3, dtype=np.float32)
    assert _update_result(metrics.OneHotMeanIoU(3), oh[t], oh[p]) == pytest.approx(1 / 3)
    assert _update_result(metrics.OneHotIoU(3, [0]), oh[t], oh[p]) == pytest.approx(1 / 3)
    assert _update_result(metrics.BinaryIoU([1], threshold=0.5), [1, 0, 1],
                          [0.9, 0.7, 0.2]) == pytest.approx(1 / 3)
    yt = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]], np.float32)
    yp = np.array([[0.9, 0.2, 0.6], [0.1, 0.3, 0.8], [0.7, 0.6, 0.1]], np.float32)
    hard = yp > 0.5
    tp, fp, fn = (hard & (yt == 1)).sum(0), (hard & (yt == 0)).sum(0), (~hard & (yt == 1)).sum(0)
    f1 = 2 * tp / (2 * tp + fp + fn)
    np.testing.assert_allclose(_update_result(metrics.F1Score(threshold=0.5), yt, yp), f1,
                               rtol=1e-6)
    b2 = 4.0
    fb = (1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp)
    assert _update_result(metrics.FBetaScore(average="macro", beta=2.0, threshold=0.5),
                          yt, yp) == pytest.approx(fb.mean())
    rt = np.array([[1.0], [2.0], [4.0], [5.0]])
    rp = np.array([[1.5], [2.0], [3.0], [5.5]])
    r2 = 1 - ((rt - rp) ** 2).sum() / ((rt - rt.mean()) ** 2).sum()
    assert _update_result(metrics.R2Score(), rt, rp) == pytest.approx(r2, rel=1e-5)


def test_stateful_metrics_in_fit_and_evaluate():
    rng = np.random.RandomState(3)
    x = rng.randn(40, 3).astype(np.float32)
    y = (x[:, :1] > 0).astype(np.float32)
    model = keras.Sequential([keras.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="binary_crossentropy",
                  metrics=[metrics.AUC(name="auc"), metrics.BinaryAccuracy(name="bacc")])
    assert model.metrics_names == ["loss", "auc", "bacc"]
    hist = model.fit(x, y, batch_size=8, epochs=2, verbose=0)
    assert set(hist.history) >= {"loss", "auc", "bacc"}
    loss, auc, bacc = model.evaluate(x, y, batch_size=16, verbose=0)
    pred = model.predict(x).ravel()
    assert auc == pytest.approx(_update_result(metrics.AUC(), y.ravel(), pred), abs=1e-6)
    assert bacc == pytest.approx(((pred > 0.5) == y.ravel()).mean(), abs=1e-6)


def test_metric_serialization_round_trip():
    m = metrics.Precision(thresholds=[0.2, 0.6], name="p")
    cfg = metrics.serialize(m)
    again = metrics.deserialize(cfg)
    assert type(again) is metrics.Precision and again.thresholds == [0.2, 0.6]
    assert metrics.get("cosine_proximity") is keras.losses.cosine_similarity
    with pytest.raises(ValueError, match="Unknown metric"):
        metrics.deserialize({"class_name": "Nope", "config": {}})
