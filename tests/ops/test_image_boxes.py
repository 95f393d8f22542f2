"""tf.image box ops against per-pixel numpy references of their definitions (and a few
numbers recorded from TensorFlow), with numerical gradient checks."""

import math

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

R = np.random.RandomState(3)


def run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


# -- crop_and_resize ----------------------------------------------------------------------

def ref_crop(img, boxes, bi, ch, cw, method, extrap):
    # sample coordinates in float32, as TensorFlow computes them (ties at .5 depend on it)
    f = np.float32
    _, h, w, d = img.shape
    out = np.zeros((len(boxes), ch, cw, d), np.float32)
    for n, (y1, x1, y2, x2) in enumerate(boxes.astype(np.float32)):
        for y in range(ch):
            iy = y1 * f(h - 1) + f(y) * ((y2 - y1) * f(h - 1) / f(ch - 1)) if ch > 1 else \
                f(0.5) * (y1 + y2) * f(h - 1)
            for x in range(cw):
                ix = x1 * f(w - 1) + f(x) * ((x2 - x1) * f(w - 1) / f(cw - 1)) if cw > 1 \
                    else f(0.5) * (x1 + x2) * f(w - 1)
                if not (0 <= iy <= h - 1 and 0 <= ix <= w - 1):
                    out[n, y, x] = extrap
                    continue
                im = img[bi[n]].astype(np.float64)
                if method == "nearest":
                    out[n, y, x] = im[int(math.floor(iy + 0.5)), int(math.floor(ix + 0.5))]
                    continue
                t, b, l, r = math.floor(iy), math.ceil(iy), math.floor(ix), math.ceil(ix)
                dy, dx = iy - t, ix - l
                top = im[t, l] + (im[t, r] - im[t, l]) * dx
                bot = im[b, l] + (im[b, r] - im[b, l]) * dx
                out[n, y, x] = top + (bot - top) * dy
    return out


BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [0.9, 0.8, 0.1, 0.05], [-0.2, -0.1, 1.3, 0.5],
                  [0.5, 0.5, 0.5, 0.5], [0.25, 0.5, 0.75, 0.5]], np.float32)
BOX_IND = np.array([0, 1, 1, 0, 1], np.int32)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("size", [(4, 5), (1, 3), (3, 1)])
def test_crop_and_resize_matches_reference(method, size):
    img = R.rand(2, 6, 7, 3).astype(np.float32)
    out = run(tf.image.crop_and_resize(img, BOXES, BOX_IND, list(size), method=method,
                                       extrapolation_value=-1.0))
    assert out.dtype == np.float32 and out.shape == (5,) + size + (3,)
    np.testing.assert_allclose(out, ref_crop(img, BOXES, BOX_IND, *size, method, -1.0),
                               rtol=1e-5, atol=1e-6)


def test_crop_and_resize_integer_image_static_shape_and_tf_numbers():
    img = np.random.RandomState(5).rand(2, 6, 7, 3).astype(np.float32)
    out = tf.image.crop_and_resize(tf.constant(img), BOXES, box_indices=BOX_IND,
                                   crop_size=[4, 5], extrapolation_value=-1.0)
    assert out.shape.as_list() == [5, 4, 5, 3]
    v = run(out)
    # recorded from TensorFlow 1.x on the same inputs
    np.testing.assert_allclose(v.sum(), 75.84267, rtol=1e-6)
    np.testing.assert_allclose(v[2, :, :, 0].ravel()[6:8], [0.61428, 0.88167], atol=1e-5)
    u8 = (img * 255).astype(np.uint8)
    got = run(tf.image.crop_and_resize(u8, BOXES, BOX_IND, [3, 3]))
    np.testing.assert_allclose(got, ref_crop(u8, BOXES, BOX_IND, 3, 3, "bilinear", 0),
                               rtol=1e-5)


