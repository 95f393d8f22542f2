"""tf.image: resizes against per-pixel numpy references of TensorFlow 1.x's definitions,
codecs against Pillow, geometry against numpy, colour against colorsys."""

import colorsys
import io
import math

import numpy as np
import pytest
from PIL import Image

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

R = np.random.RandomState(7)
IMG = R.rand(2, 5, 7, 3).astype(np.float32)


def run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


# -- numpy references of the resize definitions (half_pixel_centers=False) ---------------

def _scale(n_in, n_out, ac):
    return (n_in - 1) / (n_out - 1) if ac and n_out > 1 else n_in / n_out


def ref_nearest(img, oh, ow, ac):
    n, h, w, c = img.shape
    out = np.zeros((n, oh, ow, c), img.dtype)
    sy, sx = _scale(h, oh, ac), _scale(w, ow, ac)
    pick = (lambda v: math.floor(v + 0.5)) if ac else math.floor
    for y in range(oh):
        for x in range(ow):
            out[:, y, x] = img[:, min(pick(y * sy), h - 1), min(pick(x * sx), w - 1)]
    return out


def ref_bilinear(img, oh, ow, ac):
    n, h, w, c = img.shape
    out = np.zeros((n, oh, ow, c))
    sy, sx = _scale(h, oh, ac), _scale(w, ow, ac)
    for y in range(oh):
        fy = y * sy
        y0, dy = int(math.floor(fy)), fy - math.floor(fy)
        y1 = min(y0 + 1, h - 1)
        for x in range(ow):
            fx = x * sx
            x0, dx = int(math.floor(fx)), fx - math.floor(fx)
            x1 = min(x0 + 1, w - 1)
            top = img[:, y0, x0] * (1 - dx) + img[:, y0, x1] * dx
            bottom = img[:, y1, x0] * (1 - dx) + img[:, y1, x1] * dx
            out[:, y, x] = top * (1 - dy) + bottom * dy
    return out


def _keys(t, a=-0.75):
    t = abs(t)
    if t <= 1:
        return ((a + 2) * t - (a + 3)) * t * t + 1
    if t < 2:
        return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return 0.0


def ref_bicubic(img, oh, ow, ac):
    # TensorFlow samples the cubic kernel at 1/1024 steps of the fractional offset.
    n, h, w, c = img.shape
    sy, sx = _scale(h, oh, ac), _scale(w, ow, ac)

    def taps(f, size):
        base = math.floor(f)
        d = round((f - base) * 1024) / 1024
        return [(min(max(base + k, 0), size - 1), _keys(k - d)) for k in (-1, 0, 1, 2)]

    out = np.zeros((n, oh, ow, c))
    for y in range(oh):
        for x in range(ow):
            for iy, wy in taps(y * sy, h):
                for ix, wx in taps(x * sx, w):
                    out[:, y, x] += wy * wx * img[:, iy, ix]
    return out


def ref_area(img, oh, ow, ac):
    n, h, w, c = img.shape
    sy, sx = _scale(h, oh, ac), _scale(w, ow, ac)

    def cover(i, scale, size):
        lo, hi = i * scale, (i + 1) * scale
        return [(min(j, size - 1), min(hi, j + 1) - max(lo, j))
                for j in range(int(math.floor(lo)), int(math.ceil(hi)))]

    out = np.zeros((n, oh, ow, c))
    for y in range(oh):
        for x in range(ow):
            for iy, wy in cover(y, sy, h):
                for ix, wx in cover(x, sx, w):
                    out[:, y, x] += wy * wx * img[:, iy, ix]
            out[:, y, x] /= sy * sx
    return out


REFS = {"BILINEAR": ref_bilinear, "NEAREST_NEIGHBOR": ref_nearest, "BICUBIC": ref_bicubic,
        "AREA": ref_area}


@pytest.mark.parametrize("method", sorted(REFS))
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(3, 4), (8, 11), (1, 1), (5, 3)])
def test_resize_images_matches_reference(method, align_corners, size):
    out = tf.image.resize_images(tf.constant(IMG), size,
                                 method=getattr(tf.image.ResizeMethod, method),
                                 align_corners=align_corners)
    assert out.shape.as_list() == [2, size[0], size[1], 3] and out.dtype is tf.float32
    expected = REFS[method](IMG.astype(np.float64), size[0], size[1], align_corners)
    np.testing.assert_allclose(run(out), expected, rtol=1e-5, atol=2e-6)


