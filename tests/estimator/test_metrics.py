"""tf.metrics (auc, thresholds, counts, class and top-k metrics, errors) and
tf.contrib.metrics streaming forms, against numpy over several batches."""

import numpy as np
import pytest

import tensorfleet as tf

RNG = np.random.RandomState(11)
EPS = 1e-7


def _batches(n_batches=3, size=40):
    out = []
    for _ in range(n_batches):
        lab = RNG.rand(size) > 0.5
        pred = np.clip(0.35 * lab + 0.65 * RNG.rand(size), 0, 1).astype(np.float32)
        w = RNG.rand(size).astype(np.float32)
        out.append((lab, pred, w))
    return out


def _stream(pairs, feeds):
    """Runs every update op once per feed; returns the final values and updates."""
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        for f in feeds:
            ups = s.run([p[1] for p in pairs], f)
        vals = s.run([p[0] for p in pairs], feeds[-1])
    return vals, ups


def _thresholds(n):
    return [-EPS] + [(i + 1) / (n - 1) for i in range(n - 2)] + [1 + EPS]


def _confusion(lab, pred, w, ts):
    pos = pred[None, :] > np.array(ts)[:, None]
    tp = ((pos & lab) * w).sum(1)
    fp = ((pos & ~lab) * w).sum(1)
    fn = ((~pos & lab) * w).sum(1)
    tn = ((~pos & ~lab) * w).sum(1)
    return tp, fn, tn, fp


def _auc_ref(tp, fn, tn, fp, curve, method):
    if curve == "PR" and method == "careful_interpolation":
        dtp = tp[:-1] - tp[1:]
        p = tp + fp
        dp = np.maximum(p[:-1] - p[1:], 0)
        slope = np.where(dp > 0, dtp / np.where(dp > 0, dp, 1), 0)
        intercept = tp[1:] - slope * p[1:]
        ratio = np.where((p[:-1] > 0) & (p[1:] > 0), p[:-1] / np.where(p[1:] > 0, p[1:], 1), 1)
        den = np.maximum(tp[1:] + fn[1:], 0)
        num = slope * (dtp + intercept * np.log(ratio))
        return np.sum(np.where(den > 0, num / np.where(den > 0, den, 1), 0))
    e = 1e-6
    rec = (tp + e) / (tp + fn + e)
    x, y = (fp / (fp + tn + e), rec) if curve == "ROC" else (rec, (tp + e) / (tp + fp + e))
    h = {"minoring": np.minimum(y[:-1], y[1:]), "majoring": np.maximum(y[:-1], y[1:])}.get(
        method, (y[:-1] + y[1:]) / 2)
    return np.sum((x[:-1] - x[1:]) * h)


@pytest.mark.parametrize("curve", ["ROC", "PR"])
def test_auc_matches_numpy_riemann_sums_over_batches(curve):
    batches = _batches()
    lab_ph = tf.placeholder(tf.bool, [None])
    pred_ph = tf.placeholder(tf.float32, [None])
    w_ph = tf.placeholder(tf.float32, [None])
    methods = ["trapezoidal", "careful_interpolation", "minoring", "majoring"]
    pairs = [tf.metrics.auc(lab_ph, pred_ph, weights=w_ph, num_thresholds=25, curve=curve,
                            summation_method=m) for m in methods]
    feeds = [{lab_ph: l, pred_ph: p, w_ph: w} for l, p, w in batches]
    vals, ups = _stream(pairs, feeds)
    lab, pred, w = (np.concatenate(x) for x in zip(*batches))
    counts = _confusion(lab, pred, w, _thresholds(25))
    for m, v, u in zip(methods, vals, ups):
        ref = _auc_ref(*counts, curve, m)
        np.testing.assert_allclose(v, ref, rtol=1e-4, err_msg=m)
        np.testing.assert_allclose(u, ref, rtol=1e-4, err_msg=m)


def test_auc_explicit_thresholds_variables_and_errors():
    lab = tf.constant([True, False, True, False])
    pred = tf.constant([0.9, 0.8, 0.3, 0.1])
    value, update = tf.metrics.auc(lab, pred, thresholds=[0.5, 0.2, 0.85])
    names = [v.op.name for v in tf.local_variables()]
    assert names == ["auc/true_positives", "auc/false_negatives", "auc/true_negatives",
                     "auc/false_positives"]
    assert tf.get_collection("metric_variables") == tf.local_variables()
    assert not tf.global_variables()
    assert tf.local_variables()[0].shape.as_list() == [5]
    (v,), _ = _stream([(value, update)], [None])
    counts = _confusion(np.array([1, 0, 1, 0], bool), np.array([0.9, 0.8, 0.3, 0.1]),
                        np.ones(4), [-EPS, 0.2, 0.5, 0.85, 1 + EPS])
    np.testing.assert_allclose(v, _auc_ref(*counts, "ROC", "trapezoidal"), rtol=1e-5)
    with pytest.raises(ValueError):
        tf.metrics.auc(lab, pred, curve="XY")
    with pytest.raises(ValueError):
        tf.metrics.auc(lab, pred, summation_method="simpson")
    with pytest.raises(ValueError):
        tf.metrics.auc(lab, pred, num_thresholds=1)