def test_crop_and_resize_gradients():
    # Its own generator: the module's one is in whatever state earlier tests left it.
    img = np.random.RandomState(5).rand(2, 5, 6, 2)
    boxes = np.array([[0.13, 0.21, 0.77, 0.88], [0.9, 0.7, 0.22, 0.14],
                      [-0.13, 0.31, 0.61, 1.17]])
    bi = np.array([0, 1, 1], np.int32)

    def build(im, bx):
        return tf.image.crop_and_resize(im, tf.cast(bx, tf.float32), bi, [3, 4])

    # The crops are float32 whatever the image's dtype, so a difference quotient over a
    # small step carries float32 rounding; the crops are linear in the image, so a large
    # step is exact there.
    check_gradients(lambda im: build(im, boxes), [img], delta=0.25)
    check_gradients(lambda bx: build(img, bx), [boxes], delta=1e-3, rtol=1e-2, atol=2e-3)
    check_gradients(lambda im: tf.image.crop_and_resize(
        im, boxes.astype(np.float32), bi, [3, 4], method="nearest"), [img])


def test_crop_and_resize_errors():
    img = R.rand(1, 4, 4, 1).astype(np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="box_index"):
        run(tf.image.crop_and_resize(img, BOXES[:1], [1], [2, 2]))
    with pytest.raises(ValueError, match="method"):
        tf.image.crop_and_resize(img, BOXES[:1], [0], [2, 2], method="bicubic")
    with pytest.raises(ValueError, match="crop_size"):
        tf.image.crop_and_resize(img, BOXES[:1], [0], [0, 2])
    with pytest.raises(ValueError, match="box_ind"):
        tf.image.crop_and_resize(img, BOXES[:1], crop_size=[2, 2])


# -- non-max suppression --------------------------------------------------------------------

def iou(a, b):
    ay0, ay1, ax0, ax1 = min(a[0], a[2]), max(a[0], a[2]), min(a[1], a[3]), max(a[1], a[3])
    by0, by1, bx0, bx1 = min(b[0], b[2]), max(b[0], b[2]), min(b[1], b[3]), max(b[1], b[3])
    aa, ab = (ay1 - ay0) * (ax1 - ax0), (by1 - by0) * (bx1 - bx0)
    if aa <= 0 or ab <= 0:
        return 0.0
    inter = max(0, min(ay1, by1) - max(ay0, by0)) * max(0, min(ax1, bx1) - max(ax0, bx0))
    return inter / (aa + ab - inter)


def ref_nms(boxes, scores, n, thr, score_thr):
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    keep = []
    for i in order:
        if len(keep) == n or scores[i] <= score_thr:
            break
        if all(iou(boxes[i], boxes[j]) <= thr for j in keep):
            keep.append(i)
    return keep


@pytest.mark.parametrize("n,thr,score_thr", [(50, 0.3, -np.inf), (4, 0.5, -np.inf),
                                             (50, 0.1, 0.5), (50, 0.0, -np.inf)])
def test_nms_matches_greedy_reference(n, thr, score_thr):
    boxes = R.rand(40, 4).astype(np.float32)
    boxes[:, 2:] = boxes[:, :2] + R.rand(40, 2).astype(np.float32) * 0.5
    boxes[7] = boxes[7, [2, 3, 0, 1]]  # corners given in the other order
    scores = np.round(R.rand(40), 1).astype(np.float32)  # many ties
    got = run(tf.image.non_max_suppression(boxes, scores, n, thr, score_threshold=score_thr))
    assert got.dtype == np.int32
    assert got.tolist() == ref_nms(boxes, scores, n, thr, score_thr)


def test_soft_nms_numbers_from_tensorflow():
    r = np.random.RandomState(21)
    b = r.rand(25, 4).astype(np.float32)
    b[:, 2:] = b[:, :2] + r.rand(25, 2).astype(np.float32) * 0.5
    b[3] = b[3, [2, 3, 0, 1]]
    sc = np.round(r.rand(25), 2).astype(np.float32)
    idx, val = run(tf.image.non_max_suppression_with_scores(
        b, sc, 25, 0.5, score_threshold=0.2, soft_nms_sigma=0.3))
    assert idx.tolist() == [24, 20, 16, 13, 21, 3, 15, 6, 10, 22, 14, 18, 4, 7, 9, 17, 12, 0,
                            11, 5, 1]
    np.testing.assert_allclose(val[[0, 6, 7, 13, 20]],
                               [0.97, 0.72899, 0.71814, 0.30236, 0.22], atol=2e-5)
    hard_idx, hard_val = run(tf.image.non_max_suppression_with_scores(b, sc, 25, 0.4))
    assert hard_idx.tolist() == ref_nms(b, sc, 25, 0.4, -np.inf)
    np.testing.assert_array_equal(hard_val, sc[hard_idx])


