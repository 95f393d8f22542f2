"""``tf.image`` measures, edges and padding: ``total_variation``, ``psnr``, ``ssim``,
``ssim_multiscale``, ``image_gradients``, ``sobel_edges`` and ``resize_image_with_pad``.

All of them are compositions of existing ops, so their gradients come from those
ops'. Images are ``[..., height, width, channels]``; the measures reduce the last
three axes and keep the leading (batch) ones.
"""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops, math_ops, nn_ops
from tensorfleet.ops import nn_conv_variant_ops
from tensorfleet.ops.image_ops import ResizeMethod, convert_image_dtype, image_rank, \
    resize_images
from tensorfleet.ops.image_adjust_ops import pad_to_bounding_box


def total_variation(images: Any, name: Optional[str] = None) -> Tensor:
    """The sum of absolute differences between neighbouring pixels, vertically and
    horizontally: a scalar for one ``[h, w, c]`` image, ``[batch]`` for a batch.

    Raises:
      ValueError: images of another rank than 3 or 4.
    """
    with name_scope(name, "total_variation"):
        img = convert_to_tensor(images, name="images")
        rank = image_rank(img, "images")
        axes = [-3, -2, -1] if rank == 3 else [1, 2, 3]
        dy = img[..., 1:, :, :] - img[..., :-1, :, :]
        dx = img[..., :, 1:, :] - img[..., :, :-1, :]
        return math_ops.add(math_ops.reduce_sum(math_ops.abs(dy), axis=axes),
                            math_ops.reduce_sum(math_ops.abs(dx), axis=axes))


def _as_float32(images: Any, name: str) -> Tensor:
    return convert_image_dtype(convert_to_tensor(images, name=name), _dtypes.float32)


def _max_val(max_val: Any, dtype: _dtypes.DType) -> Tensor:
    # max_val is in the units of the images; converting it like them keeps the ratio.
    return convert_image_dtype(array_ops.cast(convert_to_tensor(max_val), dtype),
                               _dtypes.float32)


def _check_pair(a: Tensor, b: Tensor, fname: str) -> None:
    if a.dtype is not b.dtype:
        raise TypeError(f"{fname}: both images must have the same dtype, got {a.dtype.name} "
                        f"and {b.dtype.name}")
    if not a.shape.is_compatible_with(b.shape):
        raise ValueError(f"{fname}: image shapes {a.shape} and {b.shape} differ")
    if a.shape.ndims is not None and a.shape.ndims < 3:
        raise ValueError(f"{fname}: images need at least 3 dimensions [h, w, c], got "
                         f"{a.shape}")


def psnr(a: Any, b: Any, max_val: Any, name: Optional[str] = None) -> Tensor:
    """Peak signal-to-noise ratio in dB, ``10 * log10(max_val^2 / mse)``, per image.

    Integer images are first scaled to [0, 1] floats (``max_val`` with them); the
    result is float32 with the leading (batch) shape of the images.
    """
    with name_scope(name, "PSNR"):
        a_t, b_t = convert_to_tensor(a, name="a"), convert_to_tensor(b, name="b")
        _check_pair(a_t, b_t, "psnr")
        mv = _max_val(max_val, a_t.dtype)
        fa, fb = _as_float32(a_t, "a"), _as_float32(b_t, "b")
        mse = math_ops.reduce_mean(math_ops.squared_difference(fa, fb), axis=[-3, -2, -1])
        ln10 = np.float32(np.log(10.0))
        return math_ops.subtract(math_ops.multiply(math_ops.log(mv), 20.0 / ln10),
                                 math_ops.multiply(math_ops.log(mse), 10.0 / ln10), name="psnr")


def _gaussian_window(size: int, sigma: float) -> np.ndarray:
    coords = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = np.exp(-0.5 * coords ** 2 / sigma ** 2)
    w = np.outer(g, g)
    return (w / w.sum()).astype(np.float32)


def _window_means(x: Tensor, window: np.ndarray, channels: int) -> Tensor:
    """Gaussian-weighted local means of each channel over valid windows."""
    k = np.tile(window[:, :, None, None], (1, 1, channels, 1))
    return nn_conv_variant_ops.depthwise_conv2d(x, convert_to_tensor(k), [1, 1, 1, 1], "VALID")


def _check_filter(filter_size: Any, filter_sigma: Any, fname: str) -> None:
    if not isinstance(filter_size, int) or filter_size < 1:
        raise ValueError(f"{fname}: filter_size must be a positive int, got {filter_size!r}")
    if not filter_sigma > 0:
        raise ValueError(f"{fname}: filter_sigma must be positive, got {filter_sigma!r}")