def test_resize_images_dtypes_ranks_and_identity():
    u8 = (IMG * 255).astype(np.uint8)
    near = tf.image.resize_images(u8, [8, 11], tf.image.ResizeMethod.NEAREST_NEIGHBOR)
    lin = tf.image.resize_images(u8, [8, 11])
    single = tf.image.resize_images(IMG[0], [3, 4])
    x = tf.constant(IMG)
    assert tf.image.resize_images(x, [5, 7]) is x  # already that size
    assert near.dtype is tf.uint8 and lin.dtype is tf.float32
    assert single.shape.as_list() == [3, 4, 3]
    np.testing.assert_array_equal(run(near), ref_nearest(u8, 8, 11, False))
    np.testing.assert_allclose(run(lin), ref_bilinear(u8.astype(np.float64), 8, 11, False),
                               rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(run(single), ref_bilinear(IMG[:1], 3, 4, False)[0], rtol=1e-5)
    kept = tf.image.resize_images(x, [10, 10], preserve_aspect_ratio=True)
    assert kept.shape.as_list() == [2, 7, 10, 3]
    size = tf.placeholder(tf.int32, [2])
    dyn = tf.image.resize_images(x, size)
    assert run(dyn, {size: [4, 2]}).shape == (2, 4, 2, 3)


def test_resize_errors():
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        tf.image.resize_images(tf.zeros([4, 4]), [2, 2])
    with pytest.raises(ValueError, match="not implemented"):
        tf.image.resize_images(tf.zeros([4, 4, 1]), [2, 2], method=7)
    with pytest.raises(ValueError, match="half_pixel_centers"):
        tf.image.resize_bicubic(tf.zeros([1, 4, 4, 1]), [2, 2], half_pixel_centers=True)
    with pytest.raises(ValueError, match="2 elements"):
        tf.image.resize_images(tf.zeros([4, 4, 1]), [2, 2, 2])
    size = tf.placeholder(tf.int32, [2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="positive"):
        run(tf.image.resize_bilinear(tf.zeros([1, 4, 4, 1]), size), {size: [0, 3]})


@pytest.mark.parametrize("fn", [tf.image.resize_bilinear, tf.image.resize_nearest_neighbor,
                                tf.image.resize_bicubic])
@pytest.mark.parametrize("align_corners", [False, True])
def test_resize_gradients(fn, align_corners):
    x = R.rand(1, 4, 5, 2).astype(np.float32)
    check_gradients(lambda t: fn(t, [6, 3], align_corners=align_corners), [x],
                    delta=1e-2, rtol=1e-2, atol=5e-3, dtype=tf.float32)


# -- codecs -------------------------------------------------------------------------------

def _pil_bytes(arr, fmt, **kw):
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format=fmt, **kw)
    return buf.getvalue()


def test_png_roundtrip_all_channel_counts():
    for c in (1, 3, 4):
        img = R.randint(0, 256, (6, 5, c)).astype(np.uint8)
        enc = tf.image.encode_png(img)
        data = run(enc)
        back = np.asarray(Image.open(io.BytesIO(data)))
        np.testing.assert_array_equal(back.reshape(img.shape), img)
        dec = tf.image.decode_png(data, channels=c)
        assert dec.shape.as_list() == [None, None, c]
        np.testing.assert_array_equal(run(dec), img)
    rgba = R.randint(0, 256, (3, 4, 4)).astype(np.uint8)
    np.testing.assert_array_equal(run(tf.image.decode_png(_pil_bytes(rgba, "PNG"), channels=3)),
                                  np.asarray(Image.fromarray(rgba).convert("RGB")))


def test_png_16_bit_greyscale():
    img = R.randint(0, 65536, (4, 3, 1)).astype(np.uint16)
    data = run(tf.image.encode_png(img, compression=9))
    back = tf.image.decode_png(data, dtype=tf.uint16)
    np.testing.assert_array_equal(run(back), img)
    eight = R.randint(0, 256, (2, 2, 3)).astype(np.uint8)
    wide = run(tf.image.decode_png(_pil_bytes(eight, "PNG"), dtype=tf.uint16))
    np.testing.assert_array_equal(wide, eight.astype(np.uint16) * 257)


def test_jpeg_encode_and_decode_match_pillow():
    img = (np.add.outer(np.arange(16), np.arange(16))[..., None] * [8, 4, 2] % 256).astype(
        np.uint8)
    ours = run(tf.image.encode_jpeg(img, quality=80))
    theirs = _pil_bytes(img, "JPEG", quality=80)
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(ours))),
                                  np.asarray(Image.open(io.BytesIO(theirs))))
    np.testing.assert_array_equal(run(tf.image.decode_jpeg(theirs)),
                                  np.asarray(Image.open(io.BytesIO(theirs))))
    grey = run(tf.image.decode_jpeg(theirs, channels=1))
    luma = Image.open(io.BytesIO(theirs))
    luma.draft("L", luma.size)
    assert grey.shape == (16, 16, 1)
    np.testing.assert_array_equal(grey[..., 0], np.asarray(luma.convert("L")))
    g = run(tf.image.encode_jpeg(img[..., :1], format="grayscale"))
    assert Image.open(io.BytesIO(g)).mode == "L"
    half = run(tf.image.decode_jpeg(theirs, ratio=2))
    scaled = Image.open(io.BytesIO(theirs))
    scaled.draft("RGB", (8, 8))
    assert half.shape == (8, 8, 3)
    np.testing.assert_array_equal(half, np.asarray(scaled))
    with pytest.raises(ValueError, match="ratio"):
        tf.image.decode_jpeg(theirs, ratio=3)
    with pytest.raises(ValueError, match="fancy_upscaling"):
        tf.image.decode_jpeg(theirs, fancy_upscaling=False)
    with pytest.raises(tf.errors.InvalidArgumentError, match="JPEG"):
        run(tf.image.decode_jpeg(b"not a jpeg"))


