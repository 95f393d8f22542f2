"""Images as numpy arrays and back: ``load_img`` (a PIL image from a file, resized),
``img_to_array``, ``array_to_img`` and ``save_img``, as ``tf.keras.utils`` and
``tf.keras.preprocessing.image`` give them."""

from __future__ import annotations

import io
import os
from typing import Any, Optional, Tuple

import numpy as np
from PIL import Image

from tensorfleet.keras import backend as K

_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")
_COLOR_MODES = ("grayscale", "rgb", "rgba")
# a decompression bomb guard: images larger than this many pixels are refused
_MAX_PIXELS = 1 << 28


def _resample(interpolation: str) -> Any:
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"Invalid interpolation method {interpolation!r}; supported: "
                         f"{', '.join(_INTERPOLATIONS)}")
    return getattr(Image.Resampling, interpolation.upper())


def _data_format(data_format: Optional[str]) -> str:
    data_format = data_format or K.image_data_format()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Unknown data_format: {data_format!r}")
    return data_format


def load_img(path: Any, grayscale: bool = False, color_mode: str = "rgb",
             target_size: Optional[Tuple[int, int]] = None, interpolation: str = "nearest",
             keep_aspect_ratio: bool = False) -> Any:
    """The image at ``path`` (a path or a file-like object) as a PIL image in
    ``color_mode``, resized to ``target_size`` ``(height, width)`` if given
    (centre-cropped to its aspect ratio first with ``keep_aspect_ratio``).

    Raises:
      ValueError: an unknown ``color_mode`` or ``interpolation``, or an image of more
        than 2**28 pixels.
    """
    if grayscale:
        color_mode = "grayscale"
    if color_mode not in _COLOR_MODES:
        raise ValueError(f'color_mode must be "grayscale", "rgb", or "rgba", got '
                         f'{color_mode!r}')
    if isinstance(path, (str, bytes, os.PathLike)):
        with open(path, "rb") as f:
            img = Image.open(io.BytesIO(f.read()))
    elif hasattr(path, "read"):
        img = Image.open(io.BytesIO(path.read()))
    else:
        raise TypeError(f"path should be a path or a file-like object, got {type(path)}")
    if img.width * img.height > _MAX_PIXELS:
        raise ValueError(f"load_img: {img.width}x{img.height} pixels is more than "
                         f"{_MAX_PIXELS}")
    mode = {"grayscale": ("L", "I;16", "I"), "rgba": ("RGBA",), "rgb": ("RGB",)}[color_mode]
    if img.mode not in mode:
        img = img.convert(mode[0])
    if target_size is not None:
        width_height = (target_size[1], target_size[0])
        if img.size != width_height:
            resample = _resample(interpolation)
            if keep_aspect_ratio:
                width, height = img.size
                crop_h = min(height, int(width * target_size[0] / target_size[1]))
                crop_w = min(width, int(height * target_size[1] / target_size[0]))
                top, left = (height - crop_h) // 2, (width - crop_w) // 2
                img = img.crop((left, top, left + crop_w, top + crop_h))
            img = img.resize(width_height, resample)
    return img


def img_to_array(img: Any, data_format: Optional[str] = None,
                 dtype: Optional[str] = None) -> np.ndarray:
    """A PIL image as a 3-D array (height, width, channels), or channels first.

    Raises:
      ValueError: an unknown ``data_format`` or an image that is not 2-D or 3-D.
    """
    data_format = _data_format(data_format)
    x = np.asarray(img, dtype=dtype or K.floatx())
    if x.ndim == 3:
        return x.transpose(2, 0, 1) if data_format == "channels_first" else x
    if x.ndim == 2:
        return x[None] if data_format == "channels_first" else x[..., None]
    raise ValueError(f"Unsupported image shape: {x.shape}")


def array_to_img(x: Any, data_format: Optional[str] = None, scale: bool = True,
                 dtype: Optional[str] = None) -> Any:
    """A 3-D array as a PIL image: 1 channel gives grayscale, 3 RGB, 4 RGBA; ``scale``
    maps the values' range onto 0-255 first.

    Raises:
      ValueError: not a 3-D array, an unknown ``data_format``, or 2 or more than 4
        channels.
    """
    data_format = _data_format(data_format)
    x = np.asarray(x, dtype=dtype or K.floatx())
    if x.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array "
                         f"with shape: {x.shape}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        top = np.max(x)
        if top != 0:
            x = x / top
        x = x * 255
    channels = x.shape[2]
    if channels == 4:
        return Image.fromarray(x.astype("uint8"), "RGBA")
    if channels == 3:
        return Image.fromarray(x.astype("uint8"), "RGB")
    if channels == 1:
        if np.max(x) > 255:
            return Image.fromarray(x[:, :, 0].astype("int32"), "I")
        return Image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {channels}")


def save_img(path: Any, x: Any, data_format: Optional[str] = None,
             file_format: Optional[str] = None, scale: bool = True, **kwargs: Any) -> None:
    """Writes the 3-D array ``x`` as an image file (format from ``file_format`` or the
    file name); ``kwargs`` go to PIL's ``save``. RGBA is written as RGB to JPEG."""
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and (file_format == "jpg" or file_format == "jpeg" or
                               str(path).lower().endswith((".jpg", ".jpeg"))):
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)