def _prepare(img1: Any, img2: Any, fname: str, filter_size: int, halvings: int = 0) -> Any:
    """Both images as float32 ``[n, h, w, c]``, the leading shape, the channel count and
    the input dtype; checks that the filter fits after ``halvings`` halvings."""
    a_t, b_t = convert_to_tensor(img1, name="img1"), convert_to_tensor(img2, name="img2")
    _check_pair(a_t, b_t, fname)
    dims = a_t.shape.as_list() if a_t.shape.ndims is not None else None
    if dims is None or dims[-1] is None:
        raise ValueError(f"{fname}: the channel count must be known when the graph is built, "
                         f"got shape {a_t.shape}")
    for d in dims[-3:-1]:
        small = d
        for _ in range(halvings):
            small = None if small is None else -(-small // 2)
        if small is not None and small < filter_size:
            raise ValueError(f"{fname}: images of shape {a_t.shape} are smaller than the "
                             f"{filter_size}x{filter_size} filter"
                             + (f" after {halvings} halvings" if halvings else ""))
    x, y = _as_float32(a_t, "img1"), _as_float32(b_t, "img2")
    lead = array_ops.shape(x)[:-3]
    flat: List[Any] = [-1] + dims[-3:]
    return array_ops.reshape(x, flat), array_ops.reshape(y, flat), lead, dims[-1], a_t.dtype


def _ssim_maps(x4: Tensor, y4: Tensor, mv: Tensor, window: np.ndarray, c: int, k1: float,
               k2: float) -> Any:
    """Per-position ``(ssim, contrast-structure)`` maps, ``[n, h', w', c]``."""
    mu_x, mu_y = _window_means(x4, window, c), _window_means(y4, window, c)
    c1 = math_ops.square(math_ops.multiply(mv, float(k1)))
    c2 = math_ops.square(math_ops.multiply(mv, float(k2)))
    mu_xy = math_ops.multiply(mu_x, mu_y) * 2.0
    mu_sq = math_ops.square(mu_x) + math_ops.square(mu_y)
    luminance = (mu_xy + c1) / (mu_sq + c1)
    e_xy = _window_means(x4 * y4, window, c) * 2.0
    e_sq = _window_means(math_ops.square(x4) + math_ops.square(y4), window, c)
    structure = (e_xy - mu_xy + c2) / (e_sq - mu_sq + c2)
    return luminance * structure, structure


def ssim(img1: Any, img2: Any, max_val: Any, filter_size: int = 11,
         filter_sigma: float = 1.5, k1: float = 0.01, k2: float = 0.03,
         return_index_map: bool = False) -> Tensor:
    """Structural similarity of two images or batches, one float32 per image.

    Local means, variances and covariance come from a ``filter_size`` Gaussian window
    (``filter_sigma``) over every position where it fits; SSIM is the mean over those
    positions of ``(2 mu1 mu2 + C1) / (mu1^2 + mu2^2 + C1) * (2 s12 + C2) / (s1^2 +
    s2^2 + C2)`` with ``C1 = (k1 max_val)^2``, ``C2 = (k2 max_val)^2``, averaged over
    channels. ``return_index_map=True`` gives the per-position map instead.

    Raises:
      ValueError: images without a static channel count, or smaller than the window
        when that is known at build time.
    """
    _check_filter(filter_size, filter_sigma, "ssim")
    with name_scope(None, "SSIM"):
        x4, y4, lead, c, dt = _prepare(img1, img2, "ssim", filter_size)
        window = _gaussian_window(filter_size, filter_sigma)
        per_pixel, _ = _ssim_maps(x4, y4, _max_val(max_val, dt), window, c, k1, k2)
        if return_index_map:
            out = math_ops.reduce_mean(per_pixel, axis=-1)
            return array_ops.reshape(out, array_ops.concat(
                [lead, array_ops.shape(out)[1:]], 0))
        per_image = math_ops.reduce_mean(per_pixel, axis=[1, 2, 3])
        return array_ops.reshape(per_image, lead)


def ssim_multiscale(img1: Any, img2: Any, max_val: Any,
                    power_factors: Any = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333),
                    filter_size: int = 11, filter_sigma: float = 1.5, k1: float = 0.01,
                    k2: float = 0.03) -> Tensor:
    """Multi-scale SSIM: one scale per entry of ``power_factors``, each halving the
    previous one (2x2 average pooling after mirroring an odd last row or column).
    The result is the product over scales of the contrast-structure term (the full
    SSIM at the coarsest scale), each clipped at 0 and raised to its power factor,
    averaged over channels: one float32 per image.

    Raises:
      ValueError: no power factors, or images that cannot be halved
        ``len(power_factors) - 1`` times and still hold the filter.
    """
    _check_filter(filter_size, filter_sigma, "ssim_multiscale")
    factors = [float(p) for p in power_factors]
    if not factors:
        raise ValueError("ssim_multiscale: power_factors must not be empty")
    with name_scope(None, "MS-SSIM"):
        x4, y4, lead, c, dt = _prepare(img1, img2, "ssim_multiscale", filter_size,
                                       len(factors) - 1)
        mv = _max_val(max_val, dt)
        window = _gaussian_window(filter_size, filter_sigma)
        terms = []
        for k in range(len(factors)):
            if k:
                x4, y4 = _halve(x4), _halve(y4)
            full, structure = _ssim_maps(x4, y4, mv, window, c, k1, k2)
            last = k == len(factors) - 1
            term = math_ops.reduce_mean(full if last else structure, axis=[1, 2])
            terms.append(math_ops.pow(nn_ops.relu(term), factors[k]))
        product = terms[0]
        for t in terms[1:]:
            product = product * t
        return array_ops.reshape(math_ops.reduce_mean(product, axis=-1), lead)