def test_decode_image_formats_and_float_dtype():
    img = R.randint(0, 256, (4, 5, 3)).astype(np.uint8)
    png = _pil_bytes(img, "PNG")
    np.testing.assert_array_equal(run(tf.image.decode_image(png)), img)
    np.testing.assert_allclose(run(tf.image.decode_image(png, dtype=tf.float32)), img / 255.0,
                               rtol=1e-6)
    frames = [Image.fromarray(np.full((3, 2, 3), v, np.uint8)) for v in (0, 255)]
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:])
    gif = run(tf.image.decode_image(buf.getvalue()))
    assert gif.shape == (2, 3, 2, 3)
    np.testing.assert_array_equal(gif[1], 255)
    bmp = _pil_bytes(img, "BMP")
    np.testing.assert_array_equal(run(tf.image.decode_image(bmp)), img)


# -- geometry -----------------------------------------------------------------------------

def test_flips_transpose_rot90():
    img, bat = IMG[0], IMG
    I = tf.image
    np.testing.assert_array_equal(run(I.flip_left_right(img)), img[:, ::-1])
    np.testing.assert_array_equal(run(I.flip_up_down(bat)), bat[:, ::-1])
    np.testing.assert_array_equal(run(I.flip_left_right(bat)), bat[:, :, ::-1])
    np.testing.assert_array_equal(run(I.transpose_image(bat)), bat.transpose(0, 2, 1, 3))
    for k in range(-1, 5):
        np.testing.assert_array_equal(run(I.rot90(img, k)), np.rot90(img, k, axes=(0, 1)))
        np.testing.assert_array_equal(run(I.rot90(bat, k)), np.rot90(bat, k, axes=(1, 2)))
    with pytest.raises(TypeError):
        I.rot90(img, tf.constant(1))
    check_gradients(lambda t: I.flip_left_right(t), [R.rand(3, 4, 2)])


def test_random_flips_per_image():
    tf.set_random_seed(3)
    bat = np.arange(8 * 2 * 3).reshape(8, 2, 3, 1).astype(np.float32)
    out = tf.image.random_flip_left_right(bat)
    single = tf.image.random_flip_up_down(bat[0])
    flipped_any = set()
    with tf.Session() as s:
        for _ in range(6):
            got, one = s.run([out, single])
            for i in range(8):
                same = np.array_equal(got[i], bat[i])
                assert same or np.array_equal(got[i], bat[i, :, ::-1])
                flipped_any.add(same)
            assert np.array_equal(one, bat[0]) or np.array_equal(one, bat[0, ::-1])
    assert flipped_any == {True, False}