def test_counts_precision_recall_at_thresholds():
    batches = _batches(2, 30)
    lab_ph, pred_ph = tf.placeholder(tf.bool, [None]), tf.placeholder(tf.float32, [None])
    ts = [0.2, 0.5, 0.7]
    pairs = [tf.metrics.true_positives_at_thresholds(lab_ph, pred_ph, ts),
             tf.metrics.false_negatives_at_thresholds(lab_ph, pred_ph, ts),
             tf.metrics.true_negatives_at_thresholds(lab_ph, pred_ph, ts),
             tf.metrics.false_positives_at_thresholds(lab_ph, pred_ph, ts),
             tf.metrics.precision_at_thresholds(lab_ph, pred_ph, ts),
             tf.metrics.recall_at_thresholds(lab_ph, pred_ph, ts)]
    vals, _ = _stream(pairs, [{lab_ph: l, pred_ph: p} for l, p, _ in batches])
    lab, pred = np.concatenate([b[0] for b in batches]), np.concatenate([b[1] for b in batches])
    tp, fn, tn, fp = _confusion(lab, pred, np.ones(len(lab)), ts)
    for got, ref in zip(vals, [tp, fn, tn, fp, tp / (tp + fp + EPS), tp / (tp + fn + EPS)]):
        np.testing.assert_allclose(got, ref, rtol=1e-5)


def test_sensitivity_and_specificity_at():
    lab, pred, _ = _batches(1, 60)[0]
    pairs = [tf.metrics.sensitivity_at_specificity(lab, pred, 0.7, num_thresholds=50),
             tf.metrics.specificity_at_sensitivity(lab, pred, 0.6, num_thresholds=50)]
    (sens, spec), _ = _stream(pairs, [None])
    tp, fn, tn, fp = _confusion(lab, pred, np.ones(60), _thresholds(50))
    specs = tn / (tn + fp + EPS)
    i = np.argmin(np.abs(specs - 0.7))
    np.testing.assert_allclose(sens, tp[i] / (tp[i] + fn[i] + EPS), rtol=1e-5)
    senss = tp / (tp + fn + EPS)
    gap = np.abs(senss - 0.6)
    j = np.nonzero(gap == gap.min())[0][-1]
    np.testing.assert_allclose(spec, tn[j] / (tn[j] + fp[j] + EPS), rtol=1e-5)
    with pytest.raises(ValueError):
        tf.metrics.sensitivity_at_specificity(lab, pred, 1.5)


def test_counts_precision_recall_weighted():
    lab = np.array([1, 1, 0, 0, 1, 0], bool)
    pred = np.array([1, 0, 1, 0, 1, 1], bool)
    w = np.array([1.0, 2.0, 0.5, 1.0, 3.0, 0.0], np.float32)
    pairs = [tf.metrics.true_positives(lab, pred, w), tf.metrics.false_positives(lab, pred, w),
             tf.metrics.true_negatives(lab, pred, w), tf.metrics.false_negatives(lab, pred, w),
             tf.metrics.precision(lab, pred, w), tf.metrics.recall(lab, pred, w)]
    vals, ups = _stream(pairs, [None, None])
    tp, fp, tn, fn = 8.0, 1.0, 2.0, 4.0  # two identical batches
    np.testing.assert_allclose(vals, [tp, fp, tn, fn, tp / (tp + fp), tp / (tp + fn)],
                               rtol=1e-6)
    np.testing.assert_allclose(ups, vals, rtol=1e-6)


def test_mean_iou_and_mean_per_class_accuracy():
    lab = np.array([0, 1, 2, 1, 2, 0, 1])
    pred = np.array([0, 2, 2, 1, 1, 0, 1])
    pairs = [tf.metrics.mean_iou(lab, pred, 4), tf.metrics.mean_per_class_accuracy(lab, pred, 4)]
    (iou, mpca), (cm_up, per_class_up) = _stream(pairs, [None])
    cm = np.zeros([4, 4])
    np.add.at(cm, (lab, pred), 1)
    np.testing.assert_allclose(cm_up, cm)
    assert cm_up.dtype == np.float64
    inter = np.diag(cm)
    union = cm.sum(0) + cm.sum(1) - inter
    np.testing.assert_allclose(iou, np.mean(inter[union > 0] / union[union > 0]), rtol=1e-6)
    per_class = [np.mean(pred[lab == c] == c) if (lab == c).any() else 0.0 for c in range(4)]
    np.testing.assert_allclose(mpca, np.mean(per_class), rtol=1e-6)
    np.testing.assert_allclose(per_class_up, per_class, rtol=1e-6)
    assert [v.op.name for v in tf.local_variables()][0] == "mean_iou/total_confusion_matrix"


