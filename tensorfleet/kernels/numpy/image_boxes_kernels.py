"""numpy kernels of the bounding-box image ops (``ops/image_ops_boxes.py``).

Crop-and-resize samples every output pixel of every box at once: the row and column
coordinates of a box are two short vectors, the samples one gather per corner.
Coordinates are computed in float32, as TensorFlow does, so nearest picks and
out-of-image decisions land on the same pixels. Its gradients scatter the same
corner weights back, summing per flat pixel index (``sum_rows``).
"""

from __future__ import annotations

import heapq
import logging
import math
from typing import Any, List, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.numpy.random_kernels import generator
from tensorfleet.kernels.registry import KernelContext, register_kernel

logger = logging.getLogger(__name__)


def _crop_args(ctx: KernelContext, boxes: Any, box_ind: Any, batch: int
               ) -> Tuple[np.ndarray, np.ndarray]:
    bx = np.asarray(boxes, dtype=np.float32)
    bi = np.asarray(box_ind).astype(np.int64)
    if bx.ndim != 2 or bx.shape[1] != 4:
        raise invalid(ctx, f"boxes must be 2-D [num_boxes, 4], got {list(bx.shape)}")
    if bi.shape != (bx.shape[0],):
        raise invalid(ctx, f"box_index has shape {list(bi.shape)}, expected "
                           f"[{bx.shape[0]}] (one per box)")
    if bi.size and (bi.min() < 0 or bi.max() >= batch):
        raise invalid(ctx, f"box_index has values outside [0, batch_size = {batch})")
    return bx, bi


def _coords(lo: np.ndarray, hi: np.ndarray, n_img: int, n_out: int) -> np.ndarray:
    """Sample coordinates ``[num_boxes, n_out]`` (float32) along one axis."""
    span = np.float32(n_img - 1)
    if n_out > 1:
        scale = (hi - lo) * span / np.float32(n_out - 1)
        return lo[:, None] * span + np.arange(n_out, dtype=np.float32)[None, :] * scale[:, None]
    return (np.float32(0.5) * (lo + hi) * span)[:, None]


class _Sampling:
    """Where each crop pixel samples the image: corner indices, weights, validity."""

    def __init__(self, bx: np.ndarray, img_hw: Tuple[int, int], crop_hw: Tuple[int, int],
                 nearest: bool):
        h, w = img_hw
        self.in_y = _coords(bx[:, 0], bx[:, 2], h, crop_hw[0])
        self.in_x = _coords(bx[:, 1], bx[:, 3], w, crop_hw[1])
        self.ok_y = (self.in_y >= 0) & (self.in_y <= h - 1)
        self.ok_x = (self.in_x >= 0) & (self.in_x <= w - 1)
        with np.errstate(invalid="ignore"):
            if nearest:
                # C's roundf (half away from zero); coordinates in range are >= 0.
                self.top = np.clip(np.floor(self.in_y + np.float32(0.5)), 0, h - 1).astype(
                    np.int64)
                self.left = np.clip(np.floor(self.in_x + np.float32(0.5)), 0, w - 1).astype(
                    np.int64)
                return
            ty, lx = np.floor(self.in_y), np.floor(self.in_x)
            self.y_lerp = np.where(self.ok_y, self.in_y - ty, 0).astype(np.float32)
            self.x_lerp = np.where(self.ok_x, self.in_x - lx, 0).astype(np.float32)
            self.top = np.clip(ty, 0, h - 1).astype(np.int64)
            self.bottom = np.clip(np.ceil(self.in_y), 0, h - 1).astype(np.int64)
            self.left = np.clip(lx, 0, w - 1).astype(np.int64)
            self.right = np.clip(np.ceil(self.in_x), 0, w - 1).astype(np.int64)

    def valid(self) -> np.ndarray:
        return self.ok_y[:, :, None] & self.ok_x[:, None, :]


