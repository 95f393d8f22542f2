"""tf.image measures (total_variation, psnr, ssim), edges, resize_image_with_pad and decode_gif
against numpy references, Pillow and a few numbers recorded from TensorFlow."""

import io

import numpy as np
import pytest
from PIL import Image

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

R = np.random.RandomState(9)


def run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def test_total_variation():
    img = R.rand(2, 5, 4, 3)
    want = (np.abs(np.diff(img, axis=1)).sum(axis=(1, 2, 3)) +
            np.abs(np.diff(img, axis=2)).sum(axis=(1, 2, 3)))
    np.testing.assert_allclose(run(tf.image.total_variation(img)), want)
    np.testing.assert_allclose(run(tf.image.total_variation(img[1])), want[1])
    check_gradients(lambda x: tf.image.total_variation(x), [R.rand(2, 3, 4, 2)])
    with pytest.raises(ValueError, match="3 or 4"):
        tf.image.total_variation(np.zeros((3, 3)))


def test_psnr_float_and_uint8():
    a = R.rand(2, 6, 5, 3).astype(np.float32)
    b = np.clip(a + R.randn(*a.shape).astype(np.float32) * 0.1, 0, 1)
    mse = ((a.astype(np.float64) - b) ** 2).mean(axis=(1, 2, 3))
    got = run(tf.image.psnr(a, b, 1.0))
    assert got.dtype == np.float32 and got.shape == (2,)
    np.testing.assert_allclose(got, 10 * np.log10(1.0 / mse), rtol=1e-5)
    au, bu = (a * 255).astype(np.uint8), (b * 255).astype(np.uint8)
    mse_u = ((au / 255.0 - bu / 255.0) ** 2).mean(axis=(1, 2, 3))
    np.testing.assert_allclose(run(tf.image.psnr(au, bu, 255)), 10 * np.log10(1 / mse_u),
                               rtol=1e-5)
    check_gradients(lambda x: tf.image.psnr(x, tf.constant(b[:, :3, :3].astype(np.float64)), 1.0),
                    [a[:, :3, :3].astype(np.float64)], rtol=1e-2)


def gaussian(size, sigma):
    c = np.arange(size) - (size - 1) / 2.0
    g = np.exp(-c ** 2 / (2 * sigma ** 2))
    w = np.outer(g, g)
    return w / w.sum()


def valid_filter(x, w):
    """Per-channel correlation of ``[n, h, w, c]`` with ``w`` over valid positions."""
    k = w.shape[0]
    n, h, wd, c = x.shape
    out = np.zeros((n, h - k + 1, wd - k + 1, c))
    for i in range(k):
        for j in range(k):
            out += w[i, j] * x[:, i:i + h - k + 1, j:j + wd - k + 1]
    return out


def ref_ssim(x, y, max_val, size=11, sigma=1.5, k1=0.01, k2=0.03):
    w = gaussian(size, sigma)
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mx, my = valid_filter(x, w), valid_filter(y, w)
    vx = valid_filter(x * x, w) - mx ** 2
    vy = valid_filter(y * y, w) - my ** 2
    cxy = valid_filter(x * y, w) - mx * my
    s = (2 * mx * my + c1) * (2 * cxy + c2) / ((mx ** 2 + my ** 2 + c1) * (vx + vy + c2))
    return s.mean(axis=(1, 2, 3))


def test_ssim_matches_reference_and_tensorflow():
    r = np.random.RandomState(5)
    a = r.rand(2, 16, 13, 3).astype(np.float32)
    b = np.clip(a + r.randn(*a.shape).astype(np.float32) * 0.1, 0, 1)
    got = run(tf.image.ssim(a, b, 1.0))
    assert got.dtype == np.float32 and got.shape == (2,)
    np.testing.assert_allclose(got, ref_ssim(a.astype(np.float64), b, 1.0), rtol=1e-5)
    np.testing.assert_allclose(got, [0.941537, 0.942234], rtol=1e-5)  # from TensorFlow
    au, bu = (a * 255).astype(np.uint8), (b * 255).astype(np.uint8)
    np.testing.assert_allclose(run(tf.image.ssim(au, bu, 255)), [0.941441, 0.942015],
                               rtol=1e-5)
    one = run(tf.image.ssim(a[0], b[0], 1.0, filter_size=5, filter_sigma=0.8))
    assert one.shape == ()
    np.testing.assert_allclose(one, ref_ssim(a[:1].astype(np.float64), b[:1], 1.0, 5, 0.8)[0],
                               rtol=1e-5)
    np.testing.assert_allclose(run(tf.image.ssim(a, a, 1.0)), [1.0, 1.0], rtol=1e-6)