def test_crops_and_pads():
    img, bat = IMG[0], IMG
    I = tf.image
    np.testing.assert_array_equal(run(I.crop_to_bounding_box(bat, 1, 2, 3, 4)),
                                  bat[:, 1:4, 2:6])
    padded = run(I.pad_to_bounding_box(img, 1, 2, 8, 10))
    expected = np.zeros((8, 10, 3), np.float32)
    expected[1:6, 2:9] = img
    np.testing.assert_array_equal(padded, expected)
    # Crop the height (5 -> 3, offset 1), pad the width (7 -> 9, offset 1).
    both = run(I.resize_image_with_crop_or_pad(img, 3, 9))
    expected = np.zeros((3, 9, 3), np.float32)
    expected[:, 1:8] = img[1:4]
    np.testing.assert_array_equal(both, expected)
    np.testing.assert_array_equal(run(I.central_crop(img, 0.5)), img[1:4, 1:6])
    with pytest.raises(ValueError, match="width must be >= target"):
        I.crop_to_bounding_box(img, 0, 5, 2, 3)
    with pytest.raises(ValueError, match="central_fraction"):
        I.central_crop(img, 0.0)
    with pytest.raises(ValueError, match="must be <= target"):
        I.pad_to_bounding_box(img, 0, 0, 4, 7)
    check_gradients(lambda t: I.pad_to_bounding_box(I.crop_to_bounding_box(t, 1, 0, 2, 3),
                                                   1, 1, 4, 5), [R.rand(4, 3, 2)])


def test_random_crop_is_a_window():
    value = np.arange(5 * 6 * 2).reshape(5, 6, 2).astype(np.float32)
    crop = tf.random_crop(value, [3, 4, 2], seed=1)
    assert crop.shape.as_list() == [3, 4, 2]
    seen = set()
    with tf.Session() as s:
        for _ in range(10):
            c = s.run(crop)
            i, j = np.argwhere(value[..., 0] == c[0, 0, 0])[0]
            np.testing.assert_array_equal(c, value[i:i + 3, j:j + 4])
            seen.add((i, j))
    assert len(seen) > 1
    with pytest.raises(ValueError, match="value.shape >= size"):
        tf.image.random_crop(value, [6, 1, 2])


# -- colour and dtypes -------------------------------------------------------------------