def test_nms_errors():
    b = R.rand(3, 4).astype(np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="iou_threshold"):
        run(tf.image.non_max_suppression(b, np.ones(3, np.float32), 2, 1.5))
    with pytest.raises(ValueError, match="scores"):
        tf.image.non_max_suppression(b, np.ones((3, 1), np.float32), 2)


# -- draw_bounding_boxes ----------------------------------------------------------------------

def test_draw_bounding_boxes_recorded_from_tensorflow():
    bx = np.array([[[-0.1, -0.2, 0.5, 0.5], [0.5, 0.3, 1.2, 1.1], [0.2, 0.2, 0.2, 0.9],
                    [0.05, 0.05, 0.95, 0.95]] +
                   [[0.1 * i, 0.1 * i, 0.1 * i + 0.3, 0.1 * i + 0.3] for i in range(8)]],
                  np.float32)
    o = run(tf.image.draw_bounding_boxes(np.zeros((1, 10, 10, 4), np.float32), bx))
    np.testing.assert_allclose(o[0].sum(axis=(0, 1)), [28.0, 38.5, 35.5, 84.0])
    want_row1 = [0.5, 0.5, 0.5, 0.5, 0.5, 1, 1, 1, 0, 0]
    np.testing.assert_allclose(o[0, 1, :, 0], want_row1)


def test_draw_bounding_boxes_rgb_custom_colors():
    img = np.full((2, 5, 6, 3), 0.25, np.float32)
    bx = np.array([[[0.0, 0.0, 0.5, 0.4]], [[0.25, 0.2, 1.0, 1.0]]], np.float32)
    o = run(tf.image.draw_bounding_boxes(img, bx, colors=[[1, 0, 0, 1]]))
    want = img.copy()
    for b, (r0, c0, r1, c1) in enumerate([(0, 0, 2, 2), (1, 1, 4, 5)]):
        want[b, [r0, r1], c0:c1 + 1] = [1, 0, 0]
        want[b, r0:r1 + 1, [c0, c1]] = [1, 0, 0]
    np.testing.assert_array_equal(o, want)
    with pytest.raises(tf.errors.InvalidArgumentError, match="depth"):
        run(tf.image.draw_bounding_boxes(np.zeros((1, 3, 3, 2), np.float32), bx[:1]))


# -- sample_distorted_bounding_box --------------------------------------------------------------

def test_sample_distorted_bounding_box_constraints_and_seeds():
    boxes = np.array([[[0.1, 0.2, 0.5, 0.6], [0.4, 0.4, 0.9, 0.95]]], np.float32)
    begin, size, bbox = tf.image.sample_distorted_bounding_box(
        [80, 120, 3], boxes, seed=7, min_object_covered=0.5, aspect_ratio_range=[0.5, 2.0],
        area_range=[0.1, 0.8])
    assert begin.shape.as_list() == [3] and bbox.shape.as_list() == [1, 1, 4]
    with tf.Session() as s:
        draws = [s.run([begin, size, bbox]) for _ in range(20)]
    with tf.Session() as s:
        again = s.run([begin, size, bbox])
    np.testing.assert_array_equal(again[0], draws[0][0])
    assert len({tuple(d[0]) + tuple(d[1]) for d in draws}) > 5
    px = boxes[0] * [80, 120, 80, 120]
    for (y, x, _), (h, w, last), bb in draws:
        assert last == -1 and 0 <= y and y + h <= 80 and 0 <= x and x + w <= 120
        assert 0.1 * 9600 <= h * w <= 0.8 * 9600 and 0.5 <= w / h <= 2.0 + 1 / h
        np.testing.assert_allclose(bb[0, 0], [y / 80, x / 120, (y + h) / 80, (x + w) / 120],
                                   rtol=1e-6)
        inter = [max(0, min(b[2], y + h) - max(b[0], y)) * max(0, min(b[3], x + w) -
                                                                max(b[1], x)) /
                 ((b[2] - b[0]) * (b[3] - b[1])) for b in np.trunc(px)]
        assert max(inter) >= 0.5


