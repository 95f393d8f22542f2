"""Random and fixed geometric and colour transforms of one image array (``x`` with its
row, column and channel axes given): rotation, shift, shear and zoom as one affine map
(resampled by ``scipy.ndimage``), channel and brightness shifts. The random ones draw from
numpy's global generator, as Keras's do."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from PIL import ImageEnhance

from tensorfleet.keras.preprocessing.image_arrays import array_to_img, img_to_array

_FILL_MODES = ("constant", "nearest", "reflect", "wrap")


def transform_matrix_offset_center(matrix: np.ndarray, x: int, y: int) -> np.ndarray:
    """``matrix`` moved to act about the centre of an ``x`` by ``y`` image."""
    o_x, o_y = float(x) / 2 - 0.5, float(y) / 2 - 0.5
    offset = np.array([[1, 0, o_x], [0, 1, o_y], [0, 0, 1]])
    reset = np.array([[1, 0, -o_x], [0, 1, -o_y], [0, 0, 1]])
    return offset @ matrix @ reset


def apply_affine_transform(x: np.ndarray, theta: float = 0, tx: float = 0, ty: float = 0,
                           shear: float = 0, zx: float = 1, zy: float = 1,
                           row_axis: int = 1, col_axis: int = 2, channel_axis: int = 0,
                           fill_mode: str = "nearest", cval: float = 0.0,
                           order: int = 1) -> np.ndarray:
    """``x`` rotated by ``theta`` degrees, shifted by ``tx`` rows and ``ty`` columns,
    sheared by ``shear`` degrees and zoomed by ``zx``/``zy``, about its centre; points
    from outside are filled per ``fill_mode`` (``cval`` for ``constant``) and values
    interpolated with spline ``order``.

    Raises:
      ValueError: an unknown ``fill_mode``.
    """
    if fill_mode not in _FILL_MODES:
        raise ValueError(f"fill_mode must be one of {_FILL_MODES}, got {fill_mode!r}")
    x = np.asarray(x)
    matrix = None
    if theta != 0:
        t = np.deg2rad(theta)
        matrix = np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
    if tx != 0 or ty != 0:
        shift = np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]])
        matrix = shift if matrix is None else matrix @ shift
    if shear != 0:
        s = np.deg2rad(shear)
        shear_matrix = np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]])
        matrix = shear_matrix if matrix is None else matrix @ shear_matrix
    if zx != 1 or zy != 1:
        zoom = np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]])
        matrix = zoom if matrix is None else matrix @ zoom
    if matrix is None:
        return x
    # loaded on first use, not with every `import tensorfleet` (it takes a noticeable time)
    from scipy import ndimage
    h, w = x.shape[row_axis], x.shape[col_axis]
    matrix = transform_matrix_offset_center(matrix, h, w)
    x = np.rollaxis(x, channel_axis, 0)
    # the matrix maps (row, column) as (x, y); swap when the columns come after the rows
    if col_axis > row_axis:
        matrix[:, [0, 1]] = matrix[:, [1, 0]]
        matrix[[0, 1]] = matrix[[1, 0]]
    channels = [ndimage.affine_transform(c, matrix[:2, :2], matrix[:2, 2], order=order,
                                         mode=fill_mode, cval=cval) for c in x]
    return np.rollaxis(np.stack(channels, axis=0), 0, channel_axis + 1)


def random_rotation(x: np.ndarray, rg: float, row_axis: int = 1, col_axis: int = 2,
                    channel_axis: int = 0, fill_mode: str = "nearest", cval: float = 0.0,
                    interpolation_order: int = 1) -> np.ndarray:
    """``x`` rotated by a random angle in ``[-rg, rg]`` degrees."""
    theta = np.random.uniform(-rg, rg)
    return apply_affine_transform(x, theta=theta, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


def random_shift(x: np.ndarray, wrg: float, hrg: float, row_axis: int = 1, col_axis: int = 2,
                 channel_axis: int = 0, fill_mode: str = "nearest", cval: float = 0.0,
                 interpolation_order: int = 1) -> np.ndarray:
    """``x`` shifted by random fractions of its height (``hrg``) and width (``wrg``)."""
    h, w = x.shape[row_axis], x.shape[col_axis]
    tx = np.random.uniform(-hrg, hrg) * h
    ty = np.random.uniform(-wrg, wrg) * w
    return apply_affine_transform(x, tx=tx, ty=ty, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


def random_shear(x: np.ndarray, intensity: float, row_axis: int = 1, col_axis: int = 2,
                 channel_axis: int = 0, fill_mode: str = "nearest", cval: float = 0.0,
                 interpolation_order: int = 1) -> np.ndarray:
    """``x`` sheared by a random angle in ``[-intensity, intensity]`` degrees."""
    shear = np.random.uniform(-intensity, intensity)
    return apply_affine_transform(x, shear=shear, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


def random_zoom(x: np.ndarray, zoom_range: Sequence[float], row_axis: int = 1,
                col_axis: int = 2, channel_axis: int = 0, fill_mode: str = "nearest",
                cval: float = 0.0, interpolation_order: int = 1) -> np.ndarray:
    """``x`` zoomed by random factors in ``zoom_range`` (two numbers) along each axis.

    Raises:
      ValueError: ``zoom_range`` is not two numbers.
    """
    if len(zoom_range) != 2:
        raise ValueError(f"`zoom_range` should be a tuple or list of two floats. Received: "
                         f"{zoom_range}")
    if zoom_range[0] == 1 and zoom_range[1] == 1:
        zx = zy = 1
    else:
        zx, zy = np.random.uniform(zoom_range[0], zoom_range[1], 2)
    return apply_affine_transform(x, zx=zx, zy=zy, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


def apply_channel_shift(x: np.ndarray, intensity: float, channel_axis: int = 0) -> np.ndarray:
    """``x`` with ``intensity`` added to every channel, clipped to its value range."""
    x = np.rollaxis(np.asarray(x), channel_axis, 0)
    low, high = np.min(x), np.max(x)
    x = np.stack([np.clip(c + intensity, low, high) for c in x], axis=0)
    return np.rollaxis(x, 0, channel_axis + 1)


def random_channel_shift(x: np.ndarray, intensity_range: float,
                         channel_axis: int = 0) -> np.ndarray:
    """``x`` with a random intensity in ``[-intensity_range, intensity_range]`` added to
    every channel."""
    intensity = np.random.uniform(-intensity_range, intensity_range)
    return apply_channel_shift(x, intensity, channel_axis=channel_axis)


def apply_brightness_shift(x: np.ndarray, brightness: float, scale: bool = True) -> np.ndarray:
    """``x`` (a channels-last image) with its brightness multiplied by ``brightness``
    (PIL's brightness enhancement), back at its value range when ``scale``."""
    x_min, x_max = np.min(x), np.max(x)
    local_scale = (x_min < 0) or (x_max > 255)
    img = array_to_img(x, scale=local_scale or scale)
    img = ImageEnhance.Brightness(img).enhance(brightness)
    x = img_to_array(img)
    if not scale and local_scale:
        x = x / 255 * (x_max - x_min) + x_min
    return x


def random_brightness(x: np.ndarray, brightness_range: Sequence[float],
                      scale: bool = True) -> np.ndarray:
    """``x`` with its brightness multiplied by a random factor in ``brightness_range``.

    Raises:
      ValueError: ``brightness_range`` is not two numbers.
    """
    if len(brightness_range) != 2:
        raise ValueError(f"`brightness_range should be tuple or list of two floats. "
                         f"Received: {brightness_range}")
    return apply_brightness_shift(x, np.random.uniform(brightness_range[0],
                                                       brightness_range[1]), scale)