def test_convert_image_dtype():
    u8 = np.array([[[0, 1, 128, 255]]], np.uint8)
    f = np.array([[[0.0, 0.25, 0.999, 1.0, 1.2, -0.1]]], np.float32)
    I = tf.image
    np.testing.assert_allclose(run(I.convert_image_dtype(u8, tf.float32)), u8 / 255.0,
                               rtol=1e-6)
    np.testing.assert_array_equal(run(I.convert_image_dtype(f[..., :4], tf.uint8)),
                                  np.trunc(f[..., :4] * 255.5).astype(np.uint8))
    np.testing.assert_array_equal(run(I.convert_image_dtype(f, tf.uint8, saturate=True)),
                                  np.clip(np.trunc(f * 255.5), 0, 255).astype(np.uint8))
    np.testing.assert_array_equal(run(I.convert_image_dtype(u8, tf.uint16)),
                                  u8.astype(np.uint16) * 256)
    i32 = np.array([[[2 ** 30, 5, 2 ** 31 - 1]]], np.int32)
    np.testing.assert_array_equal(run(I.convert_image_dtype(i32, tf.uint8)), i32 // 2 ** 23)
    assert run(I.convert_image_dtype(f, tf.float64)).dtype == np.float64


def _per_pixel(fn, img):
    flat = img.reshape(-1, 3).astype(np.float64)
    return np.array([fn(*p) for p in flat]).reshape(img.shape)


def test_hsv_conversions_match_colorsys():
    img = IMG
    hsv = run(tf.image.rgb_to_hsv(img))
    np.testing.assert_allclose(hsv, _per_pixel(colorsys.rgb_to_hsv, img), atol=1e-6)
    np.testing.assert_allclose(run(tf.image.hsv_to_rgb(hsv)), img, atol=1e-6)
    np.testing.assert_allclose(run(tf.image.hsv_to_rgb(img)),
                               _per_pixel(colorsys.hsv_to_rgb, img), atol=1e-6)
    with pytest.raises(TypeError, match="float"):
        tf.image.rgb_to_hsv(np.zeros((2, 2, 3), np.uint8))


def test_colour_adjustments():
    img, u8 = IMG[0], (IMG[0] * 255).astype(np.uint8)
    I = tf.image

    def hue(r, g, b, d=0.3):
        h, s, v = colorsys.rgb_to_hsv(r, g, b)
        return colorsys.hsv_to_rgb((h + d) % 1.0, s, v)

    def sat(r, g, b, k=1.8):
        h, s, v = colorsys.rgb_to_hsv(r, g, b)
        return colorsys.hsv_to_rgb(h, min(s * k, 1.0), v)

    np.testing.assert_allclose(run(I.adjust_hue(img, 0.3)), _per_pixel(hue, img), atol=1e-5)
    np.testing.assert_allclose(run(I.adjust_hue(img, -0.45)),
                               _per_pixel(lambda *p: hue(*p, d=-0.45), img), atol=1e-5)
    np.testing.assert_allclose(run(I.adjust_saturation(img, 1.8)), _per_pixel(sat, img),
                               atol=1e-5)
    np.testing.assert_allclose(run(I.adjust_brightness(img, 0.2)), img + 0.2, rtol=1e-6)
    bright_u8 = run(I.adjust_brightness(u8, 0.2))
    np.testing.assert_array_equal(
        bright_u8, np.clip(np.trunc((u8 / 255.0 + 0.2) * 255.5), 0, 255).astype(np.uint8))
    mean = img.mean(axis=(0, 1), keepdims=True)
    np.testing.assert_allclose(run(I.adjust_contrast(img, 1.7)), (img - mean) * 1.7 + mean,
                               rtol=1e-5, atol=1e-6)
    gray = run(I.rgb_to_grayscale(IMG))
    np.testing.assert_allclose(gray, IMG @ np.array([[0.2989], [0.5870], [0.1140]]),
                               rtol=1e-5)
    np.testing.assert_array_equal(run(I.grayscale_to_rgb(gray)), np.repeat(gray, 3, axis=-1))
    assert run(I.rgb_to_grayscale(u8)).dtype == np.uint8


def test_random_colour_adjustments_stay_in_range():
    img = IMG[0]
    I = tf.image
    b = I.random_brightness(img, 0.1, seed=1)
    c = I.random_contrast(img, 0.5, 1.5, seed=2)
    mean = img.mean(axis=(0, 1), keepdims=True)
    with tf.Session() as s:
        for _ in range(3):
            delta = s.run(b) - img
            assert np.allclose(delta, delta.flat[0], atol=1e-6) and abs(delta.flat[0]) <= 0.1
            factor = (s.run(c) - mean) / (img - mean)
            assert np.allclose(factor, factor.flat[0], rtol=1e-3)
            assert 0.5 <= factor.flat[0] < 1.5
    s_out = run(I.random_saturation(img, 0.9, 1.1, seed=3))
    h_out = run(I.random_hue(img, 0.05, seed=4))
    assert s_out.shape == h_out.shape == img.shape
    with pytest.raises(ValueError, match="max_delta"):
        I.random_hue(img, 0.6)
    with pytest.raises(ValueError, match="upper must be > lower"):
        I.random_contrast(img, 1.0, 0.5)
    with pytest.raises(ValueError, match="non-negative"):
        I.random_brightness(img, -0.1)


def test_per_image_standardization():
    bat = IMG
    out = run(tf.image.per_image_standardization(bat))
    n = 5 * 7 * 3
    for i in range(2):
        x = bat[i].astype(np.float64)
        expected = (x - x.mean()) / max(x.std(), 1 / math.sqrt(n))
        np.testing.assert_allclose(out[i], expected, rtol=1e-4, atol=1e-5)
    flat = run(tf.image.per_image_standardization(np.ones((2, 2, 1), np.uint8)))
    np.testing.assert_array_equal(flat, 0.0)