def test_sample_distorted_bounding_box_falls_back_to_whole_image():
    begin, size, bbox = tf.image.sample_distorted_bounding_box(
        [30, 40, 1], np.zeros((1, 0, 4), np.float32), seed=1, min_object_covered=1.0,
        area_range=[0.05, 0.1], use_image_if_no_bounding_boxes=True, max_attempts=5)
    b, s, bb = run([begin, size, bbox])
    assert b.tolist() == [0, 0, 0] and s.tolist() == [30, 40, -1]
    np.testing.assert_array_equal(bb, [[[0, 0, 1, 1]]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="No bounding boxes"):
        run(tf.image.sample_distorted_bounding_box([30, 40, 1], np.zeros((1, 0, 4)))[0])
    with pytest.raises(ValueError, match="area_range"):
        tf.image.sample_distorted_bounding_box([30, 40, 1], [[[0, 0, 1, 1]]],
                                               area_range=[0.5, 0.1])


def test_nms_padded_and_overlaps():
    boxes = R.rand(12, 4).astype(np.float32)
    boxes[:, 2:] = boxes[:, :2] + 0.5
    scores = R.rand(12).astype(np.float32)
    want = ref_nms(boxes, scores, 8, 0.2, -np.inf)
    idx, n = run(tf.image.non_max_suppression_padded(boxes, scores, 8, 0.2,
                                                     pad_to_max_output_size=True))
    assert n == len(want) and idx.tolist() == want + [0] * (8 - len(want))
    idx2, n2 = run(tf.image.non_max_suppression_padded(boxes, scores, 8, 0.2))
    assert idx2.tolist() == want and n2 == len(want)
    ov = R.rand(12, 12).astype(np.float32)  # not symmetric: rows are the candidates
    order = sorted(range(12), key=lambda i: (-scores[i], i))
    keep = []
    for i in order:
        if len(keep) < 5 and scores[i] > 0.2 and all(ov[i, j] <= 0.6 for j in keep):
            keep.append(i)
    got = run(tf.image.non_max_suppression_overlaps(ov, scores, 5, 0.6, score_threshold=0.2))
    assert got.tolist() == keep


@pytest.mark.parametrize("q,pad,clip", [(1, False, True), (3, True, False), (3, False, True)])
def test_combined_non_max_suppression(q, pad, clip):
    r = np.random.RandomState(3)
    bx = r.rand(2, 12, 1, 4).astype(np.float32) * 1.2 - 0.1
    bx[..., 2:] = bx[..., :2] + 0.4
    if q == 3:
        bx = np.repeat(bx, 3, axis=2) + r.rand(2, 12, 3, 4).astype(np.float32) * 0.05
    sc = r.rand(2, 12, 3).astype(np.float32)
    out = tf.image.combined_non_max_suppression(bx, sc, 2, 9, 0.1, score_threshold=0.3,
                                                pad_per_class=pad, clip_boxes=clip)
    rows = 6 if pad else 9
    assert out[0].shape.as_list() == [2, rows, 4]
    boxes, scores, classes, valid = run(out)
    for b in range(2):
        found = []
        for c in range(3):
            keep = ref_nms(bx[b, :, c if q > 1 else 0], sc[b, :, c], 2, 0.1, 0.3)
            found += [(sc[b, i, c], c, i) for i in keep]
        found = sorted(found, key=lambda t: -t[0])[:rows]
        assert valid[b] == len(found)
        np.testing.assert_array_equal(scores[b, :len(found)], [f[0] for f in found])
        np.testing.assert_array_equal(classes[b, :len(found)], [f[1] for f in found])
        want = np.array([bx[b, i, c if q > 1 else 0] for _, c, i in found])
        np.testing.assert_allclose(boxes[b, :len(found)], np.clip(want, 0, 1) if clip else want)
        assert np.all(scores[b, len(found):] == 0) and np.all(boxes[b, len(found):] == 0)