def _halve(x: Tensor) -> Tensor:
    """2x2 average pooling, mirroring one more row/column first where a side is odd."""
    dims = array_ops.shape(x)
    odd_h, odd_w = dims[1] % 2, dims[2] % 2
    paddings = array_ops.stack([array_ops.stack([0, 0]), array_ops.stack([0, odd_h]),
                                array_ops.stack([0, odd_w]), array_ops.stack([0, 0])])
    padded = array_ops.pad(x, paddings, mode="SYMMETRIC")
    return nn_ops.avg_pool(padded, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")


def image_gradients(image: Any) -> Any:
    """``(dy, dx)`` of a ``[batch, h, w, c]`` batch: forward differences to the next row
    and column, 0 in the last row (dy) and last column (dx).

    Raises:
      ValueError: an image of another rank than 4.
    """
    img = convert_to_tensor(image, name="image")
    if img.shape.ndims != 4:
        raise ValueError(f"image_gradients expects a 4-D tensor [batch_size, h, w, d], got "
                         f"shape {img.shape}")
    with name_scope(None, "image_gradients"):
        dy = img[:, 1:, :, :] - img[:, :-1, :, :]
        dx = img[:, :, 1:, :] - img[:, :, :-1, :]
        dy = array_ops.pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]])
        dx = array_ops.pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]])
        return dy, dx


_SOBEL = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
                   [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]], dtype=np.float32)


def sobel_edges(image: Any) -> Tensor:
    """Sobel responses of a ``[batch, h, w, c]`` float batch, ``[batch, h, w, c, 2]``: the
    vertical (dy) then horizontal (dx) 3x3 Sobel filter, the border reflected.

    Raises:
      ValueError: an image without a static channel count or of another rank than 4.
    """
    img = convert_to_tensor(image, name="image")
    dims = img.shape.as_list() if img.shape.ndims is not None else None
    if dims is None or len(dims) != 4 or dims[3] is None:
        raise ValueError(f"sobel_edges expects [batch, h, w, channels] with a known channel "
                         f"count, got shape {img.shape}")
    with name_scope(None, "sobel_edges"):
        c = dims[3]
        padded = array_ops.pad(img, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
        # One depthwise filter per (channel, direction): output channel 2 * ch + k.
        kernel = np.tile(np.transpose(_SOBEL, (1, 2, 0))[:, :, None, :], (1, 1, c, 1))
        out = nn_conv_variant_ops.depthwise_conv2d(
            padded, convert_to_tensor(kernel.astype(img.dtype.np)), [1, 1, 1, 1], "VALID")
        shape = array_ops.concat([array_ops.shape(img), [2]], 0)
        return array_ops.reshape(out, shape)


def _fit_size(h: int, w: int, th: int, tw: int) -> List[int]:
    """``[resized_h, resized_w, offset_h, offset_w]``: the sizes are the floors of the
    exact scaled sizes and the offsets the floors of half the padding *before* that
    rounding, all in float32 arithmetic, so sizes and offsets match the reference."""
    f32 = np.float32
    ratio = max(f32(w) / f32(tw), f32(h) / f32(th))
    fh, fw = f32(h) / ratio, f32(w) / ratio
    return [int(np.floor(fh)), int(np.floor(fw)),
            max(int(np.floor((f32(th) - fh) / f32(2))), 0),
            max(int(np.floor((f32(tw) - fw) / f32(2))), 0)]


def resize_image_with_pad(image: Any, target_height: int, target_width: int,
                          method: int = ResizeMethod.BILINEAR,
                          align_corners: bool = False) -> Tensor:
    """Resizes to fit ``target_height`` x ``target_width`` keeping the aspect ratio,
    then zero-pads to exactly that size, the image centred (rounding the offsets down).

    Raises:
      ValueError: non-positive targets, or the image size unknown at build time.
    """
    with name_scope(None, "resize_image_with_pad"):
        img = convert_to_tensor(image, name="image")
        rank = image_rank(img)
        if not (isinstance(target_height, int) and isinstance(target_width, int)) or \
                target_height <= 0 or target_width <= 0:
            raise ValueError(f"resize_image_with_pad: target_height and target_width must be "
                             f"positive ints, got {target_height!r}, {target_width!r}")
        h, w = img.shape.as_list()[rank - 3:rank - 1]
        if h is None or w is None:
            raise ValueError("resize_image_with_pad needs the image's height and width known "
                             "when the graph is built")
        rh, rw, off_h, off_w = _fit_size(h, w, target_height, target_width)
        resized = resize_images(img, [rh, rw], method=method, align_corners=align_corners)
        return pad_to_bounding_box(resized, off_h, off_w, target_height, target_width)


__all__ = ["total_variation", "psnr", "ssim", "ssim_multiscale", "image_gradients",
           "sobel_edges",
           "resize_image_with_pad"]