def test_ssim_gradient_and_errors():
    b = R.rand(1, 5, 5, 2)
    check_gradients(lambda x: tf.image.ssim(x, tf.constant(b), 1.0,
                                            filter_size=3),
                    [R.rand(1, 5, 5, 2)], rtol=2e-2, atol=1e-3)
    with pytest.raises(ValueError, match="smaller"):
        tf.image.ssim(np.zeros((8, 8, 1), np.float32), np.zeros((8, 8, 1), np.float32), 1.0)
    with pytest.raises(TypeError, match="same dtype"):
        tf.image.ssim(np.zeros((12, 12, 1), np.float32), np.zeros((12, 12, 1)), 1.0)


@pytest.mark.parametrize("hw,target,rows,cols", [
    # nonzero row/column ranges recorded from TensorFlow
    ((480, 640), (300, 300), (37, 260), (0, 298)),
    ((7, 3), (5, 9), (0, 4), (3, 4)),
    ((10, 10), (3, 7), (0, 2), (2, 4)),
    ((13, 16), (7, 7), (0, 4), (0, 5)),
])
def test_resize_image_with_pad(hw, target, rows, cols):
    img = np.ones(hw + (2,), np.float32)
    out = tf.image.resize_image_with_pad(img, *target)
    assert out.shape.as_list() == list(target) + [2]
    v = run(out)
    nz_r, nz_c = np.nonzero(v[..., 0])
    assert (nz_r.min(), nz_r.max()) == rows and (nz_c.min(), nz_c.max()) == cols
    assert np.all(v[rows[0]:rows[1] + 1, cols[0]:cols[1] + 1] == 1)
    batch = run(tf.image.resize_image_with_pad(img[None], *target, method=1))
    np.testing.assert_array_equal(batch[0], v)
    with pytest.raises(ValueError, match="positive"):
        tf.image.resize_image_with_pad(img, 0, 4)


def test_decode_gif():
    frames = [Image.fromarray((R.rand(6, 5, 3) * 255).astype(np.uint8)) for _ in range(3)]
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:])
    got = run(tf.image.decode_gif(buf.getvalue()))
    assert got.dtype == np.uint8 and got.shape == (3, 6, 5, 3)
    back = Image.open(io.BytesIO(buf.getvalue()))
    for k in range(3):
        back.seek(k)
        np.testing.assert_array_equal(got[k], np.asarray(back.convert("RGB")))
    png = io.BytesIO()
    frames[0].save(png, format="PNG")
    with pytest.raises(tf.errors.InvalidArgumentError, match="GIF"):
        run(tf.image.decode_gif(png.getvalue()))


def test_image_gradients_and_sobel_edges():
    img = R.rand(2, 4, 5, 3).astype(np.float32)
    dy, dx = run(tf.image.image_gradients(img))
    want_dy = np.zeros_like(img)
    want_dy[:, :-1] = img[:, 1:] - img[:, :-1]
    want_dx = np.zeros_like(img)
    want_dx[:, :, :-1] = img[:, :, 1:] - img[:, :, :-1]
    np.testing.assert_allclose(dy, want_dy, atol=1e-7)
    np.testing.assert_allclose(dx, want_dx, atol=1e-7)
    edges = run(tf.image.sobel_edges(img))
    assert edges.shape == (2, 4, 5, 3, 2)
    p = np.pad(img, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="reflect")
    ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float32)
    for k, kernel in enumerate((ky, ky.T)):
        want = sum(kernel[i, j] * p[:, i:i + 4, j:j + 5] for i in range(3) for j in range(3))
        np.testing.assert_allclose(edges[..., k], want, atol=1e-5)
    check_gradients(lambda x: tf.image.sobel_edges(x), [R.rand(1, 3, 4, 2)])
    with pytest.raises(ValueError, match="4-D"):
        tf.image.image_gradients(img[0])


def ref_ms_ssim(x, y, max_val, factors, size, sigma):
    w = gaussian(size, sigma)
    c1, c2 = (0.01 * max_val) ** 2, (0.03 * max_val) ** 2
    out = np.ones((x.shape[0], x.shape[3]))
    for k, p in enumerate(factors):
        if k:
            x, y = [np.pad(v, ((0, 0), (0, v.shape[1] % 2), (0, v.shape[2] % 2), (0, 0)),
                           mode="symmetric") for v in (x, y)]
            x, y = [v.reshape(v.shape[0], v.shape[1] // 2, 2, v.shape[2] // 2, 2,
                              v.shape[3]).mean(axis=(2, 4)) for v in (x, y)]
        mx, my = valid_filter(x, w), valid_filter(y, w)
        vx, vy = valid_filter(x * x, w) - mx ** 2, valid_filter(y * y, w) - my ** 2
        cxy = valid_filter(x * y, w) - mx * my
        cs = (2 * cxy + c2) / (vx + vy + c2)
        lum = (2 * mx * my + c1) / (mx ** 2 + my ** 2 + c1)
        term = (cs * lum if k == len(factors) - 1 else cs).mean(axis=(1, 2))
        out *= np.maximum(term, 0) ** p
    return out.mean(axis=-1)