def test_precision_and_recall_at_k():
    logits = RNG.rand(6, 5).astype(np.float32)
    labels = np.array([[0, 1], [2, -1], [3, 4], [4, -1], [1, 2], [0, 3]])
    pairs = [tf.metrics.precision_at_k(labels, logits, 2),
             tf.metrics.recall_at_k(labels, logits, 2),
             tf.metrics.precision_at_k(labels, logits, 2, class_id=3),
             tf.metrics.recall_at_k(labels[:, 0], logits, 3)]
    vals, _ = _stream(pairs, [None])
    top2 = np.argsort(-logits, 1)[:, :2]
    sets = [set(r[r >= 0]) for r in labels]
    hits = sum(len(set(t) & s) for t, s in zip(top2, sets))
    n_labels = sum(len(s) for s in sets)
    in3 = [labels[i, 0] in np.argsort(-logits[i])[:3] for i in range(6)]
    tp3 = sum(3 in t and 3 in s for t, s in zip(top2, sets))
    fp3 = sum(3 in t and 3 not in s for t, s in zip(top2, sets))
    np.testing.assert_allclose(vals[0], hits / 12.0)
    np.testing.assert_allclose(vals[1], hits / n_labels)
    np.testing.assert_allclose(vals[2], tp3 / (tp3 + fp3) if tp3 + fp3 else 0.0)
    np.testing.assert_allclose(vals[3], np.mean(in3))
    assert vals[0].dtype == np.float64
    assert "precision_at_2/true_positive_at_2" in [v.op.name for v in tf.local_variables()]


def test_error_and_mean_metrics():
    lab = np.array([[1.0, 2.0], [3.0, 0.0]], np.float32)
    pred = np.array([[2.0, 2.0], [1.0, 1.0]], np.float32)
    norm = np.array([[2.0, 0.0], [4.0, 1.0]], np.float32)
    u = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    v = np.array([[1.0, 0.0], [1.0, 0.0]], np.float32)
    pairs = [tf.metrics.root_mean_squared_error(lab, pred),
             tf.metrics.mean_squared_error(lab, pred),
             tf.metrics.mean_absolute_error(lab, pred),
             tf.metrics.mean_relative_error(lab, pred, norm),
             tf.metrics.mean_cosine_distance(u, v, dim=1),
             tf.metrics.percentage_below(pred, 1.5),
             tf.metrics.mean_tensor(pred, weights=[[1.0, 0.0], [1.0, 1.0]])]
    vals, _ = _stream(pairs, [None, None])
    d = pred - lab
    rel = np.where(norm == 0, 0, np.abs(d) / np.where(norm == 0, 1, norm))
    np.testing.assert_allclose(vals[:6], [np.sqrt(np.mean(d ** 2)), np.mean(d ** 2),
                                          np.mean(np.abs(d)), rel.mean(),
                                          1 - np.mean((u * v).sum(1)), np.mean(pred < 1.5)],
                               rtol=1e-6)
    np.testing.assert_allclose(vals[6], [[2.0, 0.0], [1.0, 1.0]])


def test_contrib_streaming_forms_take_predictions_first():
    lab = np.array([1, 0, 1, 1], bool)
    pred = np.array([0.9, 0.2, 0.4, 0.8], np.float32)
    cm = tf.contrib.metrics
    pairs = [cm.streaming_auc(pred, lab, num_thresholds=10),
             cm.streaming_precision(pred > 0.5, lab), cm.streaming_recall(pred > 0.5, lab),
             cm.streaming_accuracy(pred > 0.5, lab),
             cm.streaming_mean_iou(np.array([0, 1]), np.array([0, 0]), 2),
             cm.streaming_sparse_recall_at_k(np.array([[0.1, 0.9]], np.float32),
                                             np.array([1]), 1)]
    names_to = cm.aggregate_metric_map({"auc": pairs[0], "p": pairs[1]})
    assert set(names_to[0]) == {"auc", "p"}
    vals, _ = _stream(pairs, [None])
    counts = _confusion(lab, pred, np.ones(4), _thresholds(10))
    np.testing.assert_allclose(vals[0], _auc_ref(*counts, "ROC", "trapezoidal"), rtol=1e-5)
    np.testing.assert_allclose(vals[1:], [1.0, 2 / 3, 0.75, 0.25, 1.0], rtol=1e-6)
    with tf.Session() as s:
        assert s.run(cm.accuracy(tf.constant([1, 2, 3]), tf.constant([1, 0, 3]))) == \
            pytest.approx(2 / 3)