def _gather(img: np.ndarray, bi: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    return img[bi[:, None, None], rows[:, :, None], cols[:, None, :]].astype(np.float32)


def _crop_size(ctx: KernelContext, crop_size: Any) -> Tuple[int, int]:
    cs = np.asarray(crop_size).reshape(-1)
    if cs.shape != (2,) or cs.min() <= 0:
        raise invalid(ctx, f"crop_size must be two positive ints, got {cs.tolist()}")
    return int(cs[0]), int(cs[1])


@register_kernel("CropAndResize")
def _crop_and_resize(ctx: KernelContext, image: Any, boxes: Any, box_ind: Any,
                     crop_size: Any) -> np.ndarray:
    img = np.asarray(image)
    if img.ndim != 4 or min(img.shape[1:3]) <= 0:
        raise invalid(ctx, f"image must be 4-D with positive height and width, got "
                           f"{list(img.shape)}")
    bx, bi = _crop_args(ctx, boxes, box_ind, img.shape[0])
    ch, cw = _crop_size(ctx, crop_size)
    nearest = ctx.attrs["method"] == "nearest"
    s = _Sampling(bx, img.shape[1:3], (ch, cw), nearest)
    if nearest:
        out = _gather(img, bi, s.top, s.left)
    else:
        tl, tr = _gather(img, bi, s.top, s.left), _gather(img, bi, s.top, s.right)
        bl, br = _gather(img, bi, s.bottom, s.left), _gather(img, bi, s.bottom, s.right)
        xl = s.x_lerp[:, None, :, None]
        top = tl + (tr - tl) * xl
        bottom = bl + (br - bl) * xl
        out = top + (bottom - top) * s.y_lerp[:, :, None, None]
    return np.where(s.valid()[..., None], out,
                    np.float32(ctx.attrs["extrapolation_value"])).astype(np.float32)


def sum_rows(index: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
    """``out[i] = sum of rows[index == i]``, ``[n, depth]`` float64: one sort and one
    ``reduceat`` instead of an unbuffered ``np.add.at``, many times faster here."""
    out = np.zeros((n, rows.shape[1]), dtype=np.float64)
    if index.size == 0:
        return out
    order = np.argsort(index, kind="stable")
    index = index[order]
    starts = np.flatnonzero(np.concatenate([[True], index[1:] != index[:-1]]))
    out[index[starts]] = np.add.reduceat(rows[order].astype(np.float64), starts, axis=0)
    return out


@register_kernel("CropAndResizeGradImage")
def _crop_grad_image(ctx: KernelContext, grads: Any, boxes: Any, box_ind: Any,
                     image_size: Any) -> np.ndarray:
    g = np.asarray(grads, dtype=np.float32)
    size = [int(v) for v in np.asarray(image_size).reshape(-1)]
    if len(size) != 4 or min(size) < 0:
        raise invalid(ctx, f"image_size must be [batch, height, width, depth], got {size}")
    b, h, w, d = size
    bx, bi = _crop_args(ctx, boxes, box_ind, b)
    if g.ndim != 4 or g.shape[0] != bx.shape[0] or g.shape[3] != d:
        raise invalid(ctx, f"grads has shape {list(g.shape)}, expected [{bx.shape[0]}, "
                           f"crop_height, crop_width, {d}]")
    nearest = ctx.attrs["method"] == "nearest"
    s = _Sampling(bx, (h, w), g.shape[1:3], nearest)
    g = np.where(s.valid()[..., None], g, 0)
    parts: List[Tuple[np.ndarray, np.ndarray]] = []

    def scatter(rows: np.ndarray, cols: np.ndarray, weight: Any) -> None:
        flat = (bi[:, None, None] * h + rows[:, :, None]) * w + cols[:, None, :]
        parts.append((np.broadcast_to(flat, g.shape[:3]).reshape(-1),
                      (g * weight).reshape(-1, d)))

    if nearest:
        scatter(s.top, s.left, 1.0)
    else:
        yl, xl = s.y_lerp[:, :, None, None], s.x_lerp[:, None, :, None]
        scatter(s.top, s.left, (1 - yl) * (1 - xl))
        scatter(s.top, s.right, (1 - yl) * xl)
        scatter(s.bottom, s.left, yl * (1 - xl))
        scatter(s.bottom, s.right, yl * xl)
    out = sum_rows(np.concatenate([p[0] for p in parts]),
                    np.concatenate([p[1] for p in parts]), b * h * w)
    return out.reshape(b, h, w, d).astype(ctx.attrs["T"].np)


@register_kernel("CropAndResizeGradBoxes")
def _crop_grad_boxes(ctx: KernelContext, grads: Any, image: Any, boxes: Any,
                     box_ind: Any) -> np.ndarray:
    g = np.asarray(grads, dtype=np.float32)
    img = np.asarray(image)
    bx, bi = _crop_args(ctx, boxes, box_ind, img.shape[0])
    n, ch, cw = g.shape[:3]
    h, w = img.shape[1:3]
    s = _Sampling(bx, (h, w), (ch, cw), False)
    tl, tr = _gather(img, bi, s.top, s.left), _gather(img, bi, s.top, s.right)
    bl, br = _gather(img, bi, s.bottom, s.left), _gather(img, bi, s.bottom, s.right)
    yl, xl = s.y_lerp[:, :, None, None], s.x_lerp[:, None, :, None]
    # d(sample)/d(coordinate) along each axis, inside the cell the sample falls in.
    d_y = ((1 - xl) * (bl - tl) + xl * (br - tr)) * g
    d_x = ((1 - yl) * (tr - tl) + yl * (br - bl)) * g
    valid = s.valid()[..., None]
    d_y = np.where(valid, d_y, 0).sum(axis=(2, 3), dtype=np.float64)  # [N, ch]
    d_x = np.where(valid, d_x, 0).sum(axis=(1, 3), dtype=np.float64)  # [N, cw]

    def ends(count: int, span: int) -> Tuple[np.ndarray, np.ndarray]:
        if count > 1:
            t = np.arange(count, dtype=np.float64) / (count - 1)
            return (1 - t) * (span - 1), t * (span - 1)
        return np.full(1, 0.5 * (span - 1)), np.full(1, 0.5 * (span - 1))

    lo_y, hi_y = ends(ch, h)
    lo_x, hi_x = ends(cw, w)
    out = np.stack([d_y @ lo_y, d_x @ lo_x, d_y @ hi_y, d_x @ hi_x], axis=1)
    return out.astype(np.float32)


def _iou_with(boxes: np.ndarray, i: int, others: np.ndarray) -> np.ndarray:
    """IoU of box ``i`` with each of ``others`` (corners in either order)."""
    a, o = boxes[i], boxes[others]
    ay0, ay1 = min(a[0], a[2]), max(a[0], a[2])
    ax0, ax1 = min(a[1], a[3]), max(a[1], a[3])
    oy0, oy1 = np.minimum(o[:, 0], o[:, 2]), np.maximum(o[:, 0], o[:, 2])
    ox0, ox1 = np.minimum(o[:, 1], o[:, 3]), np.maximum(o[:, 1], o[:, 3])
    area_a = (ay1 - ay0) * (ax1 - ax0)
    area_o = (oy1 - oy0) * (ox1 - ox0)
    inter = (np.clip(np.minimum(ay1, oy1) - np.maximum(ay0, oy0), 0, None) *
             np.clip(np.minimum(ax1, ox1) - np.maximum(ax0, ox0), 0, None))
    union = area_a + area_o - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        iou = inter / union
    return np.where((area_a <= 0) | (area_o <= 0), 0.0, iou)


def _nms_args(ctx: KernelContext, boxes: Any, scores: Any, max_out: Any, iou_thr: Any
              ) -> Tuple[np.ndarray, np.ndarray, int, float]:
    bx = np.asarray(boxes, dtype=np.float64)
    sc = np.asarray(scores, dtype=np.float64)
    if bx.ndim != 2 or bx.shape[1] != 4:
        raise invalid(ctx, f"boxes must be 2-D [num_boxes, 4], got {list(bx.shape)}")
    if sc.shape != (bx.shape[0],):
        raise invalid(ctx, f"scores has shape {list(sc.shape)}; expected [{bx.shape[0]}]")
    n, thr = int(max_out), float(iou_thr)
    if n < 0:
        raise invalid(ctx, f"max_output_size must be non-negative, got {n}")
    if not 0 <= thr <= 1:
        raise invalid(ctx, f"iou_threshold must be in [0, 1], got {thr}")
    return bx, sc, n, thr


def _hard_nms(bx: np.ndarray, sc: np.ndarray, n: int, thr: float, score_thr: float
              ) -> List[int]:
    order = np.argsort(-sc, kind="stable")
    cand = order[sc[order] > score_thr]
    alive = np.ones(cand.size, dtype=bool)
    keep: List[int] = []
    for k in range(cand.size):
        if len(keep) >= n:
            break
        if not alive[k]:
            continue
        keep.append(int(cand[k]))
        rest = k + 1 + np.flatnonzero(alive[k + 1:])
        alive[rest[_iou_with(bx, int(cand[k]), cand[rest]) > thr]] = False
    return keep


def _soft_nms(bx: np.ndarray, sc: np.ndarray, n: int, thr: float, score_thr: float,
              sigma: float) -> Tuple[List[int], List[float]]:
    # A candidate's score is lowered lazily, only by boxes kept since it last came up;
    # a lowered candidate goes back into the queue to compete with its new score.
    heap = [(-float(s), i, 0) for i, s in enumerate(sc) if s > score_thr]
    heapq.heapify(heap)
    keep: List[int] = []
    kept_scores: List[float] = []
    while heap and len(keep) < n:
        neg, i, seen = heapq.heappop(heap)
        score = original = -neg
        if seen < len(keep):
            ious = _iou_with(bx, i, np.array(keep[seen:], dtype=np.int64))
            for v in ious[::-1]:
                score *= math.exp(-0.5 * v * v / sigma) if v <= thr else 0.0
                if score <= score_thr:
                    break
        if score == original:
            keep.append(i)
            kept_scores.append(score)
        elif score > score_thr:
            heapq.heappush(heap, (-score, i, len(keep)))
    return keep, kept_scores


@register_kernel("NonMaxSuppressionV3")
def _nms_v3(ctx: KernelContext, boxes: Any, scores: Any, max_out: Any, iou_thr: Any,
            score_thr: Any) -> np.ndarray:
    bx, sc, n, thr = _nms_args(ctx, boxes, scores, max_out, iou_thr)
    return np.array(_hard_nms(bx, sc, n, thr, float(score_thr)), dtype=np.int32)


@register_kernel("NonMaxSuppressionV5")
def _nms_v5(ctx: KernelContext, boxes: Any, scores: Any, max_out: Any, iou_thr: Any,
            score_thr: Any, sigma: Any) -> Tuple[np.ndarray, np.ndarray]:
    bx, sc, n, thr = _nms_args(ctx, boxes, scores, max_out, iou_thr)
    sig = float(sigma)
    if sig < 0:
        raise invalid(ctx, f"soft_nms_sigma must be non-negative, got {sig}")
    dt = np.asarray(scores).dtype
    if sig == 0:
        keep = _hard_nms(bx, sc, n, thr, float(score_thr))
        return np.array(keep, dtype=np.int32), sc[keep].astype(dt)
    keep, kept = _soft_nms(bx, sc, n, thr, float(score_thr), sig)
    return np.array(keep, dtype=np.int32), np.array(kept, dtype=dt)


@register_kernel("NonMaxSuppressionWithOverlaps")
def _nms_overlaps(ctx: KernelContext, overlaps: Any, scores: Any, max_out: Any,
                  overlap_thr: Any, score_thr: Any) -> np.ndarray:
    ov = np.asarray(overlaps, dtype=np.float64)
    sc = np.asarray(scores, dtype=np.float64)
    n = int(max_out)
    if ov.ndim != 2 or ov.shape != (sc.size, sc.size) or sc.ndim != 1:
        raise invalid(ctx, f"overlaps must be [num_boxes, num_boxes] and scores [num_boxes], "
                           f"got {list(ov.shape)} and {list(sc.shape)}")
    if n < 0:
        raise invalid(ctx, f"max_output_size must be non-negative, got {n}")
    thr, low = float(overlap_thr), float(score_thr)
    order = np.argsort(-sc, kind="stable")
    alive = sc[order] > low
    keep: List[int] = []
    for k in range(order.size):
        if len(keep) >= n:
            break
        if alive[k]:
            keep.append(int(order[k]))
            # overlaps[candidate, kept]: the matrix need not be symmetric
            alive &= ov[order, order[k]] <= thr
    return np.array(keep, dtype=np.int32)


@register_kernel("CombinedNonMaxSuppression")
def _combined_nms(ctx: KernelContext, boxes: Any, scores: Any, per_class: Any, total: Any,
                  iou_thr: Any, score_thr: Any) -> Tuple[np.ndarray, ...]:
    bx = np.asarray(boxes, dtype=np.float32)
    sc = np.asarray(scores, dtype=np.float32)
    if bx.ndim != 4 or bx.shape[3] != 4 or sc.ndim != 3 or sc.shape[:2] != bx.shape[:2] or \
            bx.shape[2] not in (1, sc.shape[2]):
        raise invalid(ctx, f"boxes must be [batch, num_boxes, 1 or num_classes, 4] and scores "
                           f"[batch, num_boxes, num_classes], got {list(bx.shape)} and "
                           f"{list(sc.shape)}")
    n_per, n_total, thr = int(per_class), int(total), float(iou_thr)
    if n_per < 0 or n_total < 0:
        raise invalid(ctx, f"max_output_size_per_class and max_total_size must be "
                           f"non-negative, got {n_per} and {n_total}")
    if not 0 <= thr <= 1:
        raise invalid(ctx, f"iou_threshold must be in [0, 1], got {thr}")
    batch, _, classes = sc.shape
    rows = min(n_total, n_per * classes) if ctx.attrs["pad_per_class"] else n_total
    out_boxes = np.zeros((batch, rows, 4), np.float32)
    out_scores = np.zeros((batch, rows), np.float32)
    out_classes = np.zeros((batch, rows), np.float32)
    valid = np.zeros(batch, np.int32)
    for b in range(batch):
        found = []  # (score, class, box index)
        for c in range(classes):
            cls_boxes = bx[b, :, c if bx.shape[2] > 1 else 0].astype(np.float64)
            keep = _hard_nms(cls_boxes, sc[b, :, c].astype(np.float64), n_per, thr,
                             float(score_thr))
            found += [(sc[b, i, c], c, i) for i in keep]
        # Best scores first; ties keep the order of the classes, then of the boxes.
        found.sort(key=lambda t: -t[0])
        found = found[:rows]
        valid[b] = len(found)
        for k, (score, c, i) in enumerate(found):
            out_boxes[b, k] = bx[b, i, c if bx.shape[2] > 1 else 0]
            out_scores[b, k], out_classes[b, k] = score, c
    if ctx.attrs["clip_boxes"]:
        np.clip(out_boxes, 0.0, 1.0, out=out_boxes)
    return out_boxes, out_scores, out_classes, valid


@register_kernel("DrawBoundingBoxesV2")
def _draw_boxes(ctx: KernelContext, images: Any, boxes: Any, colors: Any) -> np.ndarray:
    img = np.array(images, copy=True)
    bx = np.asarray(boxes, dtype=np.float32)
    col = np.asarray(colors, dtype=np.float32)
    if img.ndim != 4:
        raise invalid(ctx, f"images must be 4-D [batch, height, width, depth], got "
                           f"{list(img.shape)}")
    b, h, w, d = img.shape
    if d not in (1, 3, 4):
        raise invalid(ctx, f"Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA), "
                           f"got {d}")
    if bx.ndim != 3 or bx.shape[0] != b or bx.shape[2] != 4:
        raise invalid(ctx, f"boxes must be [batch = {b}, num_boxes, 4], got {list(bx.shape)}")
    if col.ndim != 2 or col.shape[0] == 0 or col.shape[1] < d:
        raise invalid(ctx, f"colors must be [num_colors >= 1, >= depth = {d}], got "
                           f"{list(col.shape)}")
    # Pixel rows/columns truncate toward zero, as a C cast does.
    rows = np.trunc(bx[..., 0::2] * np.float32(h - 1)).astype(np.int64)  # [b, n, 2]
    cols = np.trunc(bx[..., 1::2] * np.float32(w - 1)).astype(np.int64)
    for i in range(b):
        for k in range(bx.shape[1]):
            (r0, r1), (c0, c1) = rows[i, k], cols[i, k]
            if r0 > r1 or c0 > c1 or r0 >= h or r1 < 0 or c0 >= w or c1 < 0:
                logger.warning("draw_bounding_boxes: box %d of image %d is inverted or "
                               "outside the image and is not drawn", k, i)
                continue
            color = col[k % col.shape[0], :d].astype(img.dtype)
            rc0, rc1, cc0, cc1 = max(r0, 0), min(r1, h - 1), max(c0, 0), min(c1, w - 1)
            if r0 >= 0:
                img[i, r0, cc0:cc1 + 1] = color
            if r1 < h:
                img[i, r1, cc0:cc1 + 1] = color
            if c0 >= 0:
                img[i, rc0:rc1 + 1, c0] = color
            if c1 < w:
                img[i, rc0:rc1 + 1, c1] = color
    return img


def _random_crop(g: np.random.Generator, h: int, w: int, ratio: float,
                 area_range: List[float]) -> Tuple[int, int, int, int]:
    """One attempt at a crop of aspect ratio ``ratio`` (width / height) whose area is
    in ``area_range`` of the image; ``(y, x, height, width)``, height 0 on failure."""
    min_area, max_area = area_range[0] * h * w, area_range[1] * h * w
    lo = int(round(math.sqrt(min_area / ratio)))
    hi = int(round(math.sqrt(max_area / ratio)))
    # Tallest height whose rounded width still fits the image.
    hi = min(hi, int(math.floor((w + 0.5 - 1e-7) / ratio)), h)
    lo = min(lo, hi)
    ch = lo + int(g.integers(0, hi - lo + 1))
    cw = int(round(ch * ratio))
    if ch * cw < min_area and ch < h and int(round((ch + 1) * ratio)) <= w:
        ch += 1
        cw = int(round(ch * ratio))
    area = ch * cw
    if ch <= 0 or cw <= 0 or ch > h or cw > w or not min_area <= area <= max_area:
        return 0, 0, 0, 0
    return int(g.integers(0, h - ch + 1)), int(g.integers(0, w - cw + 1)), ch, cw


@register_kernel("SampleDistortedBoundingBoxV2")
def _sample_distorted(ctx: KernelContext, image_size: Any, boxes: Any,
                      min_covered: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    size = np.asarray(image_size)
    if size.shape != (3,):
        raise invalid(ctx, f"image_size must be [height, width, channels], got "
                           f"{size.tolist()}")
    h, w = int(size[0]), int(size[1])
    if h <= 0 or w <= 0:
        raise invalid(ctx, f"image height and width must be positive, got {h} x {w}")
    bx = np.asarray(boxes, dtype=np.float64)
    if bx.ndim < 1 or bx.shape[-1] != 4:
        raise invalid(ctx, f"bounding_boxes must be [batch, N, 4], got {list(bx.shape)}")
    bx = bx.reshape(-1, 4)
    if bx.shape[0] == 0:
        if not ctx.attrs["use_image_if_no_bounding_boxes"]:
            raise invalid(ctx, "No bounding boxes provided as input. Set "
                               "use_image_if_no_bounding_boxes=True to use the whole image")
        bx = np.array([[0.0, 0.0, 1.0, 1.0]])
    if (bx < 0).any() or (bx > 1).any() or (bx[:, 0] > bx[:, 2]).any() or \
            (bx[:, 1] > bx[:, 3]).any():
        raise invalid(ctx, "bounding_boxes must be normalised [y_min, x_min, y_max, x_max] "
                           "in [0, 1] with min <= max")
    cover = float(min_covered)
    if cover < 0:
        raise invalid(ctx, f"min_object_covered must be non-negative, got {cover}")
    # Boxes in whole pixels, truncated as an integer cast does.
    py0, px0 = np.trunc(bx[:, 0] * h), np.trunc(bx[:, 1] * w)
    py1, px1 = np.trunc(bx[:, 2] * h), np.trunc(bx[:, 3] * w)
    box_area = (py1 - py0) * (px1 - px0)
    g = generator(ctx)
    ar_lo, ar_hi = ctx.attrs["aspect_ratio_range"]
    crop = (0, 0, h, w)
    for _ in range(ctx.attrs["max_attempts"]):
        y, x, ch, cw = _random_crop(g, h, w, float(g.uniform(ar_lo, ar_hi)),
                                    ctx.attrs["area_range"])
        if ch == 0:
            continue
        inter = (np.clip(np.minimum(py1, y + ch) - np.maximum(py0, y), 0, None) *
                 np.clip(np.minimum(px1, x + cw) - np.maximum(px0, x), 0, None))
        with np.errstate(invalid="ignore", divide="ignore"):
            covered = np.where(box_area > 0, inter / box_area, 0.0)
        if (covered >= cover).any():
            crop = (y, x, ch, cw)
            break
    y, x, ch, cw = crop
    dt = size.dtype
    return (np.array([y, x, 0], dtype=dt), np.array([ch, cw, -1], dtype=dt),
            np.array([[[y / h, x / w, (y + ch) / h, (x + cw) / w]]], dtype=np.float32))