def test_ssim_multiscale():
    r = np.random.RandomState(0)
    a = r.rand(2, 81, 77, 3).astype(np.float32)
    b = np.clip(a + r.randn(*a.shape).astype(np.float32) * 0.05, 0, 1)
    got = run(tf.image.ssim_multiscale(a, b, 1.0, filter_size=5))
    np.testing.assert_allclose(got, [0.98751, 0.987], atol=1e-5)  # from TensorFlow
    factors = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)
    np.testing.assert_allclose(got, ref_ms_ssim(a.astype(np.float64), b, 1.0, factors, 5, 1.5),
                               rtol=1e-4)
    two = run(tf.image.ssim_multiscale(a[0], b[0], 1.0, power_factors=(0.5, 0.5),
                                       filter_size=7))
    np.testing.assert_allclose(two, 0.9857653, rtol=1e-5)
    with pytest.raises(ValueError, match="halvings"):
        tf.image.ssim_multiscale(a, b, 1.0)


def test_colour_spaces_and_gamma():
    rgb = R.rand(2, 3, 4, 3).astype(np.float32)
    yiq = run(tf.image.rgb_to_yiq(rgb))
    np.testing.assert_allclose(yiq[..., 0], rgb @ [0.299, 0.587, 0.114], rtol=1e-5)
    # the published matrices are inverses to about 1e-4
    np.testing.assert_allclose(run(tf.image.yiq_to_rgb(yiq)), rgb, atol=2e-4)
    np.testing.assert_allclose(run(tf.image.yuv_to_rgb(tf.image.rgb_to_yuv(rgb))), rgb,
                               atol=2e-4)
    px = np.array([[0.5488135, 0.71518934, 0.60276335]], np.float32)
    np.testing.assert_allclose(run(tf.image.rgb_to_yuv(px)), [[0.65263, -0.02454, -0.09107]],
                               atol=1e-5)  # from TensorFlow
    np.testing.assert_allclose(run(tf.image.adjust_gamma(rgb, 2.0, 0.5)), 0.5 * rgb ** 2,
                               rtol=1e-6)
    u8 = (rgb * 255).astype(np.uint8)
    got = run(tf.image.adjust_gamma(u8, 0.5))
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, ((u8 / 255.0) ** 0.5 * 255.5).astype(np.uint8))
    with pytest.raises(ValueError, match="non-negative"):
        tf.image.adjust_gamma(rgb, -1.0)
    assert tf.image.resize is tf.image.resize_images
    assert tf.image.transpose is tf.image.transpose_image


def _encoded(arr, mode, fmt):
    buf = io.BytesIO()
    Image.fromarray(arr, mode).save(buf, format=fmt)
    return buf.getvalue()


def test_decode_bmp_and_extract_jpeg_shape():
    rgb = (R.rand(5, 7, 3) * 255).astype(np.uint8)
    bmp = _encoded(rgb, "RGB", "BMP")
    np.testing.assert_array_equal(run(tf.image.decode_bmp(bmp)), rgb)
    four = run(tf.image.decode_bmp(bmp, channels=4))
    np.testing.assert_array_equal(four[..., :3], rgb)
    assert np.all(four[..., 3] == 255)
    grey = run(tf.image.decode_bmp(_encoded(rgb[..., 0], "L", "BMP")))
    np.testing.assert_array_equal(grey[..., 0], rgb[..., 0])
    rgba = np.dstack([rgb, rgb[..., :1]])
    got = run(tf.image.decode_bmp(_encoded(rgba, "RGBA", "BMP")))
    np.testing.assert_array_equal(got, rgba)  # 32-bit: the fourth byte is alpha
    with pytest.raises(ValueError, match="channels"):
        tf.image.decode_bmp(bmp, channels=1)
    shape = tf.image.extract_jpeg_shape(_encoded(rgb, "RGB", "JPEG"), output_type=tf.int64)
    assert shape.dtype == tf.int64
    np.testing.assert_array_equal(run(shape), [5, 7, 3])
    np.testing.assert_array_equal(
        run(tf.image.extract_jpeg_shape(_encoded(rgb[..., 0], "L", "JPEG"))), [5, 7, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="JPEG"):
        run(tf.image.extract_jpeg_shape(bmp))
