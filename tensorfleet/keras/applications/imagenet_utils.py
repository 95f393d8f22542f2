"""ImageNet input preprocessing and the decoding of 1000-class predictions.

``preprocess_input`` applies one of the three conventions the published weights were
trained with (``caffe``: BGR, mean-centred; ``tf``: scaled to [-1, 1]; ``torch``: [0, 1],
then per-channel mean and deviation), to numpy arrays or graph tensors.
``decode_predictions`` names the top classes from ``imagenet_class_index.json`` in the
Keras cache (``~/.keras/models``); nothing is downloaded.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from tensorfleet.framework.graph import Tensor
from tensorfleet.keras import backend as K
from tensorfleet.keras.utils import get_file
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.sort_ops import reverse

logger = logging.getLogger(__name__)

CLASS_INDEX_URL = ("https://storage.googleapis.com/download.tensorflow.org/data/"
                   "imagenet_class_index.json")
_CLASS_INDEX_FILE = "imagenet_class_index.json"
_CLASS_INDEX_MAX_BYTES = 1 << 20  # the published file is 35 KB

_CAFFE_MEAN_BGR = (103.939, 116.779, 123.68)
_TORCH_MEAN = (0.485, 0.456, 0.406)
_TORCH_STD = (0.229, 0.224, 0.225)
_MODES = ("caffe", "tf", "torch")


def _channel_axis(data_format: Optional[str], ndim: int) -> int:
    data_format = data_format or K.image_data_format()
    if data_format == "channels_last":
        return ndim - 1
    if data_format == "channels_first":
        if ndim < 3:
            raise ValueError(f"preprocess_input: channels_first input needs at least 3 "
                             f"dimensions, got {ndim}")
        return ndim - 3
    raise ValueError(f"preprocess_input: data_format must be 'channels_last' or "
                     f"'channels_first', got {data_format!r}")


def _per_channel(values: Tuple[float, ...], axis: int, ndim: int) -> np.ndarray:
    shape = [1] * ndim
    shape[axis] = len(values)
    return np.asarray(values, dtype=K.floatx()).reshape(shape)


def preprocess_input(x: Any, data_format: Optional[str] = None, mode: str = "caffe") -> Any:
    """``x`` (a batch of images or one image, pixel values 0-255, RGB) prepared as the
    ``mode`` convention expects. A numpy array gives a new float array (the input is
    left unchanged); a tensor gives a tensor.

    Raises:
      ValueError: an unknown ``mode`` or ``data_format``, or a channel axis that does
        not hold 3 channels for the ``caffe`` and ``torch`` modes.
    """
    if mode not in _MODES:
        raise ValueError(f"preprocess_input: mode must be one of {_MODES}, got {mode!r}")
    symbolic = isinstance(x, Tensor)
    if symbolic:
        ndim = x.shape.ndims
        if ndim is None:
            raise ValueError("preprocess_input: the tensor's rank must be known")
        if not x.dtype.is_floating:
            x = A.cast(x, K.floatx())
    else:
        x = np.array(x, dtype=None, copy=True)
        if not np.issubdtype(x.dtype, np.floating):
            x = x.astype(K.floatx())
        ndim = x.ndim
    axis = _channel_axis(data_format, ndim)
    if mode == "tf":
        return x / 127.5 - 1.0
    channels = (x.shape.as_list() if symbolic else x.shape)[axis]
    if channels is not None and channels != 3:
        raise ValueError(f"preprocess_input: mode {mode!r} expects 3 channels on axis "
                         f"{axis}, got {channels}")
    if mode == "torch":
        mean = _per_channel(_TORCH_MEAN, axis, ndim)
        std = _per_channel(_TORCH_STD, axis, ndim)
        return (x / 255.0 - mean) / std
    # caffe: RGB to BGR, then the BGR channel means subtracted
    x = reverse(x, [axis]) if symbolic else np.flip(x, axis)
    mean = _per_channel(_CAFFE_MEAN_BGR, axis, ndim)
    return M.subtract(x, mean) if symbolic else x - mean


def preprocess_nothing(x: Any, data_format: Optional[str] = None) -> Any:
    """The input unchanged, for the models that rescale and normalize their input
    themselves (``preprocess_input`` of EfficientNet, ConvNeXt, RegNet ...).

    Raises:
      ValueError: an unknown ``data_format``.
    """
    if data_format not in (None, "channels_last", "channels_first"):
        raise ValueError(f"preprocess_input: unknown data_format {data_format!r}")
    return x


def normalize_imagenet_unit_range(x: Any) -> Any:
    """``x`` in [0, 1] normalized by the ImageNet channel means and deviations (fixed
    constants, where Keras's models hold them in a Normalization layer without weights)."""
    return (x - np.asarray(_TORCH_MEAN, np.float32)) / np.asarray(_TORCH_STD, np.float32)


def _read_class_index() -> Dict[str, List[str]]:
    path = get_file(_CLASS_INDEX_FILE, CLASS_INDEX_URL, cache_subdir="models")
    with open(path, "rb") as f:
        raw = f.read(_CLASS_INDEX_MAX_BYTES + 1)
    if len(raw) > _CLASS_INDEX_MAX_BYTES:
        raise ValueError(f"{path}: larger than {_CLASS_INDEX_MAX_BYTES} bytes; not an "
                         f"ImageNet class index")
    index = json.loads(raw.decode("utf-8"))
    ok = isinstance(index, dict) and all(
        str(i) in index and isinstance(index[str(i)], list) and len(index[str(i)]) == 2
        and all(isinstance(s, str) for s in index[str(i)]) for i in range(1000))
    if not ok:
        raise ValueError(f"{path}: not an ImageNet class index (a JSON object mapping "
                         f"'0'..'999' to [wordnet_id, class_name])")
    return index


def decode_predictions(preds: Any, top: int = 5) -> List[List[Tuple[str, str, float]]]:
    """For each row of ``preds`` (shape ``(samples, 1000)``), its ``top`` classes as
    ``(wordnet_id, class_name, score)``, highest score first.

    Raises:
      ValueError: ``preds`` is not ``(samples, 1000)``, or the class index file is not
        the ImageNet one.
      FileNotFoundError: ``imagenet_class_index.json`` is not in the Keras cache; the
        message names the path and the URL it is published at.
    """
    preds = np.asarray(preds)
    if preds.ndim != 2 or preds.shape[1] != 1000:
        raise ValueError(f"decode_predictions expects a batch of predictions (a 2-D array "
                         f"of shape (samples, 1000)), got shape {preds.shape}")
    if int(top) < 1:
        raise ValueError(f"decode_predictions: top must be at least 1, got {top}")
    index = _read_class_index()
    results = []
    for row in preds:
        best = np.argsort(row, kind="stable")[::-1][:int(top)]
        results.append([(index[str(i)][0], index[str(i)][1], row[i]) for i in best])
    return results


__all__ = ["preprocess_input", "decode_predictions"]
