"""``tf.image`` ops on bounding boxes: crop-and-resize, non-max suppression, drawing
boxes and sampling distorted crops.

A box is ``[y_min, x_min, y_max, x_max]`` in normalised coordinates: 0 and 1 are the
first and last pixel rows/columns (``y * (height - 1)`` is the pixel row). Kernels
are in ``kernels/numpy/image_boxes_kernels.py``; the gradients of ``crop_and_resize``
(with respect to the image and the boxes) in ``gradients/image_grad.py``.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops
from tensorfleet.ops.op_util import const_value, make_op, make_tensor, same_shape

_FLOATS = (_dtypes.float16, _dtypes.float32, _dtypes.float64)


def _crop_shape(op: Operation) -> List[TensorShape]:
    img, boxes = op.inputs[0].shape, op.inputs[1].shape
    if img.ndims is not None and img.ndims != 4:
        raise ValueError(f"image must be 4-D [batch, height, width, depth], got shape {img}")
    if boxes.ndims is not None and (boxes.ndims != 2 or boxes.as_list()[1] not in (None, 4)):
        raise ValueError(f"boxes must be 2-D [num_boxes, 4], got shape {boxes}")
    size = const_value(op.inputs[3])
    hw = [None, None] if size is None else [int(v) for v in size]
    n = boxes.as_list()[0] if boxes.ndims == 2 else None
    return [TensorShape([n] + hw + [img.as_list()[3] if img.ndims == 4 else None])]


def _nms_shape(op: Operation) -> List[TensorShape]:
    boxes, scores = op.inputs[0].shape, op.inputs[1].shape
    if boxes.ndims is not None and (boxes.ndims != 2 or boxes.as_list()[1] not in (None, 4)):
        raise ValueError(f"boxes must be 2-D [num_boxes, 4], got shape {boxes}")
    if scores.ndims is not None and scores.ndims != 1:
        raise ValueError(f"scores must be 1-D [num_boxes], got shape {scores}")
    return [TensorShape([None]) for _ in op.outputs]


def _sample_shape(op: Operation) -> List[TensorShape]:
    return [TensorShape([3]), TensorShape([3]), TensorShape([1, 1, 4])]


register_op("CropAndResize", _crop_shape)
register_op("CropAndResizeGradImage", lambda op: [TensorShape(
    [None, None, None, None]) if const_value(op.inputs[3]) is None else TensorShape(
    [int(v) for v in const_value(op.inputs[3])])])
register_op("CropAndResizeGradBoxes", lambda op: [op.inputs[2].shape])
register_op("NonMaxSuppressionV3", _nms_shape)
register_op("NonMaxSuppressionV5", _nms_shape)
register_op("NonMaxSuppressionWithOverlaps", lambda op: [TensorShape([None])])


def _combined_nms_shape(op: Operation) -> List[TensorShape]:
    boxes, scores = op.inputs[0].shape, op.inputs[1].shape
    if boxes.ndims is not None and (boxes.ndims != 4 or boxes.as_list()[3] not in (None, 4)):
        raise ValueError(f"boxes must be [batch, num_boxes, q, 4], got shape {boxes}")
    if scores.ndims is not None and scores.ndims != 3:
        raise ValueError(f"scores must be [batch, num_boxes, num_classes], got shape {scores}")
    b = boxes.as_list()[0] if boxes.ndims == 4 else None
    per_class, total = const_value(op.inputs[2]), const_value(op.inputs[3])
    classes = scores.as_list()[2] if scores.ndims == 3 else None
    det = None if total is None else int(total)
    if op.attrs["pad_per_class"] and det is not None:
        det = None if per_class is None or classes is None else min(det, int(per_class) *
                                                                     classes)
    return [TensorShape([b, det, 4]), TensorShape([b, det]), TensorShape([b, det]),
            TensorShape([b])]


register_op("CombinedNonMaxSuppression", _combined_nms_shape)
register_op("DrawBoundingBoxesV2", same_shape)
register_op("SampleDistortedBoundingBoxV2", _sample_shape, stateful=True)


def _float_tensor(x: Any, name: str, fname: str) -> Tensor:
    t = x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=_dtypes.float32, name=name)
    if t.dtype not in _FLOATS:
        raise TypeError(f"{fname}: {name} must be a float tensor, got {t.dtype.name}")
    return t


def crop_and_resize(image: Any, boxes: Any, box_ind: Any = None, crop_size: Any = None,
                    method: str = "bilinear", extrapolation_value: float = 0,
                    name: Optional[str] = None, box_indices: Any = None) -> Tensor:
    """Crops boxes out of a batch of images and resizes each crop to ``crop_size``.

    Args:
      image: ``[batch, height, width, depth]`` of any real dtype.
      boxes: float32 ``[num_boxes, 4]``, ``[y1, x1, y2, x2]`` normalised; ``y1 > y2``
        flips the crop, coordinates outside [0, 1] extrapolate.
      box_ind: int32 ``[num_boxes]``, the image of each box (``box_indices`` is the
        later name of the same argument).
      crop_size: int32 ``[crop_height, crop_width]``, both positive.
      method: ``"bilinear"`` or ``"nearest"``.
      extrapolation_value: the value of samples outside the image.

    Returns:
      float32 ``[num_boxes, crop_height, crop_width, depth]``.

    Raises:
      ValueError: an unknown ``method``, a bad ``crop_size``, or both or neither of
        ``box_ind`` and ``box_indices``.
    """
    if (box_ind is None) == (box_indices is None):
        raise ValueError("crop_and_resize: give exactly one of box_ind and box_indices")
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"crop_and_resize: method must be 'bilinear' or 'nearest', got "
                         f"{method!r}")
    if crop_size is None:
        raise ValueError("crop_and_resize: crop_size is required")
    with name_scope(name, "CropAndResize"):
        img = convert_to_tensor(image, name="image")
        bx = convert_to_tensor(boxes, dtype=_dtypes.float32, name="boxes")
        bi = convert_to_tensor(box_ind if box_indices is None else box_indices,
                               dtype=_dtypes.int32, name="box_ind")
        size = convert_to_tensor(crop_size, dtype=_dtypes.int32, name="crop_size")
        static = const_value(size)
        if static is not None and (static.shape != (2,) or min(static) <= 0):
            raise ValueError(f"crop_and_resize: crop_size must be 2 positive ints, got "
                             f"{static.tolist()}")
        return make_tensor("CropAndResize", [img, bx, bi, size], _dtypes.float32,
                           {"method": method,
                            "extrapolation_value": float(extrapolation_value)},
                           name="CropAndResize")


def _nms(boxes: Any, scores: Any, max_output_size: Any, iou_threshold: Any,
         score_threshold: Any, soft_nms_sigma: Optional[Any], name: Optional[str]
         ) -> Operation:
    with name_scope(name, "non_max_suppression"):
        bx = _float_tensor(boxes, "boxes", "non_max_suppression")
        sc = convert_to_tensor(scores, dtype=bx.dtype, name="scores")
        n = convert_to_tensor(max_output_size, dtype=_dtypes.int32, name="max_output_size")
        iou = convert_to_tensor(iou_threshold, dtype=bx.dtype, name="iou_threshold")
        thr = convert_to_tensor(score_threshold, dtype=bx.dtype, name="score_threshold")
        if soft_nms_sigma is None:
            return make_op("NonMaxSuppressionV3", [bx, sc, n, iou, thr], [_dtypes.int32],
                           {}, name="NonMaxSuppressionV3")
        sigma = convert_to_tensor(soft_nms_sigma, dtype=bx.dtype, name="soft_nms_sigma")
        return make_op("NonMaxSuppressionV5", [bx, sc, n, iou, thr, sigma],
                       [_dtypes.int32, bx.dtype], {}, name="NonMaxSuppressionV5")


def non_max_suppression(boxes: Any, scores: Any, max_output_size: Any,
                        iou_threshold: Any = 0.5, score_threshold: Any = float("-inf"),
                        name: Optional[str] = None) -> Tensor:
    """Greedy non-max suppression: indices (int32) of up to ``max_output_size`` boxes,
    highest score first, dropping every box whose IoU with a kept one is above
    ``iou_threshold`` and every box scoring ``score_threshold`` or less. Ties keep
    the lower index first."""
    return _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, None,
                name).outputs[0]


def non_max_suppression_with_scores(boxes: Any, scores: Any, max_output_size: Any,
                                    iou_threshold: Any = 0.5,
                                    score_threshold: Any = float("-inf"),
                                    soft_nms_sigma: Any = 0.0,
                                    name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """Non-max suppression returning ``(selected_indices, selected_scores)``.

    With ``soft_nms_sigma > 0`` a kept box lowers the score of each overlapping box
    by ``exp(-iou^2 / (2 * soft_nms_sigma))`` (still dropping those above
    ``iou_threshold``) instead of dropping them, and the scores returned are the
    lowered ones (Soft-NMS, Bodla et al. 2017).
    """
    op = _nms(boxes, scores, max_output_size, iou_threshold, score_threshold,
              soft_nms_sigma, name)
    return op.outputs[0], op.outputs[1]


def non_max_suppression_padded(boxes: Any, scores: Any, max_output_size: int,
                               iou_threshold: Any = 0.5, score_threshold: Any = float("-inf"),
                               pad_to_max_output_size: bool = False,
                               name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """``non_max_suppression`` returning ``(selected_indices, num_valid)``; with
    ``pad_to_max_output_size`` the indices are padded with 0 to ``max_output_size``.

    Raises:
      ValueError: ``max_output_size`` not a non-negative int when padding.
    """
    with name_scope(name, "non_max_suppression_padded"):
        idx = non_max_suppression(boxes, scores, max_output_size, iou_threshold,
                                  score_threshold)
        valid = array_ops.size(idx, out_type=_dtypes.int32)
        if not pad_to_max_output_size:
            return idx, valid
        if not isinstance(max_output_size, int) or max_output_size < 0:
            raise ValueError(f"non_max_suppression_padded: padding needs max_output_size as "
                             f"a non-negative int, got {max_output_size!r}")
        padded = array_ops.pad(idx, array_ops.reshape(
            array_ops.stack([0, max_output_size - valid]), [1, 2]))
        padded.set_shape([max_output_size])
        return padded, valid


def non_max_suppression_overlaps(overlaps: Any, scores: Any, max_output_size: Any,
                                 overlap_threshold: Any = 0.5,
                                 score_threshold: Any = float("-inf"),
                                 name: Optional[str] = None) -> Tensor:
    """Greedy non-max suppression with a given ``[n, n]`` overlap matrix in place of box
    IoUs: a box is dropped when its overlap with a kept one is above
    ``overlap_threshold``. Returns int32 indices, highest score first."""
    with name_scope(name, "non_max_suppression_overlaps"):
        ov = _float_tensor(overlaps, "overlaps", "non_max_suppression_overlaps")
        sc = convert_to_tensor(scores, dtype=ov.dtype, name="scores")
        n = convert_to_tensor(max_output_size, dtype=_dtypes.int32, name="max_output_size")
        thr = convert_to_tensor(overlap_threshold, dtype=ov.dtype, name="overlap_threshold")
        st = convert_to_tensor(score_threshold, dtype=ov.dtype, name="score_threshold")
        return make_tensor("NonMaxSuppressionWithOverlaps", [ov, sc, n, thr, st],
                           _dtypes.int32, {}, name="NonMaxSuppressionWithOverlaps")


def combined_non_max_suppression(boxes: Any, scores: Any, max_output_size_per_class: Any,
                                 max_total_size: Any, iou_threshold: Any = 0.5,
                                 score_threshold: Any = float("-inf"),
                                 pad_per_class: bool = False, clip_boxes: bool = True,
                                 name: Optional[str] = None
                                 ) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    """Per-class non-max suppression over a batch, then the best detections overall.

    Args:
      boxes: float32 ``[batch, num_boxes, q, 4]``; ``q`` is 1 (one box for every
        class) or ``num_classes``.
      scores: float32 ``[batch, num_boxes, num_classes]``.
      max_output_size_per_class: boxes kept per class; ``max_total_size`` overall.
      pad_per_class: pad to ``min(max_total_size, max_output_size_per_class *
        num_classes)`` rows instead of ``max_total_size``.
      clip_boxes: clip the returned coordinates to [0, 1].

    Returns:
      ``(nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections)``: per image the
      detections by decreasing score, zero-padded; classes as floats; int32 counts.
    """
    with name_scope(name, "combined_non_max_suppression"):
        bx = convert_to_tensor(boxes, dtype=_dtypes.float32, name="boxes")
        sc = convert_to_tensor(scores, dtype=_dtypes.float32, name="scores")
        per = convert_to_tensor(max_output_size_per_class, dtype=_dtypes.int32,
                                name="max_output_size_per_class")
        total = convert_to_tensor(max_total_size, dtype=_dtypes.int32, name="max_total_size")
        iou = convert_to_tensor(iou_threshold, dtype=_dtypes.float32, name="iou_threshold")
        thr = convert_to_tensor(score_threshold, dtype=_dtypes.float32, name="score_threshold")
        op = make_op("CombinedNonMaxSuppression", [bx, sc, per, total, iou, thr],
                     [_dtypes.float32, _dtypes.float32, _dtypes.float32, _dtypes.int32],
                     {"pad_per_class": bool(pad_per_class), "clip_boxes": bool(clip_boxes)},
                     name="CombinedNonMaxSuppression")
        return op.outputs[0], op.outputs[1], op.outputs[2], op.outputs[3]


def draw_bounding_boxes(images: Any, boxes: Any, name: Optional[str] = None,
                        colors: Any = None) -> Tensor:
    """Draws one-pixel box outlines over a float ``[batch, height, width, depth]``
    batch; ``boxes`` is ``[batch, num_boxes, 4]``. Box ``i`` takes colour ``i`` modulo
    the table (``colors``, ``[num_colors, >= depth]``, or a default table of ten);
    later boxes are drawn over earlier ones, sides outside the image are skipped."""
    with name_scope(name, "draw_bounding_boxes"):
        img = convert_to_tensor(images, name="images")
        if img.dtype not in (_dtypes.float16, _dtypes.float32):
            raise TypeError(f"draw_bounding_boxes: images must be float16 or float32, got "
                            f"{img.dtype.name}")
        if img.shape.ndims is not None and img.shape.ndims != 4:
            raise ValueError(f"draw_bounding_boxes: images must be 4-D, got {img.shape}")
        bx = convert_to_tensor(boxes, dtype=_dtypes.float32, name="boxes")
        if bx.shape.ndims is not None and (bx.shape.ndims != 3 or
                                           bx.shape.as_list()[2] not in (None, 4)):
            raise ValueError(f"draw_bounding_boxes: boxes must be [batch, num_boxes, 4], "
                             f"got {bx.shape}")
        col = convert_to_tensor(_default_colors() if colors is None else colors,
                                dtype=_dtypes.float32, name="colors")
        if col.shape.ndims is not None and col.shape.ndims != 2:
            raise ValueError(f"draw_bounding_boxes: colors must be [num_colors, depth], got "
                             f"{col.shape}")
        return make_tensor("DrawBoundingBoxesV2", [img, bx, col], img.dtype, {},
                           name="DrawBoundingBoxesV2")


def _default_colors() -> List[List[float]]:
    return [[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1],
            [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]]


def _range_pair(v: Optional[Sequence[float]], default: Tuple[float, float],
                what: str) -> List[float]:
    vals = list(default if v is None else v)
    if len(vals) != 2 or not vals[0] <= vals[1]:
        raise ValueError(f"sample_distorted_bounding_box: {what} must be [min, max] with "
                         f"min <= max, got {v!r}")
    return [float(x) for x in vals]


def sample_distorted_bounding_box(image_size: Any, bounding_boxes: Any,
                                  seed: Optional[int] = None, seed2: Optional[int] = None,
                                  min_object_covered: Any = 0.1,
                                  aspect_ratio_range: Optional[Sequence[float]] = None,
                                  area_range: Optional[Sequence[float]] = None,
                                  max_attempts: Optional[int] = None,
                                  use_image_if_no_bounding_boxes: Optional[bool] = None,
                                  name: Optional[str] = None
                                  ) -> Tuple[Tensor, Tensor, Tensor]:
    """Samples a random crop of an image that covers enough of one of its boxes.

    Each attempt draws an aspect ratio (width / height) from ``aspect_ratio_range``
    and an area fraction from ``area_range``, rounds them to a whole-pixel crop at a
    random position, and accepts it when it holds at least ``min_object_covered`` of
    some box's area. After ``max_attempts`` (100) failures the whole image is the crop.

    Args:
      image_size: ``[height, width, channels]`` (an integer dtype).
      bounding_boxes: float32 ``[batch, N, 4]`` normalised boxes; all of them count.
      seed, seed2: with either set (non-zero) a new session replays the same sequence
        of crops; with neither the crops are nondeterministic. The graph-level seed
        is not used.
      use_image_if_no_bounding_boxes: with no boxes, use the whole image as the box
        (otherwise no boxes is an error at run time).

    Returns:
      ``(begin, size, bboxes)``: ``[offset_y, offset_x, 0]`` and ``[h, w, -1]`` for
      ``tf.slice``, and the crop as a ``[1, 1, 4]`` normalised box.
    """
    ar = _range_pair(aspect_ratio_range, (0.75, 1.33), "aspect_ratio_range")
    area = _range_pair(area_range, (0.05, 1.0), "area_range")
    if ar[0] <= 0 or not 0 < area[1] <= 1 or area[0] < 0:
        raise ValueError(f"sample_distorted_bounding_box: aspect ratios must be positive and "
                         f"areas in (0, 1], got {ar} and {area}")
    attempts = 100 if max_attempts is None else max_attempts
    if not isinstance(attempts, int) or attempts < 1:
        raise ValueError(f"sample_distorted_bounding_box: max_attempts must be a positive "
                         f"int, got {max_attempts!r}")
    with name_scope(name, "sample_distorted_bounding_box"):
        size = convert_to_tensor(image_size, name="image_size")
        if not size.dtype.is_integer:
            raise TypeError(f"sample_distorted_bounding_box: image_size must be an integer "
                            f"tensor, got {size.dtype.name}")
        bx = convert_to_tensor(bounding_boxes, dtype=_dtypes.float32, name="bounding_boxes")
        cover = convert_to_tensor(min_object_covered, dtype=_dtypes.float32,
                                  name="min_object_covered")
        # As TensorFlow's op: the two seeds are used as given (the graph seed plays no
        # part) and both unset or 0 means a nondeterministic crop.
        seeded = bool(seed) or bool(seed2)
        attrs = {"seed": int(seed or 0) if seeded else None,
                 "seed2": int(seed2 or 0) if seeded else None,
                 "aspect_ratio_range": ar, "area_range": area, "max_attempts": attempts,
                 "use_image_if_no_bounding_boxes": bool(use_image_if_no_bounding_boxes)}
        op = make_op("SampleDistortedBoundingBoxV2", [size, bx, cover],
                     [size.dtype, size.dtype, _dtypes.float32], attrs,
                     name="SampleDistortedBoundingBoxV2")
        return op.outputs[0], op.outputs[1], op.outputs[2]


__all__ = ["crop_and_resize", "non_max_suppression", "non_max_suppression_with_scores",
           "non_max_suppression_padded", "non_max_suppression_overlaps",
           "combined_non_max_suppression",
           "draw_bounding_boxes", "sample_distorted_bounding_box"]
